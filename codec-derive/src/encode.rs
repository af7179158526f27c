//! The encoders: `encode_msgpack`, `encode_json` and the map-body hooks.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use crate::ast::{Container, EnumRepr, Field, Style, TagValue, Variant};
use crate::encoded;

/// Methods encoding a struct.
pub fn struct_items(cont: &Container, style: Style, fields: &[Field]) -> TokenStream {
    let p = cont.private();
    let live = || {
        fields
            .iter()
            .filter(|f| !f.is_skipped())
            .collect::<Vec<&Field>>()
    };
    match style {
        Style::Named if !cont.attrs.array_like.is_set() => map_struct_items(cont, &live()),
        Style::Named | Style::Tuple => {
            let live = live();
            let header = encoded::bytes(&encoded::msgpack_array_header(live.len()));
            let msgpack = live.iter().map(|f| msgpack_value(cont, f, self_field(f)));
            let json = json_elements(cont, &live, self_field, false);
            encoders(
                cont,
                quote! {
                    __w.write_raw(#header);
                    #(#msgpack)*
                    #p::Ok(())
                },
                quote! {
                    __w.write_byte(b'[');
                    #json
                    __w.write_byte(b']');
                    #p::Ok(())
                },
            )
        }
        Style::Newtype => {
            let field = &fields[0];
            let msgpack = msgpack_value(cont, field, self_field(field));
            let json = json_value(cont, field, self_field(field));
            encoders(
                cont,
                quote! {
                    #msgpack
                    #p::Ok(())
                },
                quote! {
                    #json
                    #p::Ok(())
                },
            )
        }
        Style::Unit => {
            let nil = quote! {
                __w.write_nil();
                #p::Ok(())
            };
            encoders(cont, nil.clone(), nil)
        }
    }
}

/// A field of `self`, borrowed.
fn self_field(f: &Field) -> TokenStream {
    let member = &f.member;
    quote!(&self.#member)
}

/// `encode_msgpack` and `encode_json` with the given bodies.
fn encoders(cont: &Container, msgpack: TokenStream, json: TokenStream) -> TokenStream {
    let p = cont.private();
    let divert = cont.divert();
    quote! {
        #[inline]
        fn encode_msgpack(&self, __w: &mut #p::MsgpackWriter) -> #p::Result<(), #p::EncodeError> {
            #divert
            #msgpack
        }

        #[inline]
        fn encode_json(&self, __w: &mut #p::JsonWriter) -> #p::Result<(), #p::EncodeError> {
            #json
        }
    }
}

/// The methods of a struct that is a map of its fields: the encoders write
/// the map around its body, which the body hooks write (a tagged union's
/// newtype variant merges the body after its tag).
fn map_struct_items(cont: &Container, live: &[&Field]) -> TokenStream {
    let p = cont.private();
    let header = encoded::bytes(&encoded::msgpack_map_header(live.len()));
    let len = entry_count(cont, live, self_field);
    let msgpack = msgpack_entries(cont, live, self_field);
    let json = json_entries(cont, live, self_field);
    let write_header = if live
        .iter()
        .any(|f| omit_condition(cont, f, &self_field(f)).is_some())
    {
        quote!(__w.write_map_len(<Self as #p::Encode>::__map_body_len(self))?;)
    } else {
        quote!(__w.write_raw(#header);)
    };
    let defaults = container_default(cont);
    let encoders = encoders(
        cont,
        quote! {
            #write_header
            <Self as #p::Encode>::__encode_msgpack_body(self, __w)
        },
        quote! {
            let __start = __w.as_slice().len();
            <Self as #p::Encode>::__encode_json_body(self, __w)?;
            __w.end_object_from_body(__start);
            #p::Ok(())
        },
    );
    quote! {
        #encoders

        #[inline]
        fn __map_body_len(&self) -> usize {
            #defaults
            #len
        }

        #[inline]
        fn __encode_msgpack_body(&self, __w: &mut #p::MsgpackWriter) -> #p::Result<(), #p::EncodeError> {
            #defaults
            #msgpack
            #p::Ok(())
        }

        #[inline]
        fn __encode_json_body(&self, __w: &mut #p::JsonWriter) -> #p::Result<(), #p::EncodeError> {
            #defaults
            #json
            #p::Ok(())
        }
    }
}

/// Methods encoding an enum.
pub fn enum_items(cont: &Container, variants: &[Variant], repr: EnumRepr) -> TokenStream {
    let p = cont.private();
    let mut msgpack_arms = Vec::new();
    let mut json_arms = Vec::new();
    for variant in variants {
        let pattern = variant_pattern(variant);
        let (msgpack, json) = match repr {
            EnumRepr::Unit => unit_variant(variant),
            EnumRepr::TaggedMap => tagged_map_variant(cont, variant),
            EnumRepr::TaggedArray => tagged_array_variant(cont, variant),
            EnumRepr::Untagged => untagged_variant(cont, variant),
        };
        msgpack_arms.push(quote!(#pattern => { #msgpack }));
        json_arms.push(quote!(#pattern => { #json }));
    }
    let json_key = (repr == EnumRepr::Unit).then(|| unit_json_key(cont, variants));
    // Evaluates the const checks of a generic untagged union for these types.
    let check = (repr == EnumRepr::Untagged)
        .then(|| quote!(let _: #p::WireKind = <Self as #p::Schema>::KIND;));
    let divert = cont.divert();
    quote! {
        #[inline]
        fn encode_msgpack(&self, __w: &mut #p::MsgpackWriter) -> #p::Result<(), #p::EncodeError> {
            #divert
            #check
            match self {
                #(#msgpack_arms)*
            }
            #p::Ok(())
        }

        #[inline]
        fn encode_json(&self, __w: &mut #p::JsonWriter) -> #p::Result<(), #p::EncodeError> {
            #check
            match self {
                #(#json_arms)*
            }
            #p::Ok(())
        }

        #json_key
    }
}

/// A unit-only enum as a JSON object key: its tag, always quoted.
fn unit_json_key(cont: &Container, variants: &[Variant]) -> TokenStream {
    let p = cont.private();
    let arms = variants.iter().map(|v| {
        let pattern = variant_pattern(v);
        let key = encoded::json_bytes(&encoded::json_str(&v.tag.to_string()));
        quote!(#pattern => __w.write_raw(#key),)
    });
    quote! {
        fn __encode_json_key(&self, __w: &mut #p::JsonWriter) -> #p::Result<(), #p::EncodeError> {
            match self {
                #(#arms)*
            }
            #p::Ok(())
        }
    }
}

/// `Self::V { a: __f0, .. }`, binding every serialized field to `__f<i>`.
pub fn variant_pattern(variant: &Variant) -> TokenStream {
    let ident = variant.ident;
    match variant.style {
        Style::Unit => quote!(Self::#ident),
        Style::Named => {
            let binds = variant.fields.iter().enumerate().map(|(i, f)| {
                let member = &f.member;
                let name = format_ident!("__f{}", i);
                quote!(#member: #name)
            });
            quote!(Self::#ident { #(#binds,)* })
        }
        Style::Newtype | Style::Tuple => {
            let binds = (0..variant.fields.len()).map(|i| format_ident!("__f{}", i));
            quote!(Self::#ident( #(#binds),* ))
        }
    }
}

fn binding(variant: &Variant, field: &Field) -> TokenStream {
    let i = variant
        .fields
        .iter()
        .position(|f| std::ptr::eq(f, field))
        .unwrap_or(0);
    let name = format_ident!("__f{}", i);
    quote!(#name)
}

fn tag_msgpack(tag: &TagValue) -> Vec<u8> {
    match tag {
        TagValue::Str(s) => encoded::msgpack_str(s),
        TagValue::Int(i) => encoded::msgpack_int(*i),
    }
}

fn tag_json(tag: &TagValue) -> String {
    match tag {
        TagValue::Str(s) => encoded::json_str(s),
        TagValue::Int(i) => i.to_string(),
    }
}

fn unit_variant(variant: &Variant) -> (TokenStream, TokenStream) {
    let msgpack = encoded::bytes(&tag_msgpack(&variant.tag));
    let json = encoded::json_bytes(&tag_json(&variant.tag));
    (
        quote!(__w.write_raw(#msgpack);),
        quote!(__w.write_raw(#json);),
    )
}

fn tagged_map_variant(cont: &Container, variant: &Variant) -> (TokenStream, TokenStream) {
    let mut tag_entry = encoded::msgpack_str(cont.tag_field());
    tag_entry.extend(tag_msgpack(&variant.tag));
    let json_open = format!(
        "{{{}:{}",
        encoded::json_str(cont.tag_field()),
        tag_json(&variant.tag)
    );
    let live: Vec<&Field> = variant.fields.iter().filter(|f| !f.is_skipped()).collect();
    let access = |f: &Field| binding(variant, f);
    match variant.style {
        Style::Unit => {
            let mut bytes = encoded::msgpack_map_header(1);
            bytes.extend(tag_entry);
            let msgpack = encoded::bytes(&bytes);
            let json = encoded::json_bytes(&(json_open + "}"));
            (
                quote!(__w.write_raw(#msgpack);),
                quote!(__w.write_raw(#json);),
            )
        }
        Style::Named => {
            let open = encoded::json_bytes(&json_open);
            let msgpack = msgpack_entries(cont, &live, access);
            let json = json_entries(cont, &live, access);
            let header = if live
                .iter()
                .any(|f| omit_condition(cont, f, &access(f)).is_some())
            {
                let len = entry_count(cont, &live, access);
                let tag_entry = encoded::bytes(&tag_entry);
                quote!(__w.write_map_len(1 + #len)?; __w.write_raw(#tag_entry);)
            } else {
                let mut bytes = encoded::msgpack_map_header(1 + live.len());
                bytes.extend(tag_entry);
                let header = encoded::bytes(&bytes);
                quote!(__w.write_raw(#header);)
            };
            (
                quote!(#header #msgpack),
                quote!(__w.write_raw(#open); #json __w.write_byte(b'}');),
            )
        }
        Style::Newtype | Style::Tuple => {
            tagged_payload_variant(cont, variant, &live, &tag_entry, &json_open)
        }
    }
}

/// A newtype or tuple variant of a tagged map union: its payload under the
/// content key, or, for a newtype whose payload is a struct, the payload's
/// fields merged after the tag. `tag_entry` and `json_open` are the
/// encoded tag entry and the JSON text up to the tag's value.
fn tagged_payload_variant(
    cont: &Container,
    variant: &Variant,
    live: &[&Field],
    tag_entry: &[u8],
    json_open: &str,
) -> (TokenStream, TokenStream) {
    let access = |f: &Field| binding(variant, f);
    let mut content = encoded::msgpack_map_header(2);
    content.extend(tag_entry);
    content.extend(encoded::msgpack_str(cont.content_field()));
    let json_content = format!("{json_open},{}:", encoded::json_str(cont.content_field()));
    let (msgpack_payload, json_payload) = if variant.style == Style::Newtype {
        let f = &variant.fields[0];
        (
            msgpack_value(cont, f, access(f)),
            json_value(cont, f, access(f)),
        )
    } else {
        let header = encoded::bytes(&encoded::msgpack_array_header(live.len()));
        let elems = live.iter().map(|f| msgpack_value(cont, f, access(f)));
        let json = json_elements(cont, live, access, false);
        (
            quote!(__w.write_raw(#header); #(#elems)*),
            quote!(__w.write_byte(b'['); #json __w.write_byte(b']');),
        )
    };
    let content = encoded::bytes(&content);
    let json_content = encoded::json_bytes(&json_content);
    let unmerged_msgpack = quote!(__w.write_raw(#content); #msgpack_payload);
    let unmerged_json = quote!(__w.write_raw(#json_content); #json_payload __w.write_byte(b'}'););
    let field = &variant.fields[0];
    if variant.style == Style::Tuple || field.attrs.with.is_set() {
        return (unmerged_msgpack, unmerged_json);
    }
    // A payload that is itself a struct merges its fields after the tag.
    let (p, krate) = (cont.private(), &cont.krate);
    let ty = field.ty;
    let tag_entry = encoded::bytes(tag_entry);
    let open = encoded::json_bytes(json_open);
    (
        quote! {
            if <#ty as #p::Schema>::__MAP_BODY {
                if <#ty as #p::Schema>::__STORE_HANDLER.is_some() {
                    #krate::__store::handled::refuse_merged(::core::any::type_name::<#ty>(), __w)?;
                }
                __w.write_map_len(1 + <#ty as #p::Encode>::__map_body_len(__f0))?;
                __w.write_raw(#tag_entry);
                <#ty as #p::Encode>::__encode_msgpack_body(__f0, __w)?;
            } else {
                #unmerged_msgpack
            }
        },
        quote! {
            if <#ty as #p::Schema>::__MAP_BODY {
                __w.write_raw(#open);
                <#ty as #p::Encode>::__encode_json_body(__f0, __w)?;
                __w.write_byte(b'}');
            } else {
                #unmerged_json
            }
        },
    )
}

fn tagged_array_variant(cont: &Container, variant: &Variant) -> (TokenStream, TokenStream) {
    let live: Vec<&Field> = variant.fields.iter().filter(|f| !f.is_skipped()).collect();
    let access = |f: &Field| binding(variant, f);
    let mut header = encoded::msgpack_array_header(1 + live.len());
    header.extend(tag_msgpack(&variant.tag));
    let header = encoded::bytes(&header);
    let open = encoded::json_bytes(&format!("[{}", tag_json(&variant.tag)));
    let msgpack = live.iter().map(|f| msgpack_value(cont, f, access(f)));
    let json = json_elements(cont, &live, access, true);
    (
        quote!(__w.write_raw(#header); #(#msgpack)*),
        quote!(__w.write_raw(#open); #json __w.write_byte(b']');),
    )
}

fn untagged_variant(cont: &Container, variant: &Variant) -> (TokenStream, TokenStream) {
    let live: Vec<&Field> = variant.fields.iter().filter(|f| !f.is_skipped()).collect();
    let access = |f: &Field| binding(variant, f);
    match variant.style {
        Style::Unit => (quote!(__w.write_nil();), quote!(__w.write_nil();)),
        Style::Newtype => {
            let f = &variant.fields[0];
            (
                msgpack_value(cont, f, access(f)),
                json_value(cont, f, access(f)),
            )
        }
        Style::Tuple => {
            let header = encoded::bytes(&encoded::msgpack_array_header(live.len()));
            let elems = live.iter().map(|f| msgpack_value(cont, f, access(f)));
            let json = json_elements(cont, &live, access, false);
            (
                quote!(__w.write_raw(#header); #(#elems)*),
                quote!(__w.write_byte(b'['); #json __w.write_byte(b']');),
            )
        }
        Style::Named => {
            let header = if live
                .iter()
                .any(|f| omit_condition(cont, f, &access(f)).is_some())
            {
                let len = entry_count(cont, &live, access);
                quote!(__w.write_map_len(#len)?;)
            } else {
                let header = encoded::bytes(&encoded::msgpack_map_header(live.len()));
                quote!(__w.write_raw(#header);)
            };
            let msgpack = msgpack_entries(cont, &live, access);
            let json = json_entries(cont, &live, access);
            (
                quote!(#header #msgpack),
                quote! {
                    let __start = __w.as_slice().len();
                    #json
                    __w.end_object_from_body(__start);
                },
            )
        }
    }
}

/// `key value` pairs of a map body, keys precomputed.
fn msgpack_entries(
    cont: &Container,
    fields: &[&Field],
    access: impl Fn(&Field) -> TokenStream,
) -> TokenStream {
    let entries = fields.iter().map(|f| {
        let key = encoded::bytes(&encoded::msgpack_str(&f.wire_name));
        let value = msgpack_value(cont, f, access(f));
        unless_omitted(cont, f, &access(f), quote!(__w.write_raw(#key); #value))
    });
    quote!(#(#entries)*)
}

/// `,"key":value` for each field.
fn json_entries(
    cont: &Container,
    fields: &[&Field],
    access: impl Fn(&Field) -> TokenStream,
) -> TokenStream {
    let entries = fields.iter().map(|f| {
        let key = encoded::json_bytes(&format!(",{}:", encoded::json_str(&f.wire_name)));
        let value = json_value(cont, f, access(f));
        unless_omitted(cont, f, &access(f), quote!(__w.write_raw(#key); #value))
    });
    quote!(#(#entries)*)
}

/// When the field at `access` (a reference) is left out: its
/// `skip_serializing_if` function says so, or, under `omit_defaults`, it
/// equals the default a missing field takes. `None` when it is always written.
fn omit_condition(cont: &Container, field: &Field, access: &TokenStream) -> Option<TokenStream> {
    let p = cont.private();
    let ty = field.ty;
    let by_fn = field
        .attrs
        .skip_serializing_if
        .get()
        .map(|path| quote!(#path(#access)));
    let by_default = cont
        .attrs
        .omit_defaults
        .is_set()
        .then(|| {
            let default = crate::default::value(cont, field, &quote!(__default))?;
            let eq = quote_spanned!(ty.span()=> <#ty as #p::PartialEq>::eq);
            Some(quote!(#eq(#access, &#default)))
        })
        .flatten();
    match (by_fn, by_default) {
        (Some(a), Some(b)) => Some(quote!((#a || #b))),
        (a, b) => a.or(b),
    }
}

/// `entry` guarded by the field's omission condition, if it has one.
fn unless_omitted(
    cont: &Container,
    field: &Field,
    access: &TokenStream,
    entry: TokenStream,
) -> TokenStream {
    match omit_condition(cont, field, access) {
        Some(omit) => quote!(if !#omit { #entry }),
        None => entry,
    }
}

/// The number of entries written: a constant, less each field left out.
fn entry_count(
    cont: &Container,
    fields: &[&Field],
    access: impl Fn(&Field) -> TokenStream,
) -> TokenStream {
    let p = cont.private();
    let len = fields.len();
    let omitted = fields
        .iter()
        .filter_map(|f| omit_condition(cont, f, &access(f)))
        .map(|omit| quote!(- <usize as #p::From<bool>>::from(#omit)));
    quote!((#len #(#omitted)*))
}

/// `let __default = Self::default();` when fields left out under
/// `omit_defaults` compare with the type's `Default`.
fn container_default(cont: &Container) -> Option<TokenStream> {
    let krate = &cont.krate;
    let omits = cont.attrs.omit_defaults.is_set() && cont.attrs.default.is_set();
    omits.then(|| quote!(let __default = <Self as #krate::__private::Default>::default();))
}

/// Array elements separated by commas; `leading_comma` when a tag precedes them.
fn json_elements(
    cont: &Container,
    fields: &[&Field],
    access: impl Fn(&Field) -> TokenStream,
    leading_comma: bool,
) -> TokenStream {
    let elems = fields.iter().enumerate().map(|(i, f)| {
        let value = json_value(cont, f, access(f));
        if i > 0 || leading_comma {
            quote!(__w.write_byte(b','); #value)
        } else {
            value
        }
    });
    quote!(#(#elems)*)
}

fn msgpack_value(cont: &Container, field: &Field, access: TokenStream) -> TokenStream {
    match field.attrs.with.get() {
        Some(path) => quote!(#path::encode_msgpack(#access, __w)?;),
        None => {
            let ty = field.ty;
            let p = cont.private();
            let encode = quote_spanned!(ty.span()=> <#ty as #p::Encode>::encode_msgpack);
            quote!(#encode(#access, __w)?;)
        }
    }
}

/// `field`'s value at `access` (a reference) written to the JSON writer `__w`.
pub fn json_value(cont: &Container, field: &Field, access: TokenStream) -> TokenStream {
    match field.attrs.with.get() {
        Some(path) => quote!(#path::encode_json(#access, __w)?;),
        None => {
            let ty = field.ty;
            let p = cont.private();
            let encode = quote_spanned!(ty.span()=> <#ty as #p::Encode>::encode_json);
            quote!(#encode(#access, __w)?;)
        }
    }
}
