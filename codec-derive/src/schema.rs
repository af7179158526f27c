//! The JSON Schema of the type's JSON encoding, from the same model as the codecs.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::ext::IdentExt as _;
use syn::spanned::Spanned;

use crate::ast::{Container, Data, EnumRepr, Field, Style, TagValue, Variant};

/// `json_schema`, `__wire_name` and `__WIRE_ALIASES` of the `Schema` impl.
pub fn items(cont: &Container) -> TokenStream {
    let p = cont.private();
    let body = match &cont.data {
        Data::Struct(style, fields) => struct_schema(cont, *style, fields),
        Data::Enum(variants) => enum_schema(cont, variants),
    };
    let aliases = &cont.attrs.aliases;
    let version = match cont.attrs.version.get() {
        Some(v) => quote!(#p::Some(#v)),
        None => quote!(#p::None),
    };
    let name = cont
        .attrs
        .name
        .get()
        .cloned()
        .unwrap_or_else(|| cont.ident.unraw().to_string());
    // A generic type's name lists the types its encoding depends on: a
    // parameter only in `PhantomData` or skipped fields changes nothing.
    let type_params = crate::bound::encoded_generic_types(cont);
    let wire_name = if type_params.is_empty() {
        quote!(#p::Cow::Borrowed(#name))
    } else {
        quote! {
            #p::Cow::Owned(::std::format!(
                "{}<{}>",
                #name,
                [#(#p::schema::wire_name::<#type_params>()),*].join(", ")
            ))
        }
    };
    let body = describe(cont, body, cont.attrs.doc.as_deref());
    quote! {
        fn json_schema(__g: &mut #p::schemars::SchemaGenerator) -> #p::schemars::Schema {
            let __schema = #body;
            #p::schema::annotate(__schema, &[#(#aliases),*], #version)
        }

        fn __wire_name() -> #p::Option<#p::Cow<'static, str>> {
            #p::Some(#wire_name)
        }

        const __WIRE_ALIASES: &'static [&'static str] = &[#(#aliases),*];
    }
}

/// `impl schemars::JsonSchema`, so schemars-derived types can hold codec types.
pub fn schemars_impl(cont: &Container, generics: &syn::Generics) -> TokenStream {
    if cont.borrows() {
        // schemars' types own their data; a borrowing type's schema is its
        // owned twin's.
        return TokenStream::new();
    }
    let p = cont.private();
    let ident = cont.ident;
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    quote! {
        #[automatically_derived]
        impl #impl_generics #p::schemars::JsonSchema for #ident #ty_generics #where_clause {
            fn schema_name() -> #p::Cow<'static, str> {
                #p::schema::wire_name::<Self>()
            }

            fn schema_id() -> #p::Cow<'static, str> {
                <#p::CodecSchema<Self> as #p::schemars::JsonSchema>::schema_id()
            }

            fn json_schema(__g: &mut #p::schemars::SchemaGenerator) -> #p::schemars::Schema {
                <Self as #p::Schema>::json_schema(__g)
            }
        }
    }
}

fn field_schema(cont: &Container, field: &Field) -> TokenStream {
    let schema = match field.attrs.with.get() {
        Some(path) => {
            let ty = field.ty;
            quote!(#path::json_schema::<#ty>(__g))
        }
        None => {
            let p = cont.private();
            let ty = field.ty;
            let subschema = quote_spanned!(ty.span()=> <#ty as #p::Schema>::__subschema);
            quote!(#subschema(__g))
        }
    };
    crate::constraints::schema(cont, field, schema)
}

/// `schema` with the doc comment `doc` as its `description`, if there is one.
fn describe(cont: &Container, schema: TokenStream, doc: Option<&str>) -> TokenStream {
    let p = cont.private();
    match doc {
        Some(doc) => quote!(#p::schema::describe(#schema, #doc)),
        None => schema,
    }
}

/// A variant's schema with its doc comment as its `description`.
fn describe_variant(cont: &Container, variant: TokenStream, doc: Option<&str>) -> TokenStream {
    let p = cont.private();
    match doc {
        Some(doc) => quote!(#p::schema::describe_variant(#variant, #doc)),
        None => variant,
    }
}

/// The schema of a field of an object or an array: its doc comment as its
/// `description`; with a default, the default's JSON encoding under
/// `"default"`, as schemars writes it (not when `skip_serializing_if`
/// leaves the default value out).
fn member_schema(cont: &Container, field: &Field) -> TokenStream {
    let p = cont.private();
    let schema = describe(cont, field_schema(cont, field), field.attrs.doc.as_deref());
    let Some(value) = crate::default::value(cont, field, &quote!(<Self as #p::Default>::default()))
    else {
        return schema;
    };
    let skip = field.attrs.skip_serializing_if.get().map(|path| {
        quote! {
            if #path(&__v) {
                return #p::Ok(());
            }
        }
    });
    let write = crate::encode::json_value(cont, field, quote!(&__v));
    quote! {
        #p::schema::with_default(#schema, #p::schema::default_json(|__w| {
            let __v = #value;
            #skip
            #write
            #p::Ok(())
        }))
    }
}

fn has_default(cont: &Container, field: &Field) -> bool {
    field.attrs.default.is_set() || cont.attrs.default.is_set()
}

fn object(cont: &Container, fields: &[Field]) -> TokenStream {
    let p = cont.private();
    let entries = fields.iter().filter(|f| !f.is_skipped()).map(|f| {
        let name = &f.wire_name;
        let aliases = &f.attrs.aliases;
        let schema = member_schema(cont, f);
        let required = if has_default(cont, f) {
            quote!(false)
        } else if f.attrs.required.is_set() || f.attrs.with.is_set() {
            quote!(true)
        } else {
            let kind = cont.field_kind(f);
            quote!(!#p::may_be_missing(#kind))
        };
        quote! {
            #p::schema::FieldSchema {
                name: #name,
                aliases: &[#(#aliases),*],
                schema: #schema,
                required: #required,
            }
        }
    });
    let deny = cont.deny_unknown_fields();
    let object = quote!(#p::schema::object(::std::vec![#(#entries),*], #deny));
    if cont.attrs.omit_defaults.is_set() {
        quote!(#p::schema::omit_defaults(#object))
    } else {
        object
    }
}

/// The element schemas of fields encoded as an array, and how many are required.
fn elements(cont: &Container, fields: &[Field]) -> (Vec<TokenStream>, usize) {
    let live: Vec<&Field> = fields.iter().filter(|f| !f.is_skipped()).collect();
    let required = live
        .iter()
        .rposition(|f| !has_default(cont, f))
        .map_or(0, |i| i + 1);
    (
        live.iter().map(|f| member_schema(cont, f)).collect(),
        required,
    )
}

/// The wire names of the fields an `array_like` schema holds, in order.
fn field_names<'a>(fields: &'a [Field]) -> Vec<&'a str> {
    fields
        .iter()
        .filter(|f| !f.is_skipped())
        .map(|f| f.wire_name.as_str())
        .collect()
}

fn tuple(cont: &Container, fields: &[Field], closed: bool) -> TokenStream {
    let p = cont.private();
    let (items, required) = elements(cont, fields);
    quote!(#p::schema::tuple(::std::vec![#(#items),*], #required, #closed))
}

fn struct_schema(cont: &Container, style: Style, fields: &[Field]) -> TokenStream {
    let p = cont.private();
    match style {
        Style::Named if !cont.attrs.array_like.is_set() => object(cont, fields),
        Style::Named => {
            let tuple = tuple(cont, fields, cont.deny_unknown_fields());
            let names = field_names(fields);
            quote!(#p::schema::field_names(#tuple, &[#(#names),*]))
        }
        Style::Tuple => tuple(cont, fields, true),
        Style::Newtype => field_schema(cont, &fields[0]),
        Style::Unit => quote!(#p::schema::typed("null", #p::serde_json::json!({}))),
    }
}

fn tag_json(cont: &Container, tag: &TagValue) -> TokenStream {
    let p = cont.private();
    match tag {
        TagValue::Str(s) => quote!(<#p::serde_json::Value as #p::From<&str>>::from(#s)),
        TagValue::Int(i) => quote!(<#p::serde_json::Value as #p::From<i64>>::from(#i)),
    }
}

fn enum_schema(cont: &Container, variants: &[Variant]) -> TokenStream {
    let p = cont.private();
    match cont.enum_repr().expect("an enum has a representation") {
        EnumRepr::Unit => {
            let values = variants.iter().map(|v| tag_json(cont, &v.tag));
            let aliases = variants.iter().map(|v| {
                let aliases = &v.attrs.aliases;
                quote!(&[#(#aliases),*])
            });
            quote!(#p::schema::enumeration(::std::vec![#(#values),*], &[#(#aliases),*]))
        }
        EnumRepr::TaggedMap => {
            let tag_field = cont.tag_field();
            let content = cont.content_field();
            let deny = cont.deny_unknown_fields();
            let schemas = variants.iter().map(|v| {
                let tag = tag_json(cont, &v.tag);
                let aliases = &v.attrs.aliases;
                let content_object = |schema: TokenStream| {
                    quote! {
                        #p::schema::object(::std::vec![#p::schema::FieldSchema {
                            name: #content,
                            aliases: &[],
                            schema: #schema,
                            required: true,
                        }], #deny)
                    }
                };
                let payload = match v.style {
                    Style::Unit => object(cont, &[]),
                    Style::Named => object(cont, &v.fields),
                    Style::Tuple => content_object(tuple(cont, &v.fields, true)),
                    Style::Newtype => {
                        let field = &v.fields[0];
                        let unmerged = content_object(field_schema(cont, field));
                        if field.attrs.with.is_set() {
                            unmerged
                        } else {
                            let ty = field.ty;
                            quote! {
                                if <#ty as #p::Schema>::__MAP_BODY {
                                    <#ty as #p::Schema>::__subschema(__g)
                                } else {
                                    #unmerged
                                }
                            }
                        }
                    }
                };
                let variant = quote! {{
                    let __payload = #payload;
                    #p::schema::tagged_variant(__g, #tag_field, #tag, &[#(#aliases),*], __payload)
                }};
                describe_variant(cont, variant, v.attrs.doc.as_deref())
            });
            quote!(#p::schema::tagged_union(#tag_field, ::std::vec![#(#schemas),*]))
        }
        EnumRepr::TaggedArray => {
            let closed = cont.deny_unknown_fields();
            let schemas = variants.iter().map(|v| {
                let tag = tag_json(cont, &v.tag);
                let aliases = &v.attrs.aliases;
                let (items, required) = elements(cont, &v.fields);
                let variant = quote!(#p::schema::tagged_array_variant(#tag, &[#(#aliases),*], ::std::vec![#(#items),*], #required, #closed));
                let variant = if v.style == Style::Named {
                    let names = field_names(&v.fields);
                    quote!(#p::schema::variant_field_names(#variant, &[#(#names),*]))
                } else {
                    variant
                };
                describe_variant(cont, variant, v.attrs.doc.as_deref())
            });
            quote!(#p::schema::one_of(::std::vec![#(#schemas),*]))
        }
        EnumRepr::Untagged => {
            let schemas = variants.iter().map(|v| match v.style {
                Style::Unit => quote!(#p::schema::typed("null", #p::serde_json::json!({}))),
                Style::Newtype => field_schema(cont, &v.fields[0]),
                Style::Tuple => tuple(cont, &v.fields, true),
                Style::Named => object(cont, &v.fields),
            });
            quote!(#p::schema::any_of(::std::vec![#(#schemas),*]))
        }
    }
}
