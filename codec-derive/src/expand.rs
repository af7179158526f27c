//! Puts the pieces together: parse, check, generate, and wrap in a hygienic impl.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};

use crate::ast::{Container, Data, EnumRepr, Style, TagValue};
use crate::ctxt::Ctxt;
use crate::{bound, check, decode, encode, schema};

pub fn derive(input: &syn::DeriveInput) -> syn::Result<TokenStream> {
    let cx = Ctxt::new();
    let Some(cont) = Container::from_ast(&cx, input) else {
        return Err(cx.check().expect_err("from_ast failed without an error"));
    };
    check::check(&cx, &cont);
    if let Err(errors) = cx.check() {
        return Ok(with_stub(&cont, errors));
    }
    let mut impls = match &cont.data {
        Data::Struct(style, fields) => {
            let mut impls = struct_consts(&cont, *style, fields);
            impls
                .encode
                .extend(encode::struct_items(&cont, *style, fields));
            impls
                .decode
                .extend(decode::struct_items(&cont, *style, fields));
            impls
        }
        Data::Enum(variants) => {
            let repr = cont.enum_repr().expect("an enum has a representation");
            Items {
                encode: encode::enum_items(&cont, variants, repr),
                decode: decode::enum_items(&cont, variants, repr),
                schema: enum_consts(&cont, variants, repr),
            }
        }
    };
    impls.schema.extend(schema::items(&cont));
    impls.schema.extend(store_handler(&cont));
    let mut out = wrap(&cont, impls);
    if cont.generics.params.is_empty() {
        out.extend(omitted_fields_read_back(&cont));
    }
    out.extend(crate::register::registration(&cont));
    out.extend(crate::serde_impls::impls(&cont));
    if let (Some(repr), Data::Enum(variants)) = (cont.enum_repr(), &cont.data) {
        // Checked where the enum is defined, on the offending variant. Generic
        // enums are checked when used with concrete types (inside KIND).
        if cont.generics.params.is_empty() {
            match repr {
                EnumRepr::Untagged => out.extend(untagged_checks(&cont, variants)),
                EnumRepr::TaggedMap => out.extend(merged_tag_checks(&cont, variants)),
                _ => {}
            }
        }
    }
    Ok(out)
}

/// `__STORE_HANDLER`, from `#[codec(handler = ..)]`: an item of the impl,
/// which the store reads from the generic `put::<T>`/`get::<T>`, so no
/// linker drops it (as it may a registration nothing refers to).
fn store_handler(cont: &Container) -> TokenStream {
    let krate = &cont.krate;
    let p = cont.private();
    let value = match cont.attrs.handler.get() {
        _ if cont.borrows() => return TokenStream::new(),
        None => return TokenStream::new(),
        Some(crate::attr::Handler::Name(name)) => {
            quote!(#krate::__store::DefaultHandler::Named(#name))
        }
        // `handler = Self`: the type stores itself (`DumpSelf`).
        Some(crate::attr::Handler::Type(ty)) if is_self(ty) => {
            let made =
                quote_spanned!(syn::spanned::Spanned::span(ty)=> #p::handler::made_self::<Self>);
            quote!(#krate::__store::DefaultHandler::Made(#made))
        }
        Some(crate::attr::Handler::Type(ty)) => {
            let made =
                quote_spanned!(syn::spanned::Spanned::span(ty)=> #p::handler::made::<Self, #ty>);
            quote!(#krate::__store::DefaultHandler::Made(#made))
        }
    };
    quote! {
        const __STORE_HANDLER: ::core::option::Option<#krate::__store::DefaultHandler> =
            ::core::option::Option::Some(#value);
    }
}

fn is_self(ty: &syn::Type) -> bool {
    matches!(ty, syn::Type::Path(p) if p.qself.is_none() && p.path.is_ident("Self"))
}

/// The items of the three impls the derive writes: `Encode`, `Decode` and
/// `Schema` (the type is then `Codec` unless it borrows).
struct Items {
    encode: TokenStream,
    decode: TokenStream,
    schema: TokenStream,
}

fn wrap(cont: &Container, items: Items) -> TokenStream {
    let Items {
        encode: encode_items,
        decode: decode_items,
        schema: schema_items,
    } = items;
    let krate = &cont.krate;
    let ident = cont.ident;
    let p = quote!(#krate::__private);
    // Each impl bounds the type parameters by its own trait, and `Schema`,
    // whose kinds and map body's facts the encoders and decoders read.
    let generics = bound::with_bounds(cont, &quote!(#p::Schema));
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    let encode_generics = bound::with_bounds(cont, &quote!(#p::Encode + #p::Schema));
    let (encode_impl_generics, _, encode_where) = encode_generics.split_for_impl();
    let schemars_impl = schema::schemars_impl(cont, &generics);
    // A type that borrows reads from inputs that outlive its lifetimes;
    // another from any input.
    let mut de_generics = bound::with_bounds(cont, &quote!(#p::Decode<'__de> + #p::Schema));
    let lifetimes = cont.generics.lifetimes().map(|l| &l.lifetime);
    de_generics.params.insert(
        0,
        match cont.borrows() {
            true => syn::parse_quote!('__de: #(#lifetimes)+*),
            false => syn::parse_quote!('__de),
        },
    );
    let (de_impl_generics, _, de_where) = de_generics.split_for_impl();
    quote! {
        #[doc(hidden)]
        #[allow(
            deprecated,
            non_upper_case_globals,
            unused_attributes,
            unused_qualifications,
            unused_variables,
            unused_mut,
            unreachable_code,
            clippy::all
        )]
        const _: () = {
            #[automatically_derived]
            impl #de_impl_generics #krate::__private::Decode<'__de> for #ident #ty_generics #de_where {
                #decode_items
            }

            #[automatically_derived]
            impl #encode_impl_generics #krate::__private::Encode for #ident #ty_generics #encode_where {
                #encode_items
            }

            #[automatically_derived]
            impl #impl_generics #krate::__private::Schema for #ident #ty_generics #where_clause {
                #schema_items
            }

            #schemars_impl
        };
    }
}

/// The derive's errors, plus an impl that compiles, so uses of the type don't
/// add a cascade of "the trait `Codec` is not implemented" errors.
fn with_stub(cont: &Container, errors: syn::Error) -> TokenStream {
    let p = cont.private();
    let encode = quote! {
        fn encode_msgpack(&self, _: &mut #p::MsgpackWriter) -> #p::Result<(), #p::EncodeError> {
            ::core::unimplemented!()
        }
        fn encode_json(&self, _: &mut #p::JsonWriter) -> #p::Result<(), #p::EncodeError> {
            ::core::unimplemented!()
        }
    };
    let decode = quote! {
        fn decode_msgpack(_: &mut #p::MsgpackReader<'__de>) -> #p::Result<Self, #p::DecodeError> {
            ::core::unimplemented!()
        }
        fn decode_json(_: &mut #p::JsonReader<'__de>) -> #p::Result<Self, #p::DecodeError> {
            ::core::unimplemented!()
        }
    };
    let schema = quote! {
        const KIND: #p::WireKind = #p::WireKind::ANY;
        fn json_schema(_: &mut #p::schemars::SchemaGenerator) -> #p::schemars::Schema {
            ::core::unimplemented!()
        }
    };
    let stub = wrap(
        cont,
        Items {
            encode,
            decode,
            schema,
        },
    );
    let errors = errors.into_compile_error();
    quote!(#errors #stub)
}

/// The struct's hooks of `Encode` and `Decode`, and its kinds and map body's
/// facts of `Schema`.
fn struct_consts(cont: &Container, style: Style, fields: &[crate::ast::Field]) -> Items {
    let p = cont.private();
    let shape = match style {
        Style::Named if !cont.attrs.array_like.is_set() => {
            let names = fields
                .iter()
                .filter(|f| !f.is_skipped())
                .flat_map(|f| f.accepted_names());
            quote! {
                const KIND: #p::WireKind = #p::WireKind::MAP;
                const __MAP_BODY: bool = true;
                const __FIELD_NAMES: &'static [&'static str] = &[#(#names),*];
            }
        }
        Style::Named | Style::Tuple => quote!(const KIND: #p::WireKind = #p::WireKind::ARRAY;),
        Style::Unit => quote!(const KIND: #p::WireKind = #p::WireKind::NIL;),
        // A recursive newtype (`struct T(Option<Box<T>>)`) would define its
        // kind by itself: it gets none of its own.
        Style::Newtype
            if fields[0].attrs.with.is_set()
                || crate::ast::refers_to_itself(fields[0].ty, cont.ident) =>
        {
            quote!(const KIND: #p::WireKind = #p::WireKind::ANY;)
        }
        Style::Newtype => {
            let ty = fields[0].ty;
            return Items {
                encode: quote!(#p::forward_encode!(inner: #ty, get: |__v| &__v.0);),
                decode: newtype_delegation(cont, &fields[0]),
                schema: quote!(#p::forward_shape!(inner: #ty);),
            };
        }
    };
    Items {
        encode: TokenStream::new(),
        decode: TokenStream::new(),
        schema: shape,
    }
}

/// A newtype is its inner value on the wire: it inherits the inner type's
/// kind, and the runtime's one list of hooks forwards its merging behaviour
/// and its use as a JSON object key.
fn newtype_delegation(cont: &Container, field: &crate::ast::Field) -> TokenStream {
    let p = cont.private();
    let ty = field.ty;
    if field.attrs.constraints.is_empty() {
        return quote!(#p::forward_decode!(inner: #ty, wrap: Self, de: '__de););
    }
    // As a JSON object key, the value is checked as it is everywhere else.
    let checked = crate::constraints::decode(
        cont,
        field,
        quote!(<#ty as #p::Decode<'__de>>::__decode_json_key(__r, __key)),
    );
    quote! {
        #p::forward_decode!(inner: #ty, wrap: Self, de: '__de, decode_json_key: own);

        #[inline]
        fn __decode_json_key(
            __r: &mut #p::JsonReader<'__de>,
            __key: #p::Cow<'__de, str>,
        ) -> #p::Result<Self, #p::DecodeError> {
            #checked.map(Self)
        }
    }
}

fn enum_consts(cont: &Container, variants: &[crate::ast::Variant], repr: EnumRepr) -> TokenStream {
    let p = cont.private();
    if repr == EnumRepr::Untagged {
        let kinds = variants.iter().map(|v| v.kind_expr(cont));
        // Generic unions are checked when used with concrete types.
        let checks = if cont.generics.params.is_empty() {
            TokenStream::new()
        } else {
            untagged_checks(cont, variants)
        };
        return quote! {
            const KIND: #p::WireKind = {
                #checks
                #p::WireKind::NONE #(.union(#kinds))*
            };
        };
    }
    let kind = match repr {
        EnumRepr::Unit if matches!(variants[0].tag, TagValue::Int(_)) => quote!(INT),
        EnumRepr::Unit => quote!(STR),
        EnumRepr::TaggedMap => quote!(MAP),
        EnumRepr::TaggedArray => quote!(ARRAY),
        EnumRepr::Untagged => unreachable!("handled above"),
    };
    quote!(const KIND: #p::WireKind = #p::WireKind::#kind;)
}

/// Const assertions that no two untagged variants take the same wire kind,
/// for pairs where a newtype's payload kind is known only to the compiler.
/// Each fails compilation with its own message, on the later variant.
fn untagged_checks(cont: &Container, variants: &[crate::ast::Variant]) -> TokenStream {
    let p = cont.private();
    let mut checks = TokenStream::new();
    for (j, b) in variants.iter().enumerate() {
        for a in &variants[..j] {
            if a.static_kind().is_some() && b.static_kind().is_some() {
                continue; // reported by check.rs with better spans
            }
            let (ka, kb) = (a.kind_expr(cont), b.kind_expr(cont));
            let (na, nb) = (a.ident, b.ident);
            let fix =
                "; remove `untagged` (enums are tagged by default), or make the payloads distinct";
            let arms = ["nil", "bool", "int", "float", "string-like", "array-like", "map-like"]
                .iter()
                .enumerate()
                .map(|(i, kind)| {
                    let code = (i + 2) as u8;
                    let msg = format!(
                        "untagged variants `{na}` and `{nb}` are both {kind}: such a value could decode as either{fix}"
                    );
                    quote!(#code => ::core::panic!(#msg),)
                });
            let unknown = format!(
                "untagged variants `{na}` and `{nb}`: one payload's wire kind is unknown (a `with` or serde bridge); untagged unions need payloads of known, distinct kinds{fix}"
            );
            let check = quote_spanned! {nb.span()=>
                match #p::untagged_clash(#ka, #kb) {
                    0 => {}
                    1 => ::core::panic!(#unknown),
                    #(#arms)*
                    _ => {}
                }
            };
            if cont.generics.params.is_empty() {
                checks.extend(respan(quote!(const _: () = #check;), nb.span()));
            } else {
                checks.extend(quote_spanned!(nb.span()=> let () = #check;));
            }
        }
    }
    checks
}

/// The tokens with every span but literals' set to `span`, so the compiler
/// reports an error in them (a failed const assertion) at the user's token.
/// Literals keep theirs: lints that read a literal's source (clippy's raw
/// string checks) would otherwise read the user's token as the literal.
pub(crate) fn respan(tokens: TokenStream, span: proc_macro2::Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|mut tt| {
            match &tt {
                proc_macro2::TokenTree::Group(g) => {
                    let mut group =
                        proc_macro2::Group::new(g.delimiter(), respan(g.stream(), span));
                    group.set_span(span);
                    tt = proc_macro2::TokenTree::Group(group);
                }
                proc_macro2::TokenTree::Literal(_) => {}
                _ => tt.set_span(span),
            }
            tt
        })
        .collect()
}

/// Const assertions that a field `skip_serializing_if` may leave out reads
/// back when absent: it has a default, or its type takes nil (an `Option`).
fn omitted_fields_read_back(cont: &Container) -> TokenStream {
    let p = cont.private();
    let fields: Vec<&crate::ast::Field> = match &cont.data {
        Data::Struct(_, fields) => fields.iter().collect(),
        Data::Enum(variants) => variants.iter().flat_map(|v| &v.fields).collect(),
    };
    let mut checks = TokenStream::new();
    for field in fields {
        let Some(span) = field.attrs.skip_serializing_if.span() else {
            continue;
        };
        if field.attrs.default.is_set() || cont.attrs.default.is_set() {
            continue;
        }
        let ty = field.ty;
        let msg = format!(
            "field `{}` may be left out by `skip_serializing_if` but cannot be read back without it: give it #[codec(default)] (or #[serde(default)])",
            field.wire_name
        );
        let check = quote! {
            const _: () = if !#p::may_be_missing(<#ty as #p::Schema>::KIND) {
                ::core::panic!(#msg)
            };
        };
        checks.extend(respan(check, span));
    }
    checks
}

/// Const assertions that no struct merged into a tagged map (a newtype
/// variant's payload) has a field named like the tag.
fn merged_tag_checks(cont: &Container, variants: &[crate::ast::Variant]) -> TokenStream {
    let p = cont.private();
    let tag = cont.tag_field();
    let mut checks = TokenStream::new();
    for v in variants {
        if v.style != Style::Newtype || v.fields[0].attrs.with.is_set() {
            continue;
        }
        let ty = v.fields[0].ty;
        let msg = format!(
            "variant `{}` merges the fields of its payload after the tag `{tag}`, but the payload has a field named `{tag}`; choose another tag with #[codec(tag = \"...\")] or rename the payload's field",
            v.ident
        );
        let check = quote! {
            const _: () = if <#ty as #p::Schema>::__MAP_BODY
                && #p::names_contain(<#ty as #p::Schema>::__FIELD_NAMES, #tag)
            {
                ::core::panic!(#msg)
            };
        };
        checks.extend(respan(check, v.ident.span()));
    }
    checks
}
