//! Puts the pieces together: parse, check, generate, and wrap in a hygienic impl.

use proc_macro2::TokenStream;
use quote::quote;

use crate::ast::{Container, Data, EnumRepr, Style, TagValue};
use crate::ctxt::Ctxt;
use crate::{bound, check, decode, encode};

pub fn derive(input: &syn::DeriveInput) -> syn::Result<TokenStream> {
    let cx = Ctxt::new();
    let Some(cont) = Container::from_ast(&cx, input) else {
        return Err(cx.check().expect_err("from_ast failed without an error"));
    };
    check::check(&cx, &cont);
    if let Err(errors) = cx.check() {
        return Ok(with_stub(&cont, errors));
    }
    let items = match &cont.data {
        Data::Struct(style, fields) => {
            let mut items = encode::struct_items(&cont, *style, fields);
            items.extend(decode::struct_items(&cont, *style, fields));
            items.extend(struct_consts(&cont, *style, fields));
            items
        }
        Data::Enum(variants) => {
            let repr = cont.enum_repr().expect("an enum has a representation");
            let mut items = encode::enum_items(&cont, variants, repr);
            items.extend(decode::enum_items(&cont, variants, repr));
            items.extend(enum_consts(&cont, variants, repr));
            items
        }
    };
    Ok(wrap(&cont, items))
}

fn wrap(cont: &Container, items: TokenStream) -> TokenStream {
    let krate = &cont.krate;
    let ident = cont.ident;
    let generics = bound::with_codec_bounds(cont);
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    quote! {
        #[doc(hidden)]
        #[allow(
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
            impl #impl_generics #krate::__private::Codec for #ident #ty_generics #where_clause {
                #items
            }
        };
    }
}

/// The derive's errors, plus an impl that compiles, so uses of the type don't
/// add a cascade of "the trait `Codec` is not implemented" errors.
fn with_stub(cont: &Container, errors: syn::Error) -> TokenStream {
    let krate = &cont.krate;
    let p = quote!(#krate::__private);
    let stub = wrap(
        cont,
        quote! {
            const KIND: #p::WireKind = #p::WireKind::ANY;
            fn encode_msgpack(&self, _: &mut #p::MsgpackWriter) -> #p::Result<(), #p::EncodeError> {
                unimplemented!()
            }
            fn decode_msgpack(_: &mut #p::MsgpackReader<'_>) -> #p::Result<Self, #p::DecodeError> {
                unimplemented!()
            }
            fn encode_json(&self, _: &mut #p::JsonWriter) -> #p::Result<(), #p::EncodeError> {
                unimplemented!()
            }
            fn decode_json(_: &mut #p::JsonReader<'_>) -> #p::Result<Self, #p::DecodeError> {
                unimplemented!()
            }
        },
    );
    let errors = errors.into_compile_error();
    quote!(#errors #stub)
}

fn struct_consts(cont: &Container, style: Style, fields: &[crate::ast::Field]) -> TokenStream {
    let krate = &cont.krate;
    let p = quote!(#krate::__private);
    match style {
        Style::Named if !cont.attrs.array_like.is_set() => quote! {
            const KIND: #p::WireKind = #p::WireKind::MAP;
            const __MAP_BODY: bool = true;
        },
        Style::Named | Style::Tuple => quote!(const KIND: #p::WireKind = #p::WireKind::ARRAY;),
        Style::Unit => quote!(const KIND: #p::WireKind = #p::WireKind::NIL;),
        Style::Newtype if fields[0].attrs.with.is_set() => {
            quote!(const KIND: #p::WireKind = #p::WireKind::ANY;)
        }
        Style::Newtype => newtype_delegation(cont, &fields[0]),
    }
}

/// A newtype is its inner value on the wire: it inherits the inner type's
/// kind, merging behaviour and use as a JSON object key.
fn newtype_delegation(cont: &Container, field: &crate::ast::Field) -> TokenStream {
    let krate = &cont.krate;
    let p = quote!(#krate::__private);
    let ty = field.ty;
    quote! {
        const KIND: #p::WireKind = <#ty as #p::Codec>::KIND;
        const __MAP_BODY: bool = <#ty as #p::Codec>::__MAP_BODY;

        fn __map_body_len(&self) -> usize {
            <#ty as #p::Codec>::__map_body_len(&self.0)
        }

        fn __encode_msgpack_body(&self, __w: &mut #p::MsgpackWriter) -> #p::Result<(), #p::EncodeError> {
            <#ty as #p::Codec>::__encode_msgpack_body(&self.0, __w)
        }

        fn __decode_msgpack_body(
            __r: &mut #p::MsgpackReader<'_>,
            __len: usize,
            __tag: &[u8],
        ) -> #p::Result<Self, #p::DecodeError> {
            <#ty as #p::Codec>::__decode_msgpack_body(__r, __len, __tag).map(Self)
        }

        fn __encode_json_body(&self, __w: &mut #p::JsonWriter) -> #p::Result<(), #p::EncodeError> {
            <#ty as #p::Codec>::__encode_json_body(&self.0, __w)
        }

        fn __decode_json_body(
            __r: &mut #p::JsonReader<'_>,
            __first: bool,
            __tag: &str,
        ) -> #p::Result<Self, #p::DecodeError> {
            <#ty as #p::Codec>::__decode_json_body(__r, __first, __tag).map(Self)
        }

        fn __encode_json_key(&self, __w: &mut #p::JsonWriter) -> #p::Result<(), #p::EncodeError> {
            <#ty as #p::Codec>::__encode_json_key(&self.0, __w)
        }

        fn __decode_json_key(__r: &mut #p::JsonReader<'_>, __key: &str) -> #p::Result<Self, #p::DecodeError> {
            <#ty as #p::Codec>::__decode_json_key(__r, __key).map(Self)
        }
    }
}

fn enum_consts(cont: &Container, variants: &[crate::ast::Variant], repr: EnumRepr) -> TokenStream {
    let krate = &cont.krate;
    let p = quote!(#krate::__private);
    let kind = match repr {
        EnumRepr::Unit if matches!(variants[0].tag, TagValue::Int(_)) => quote!(INT),
        EnumRepr::Unit => quote!(STR),
        EnumRepr::TaggedMap => quote!(MAP),
        EnumRepr::TaggedArray => quote!(ARRAY),
    };
    quote!(const KIND: #p::WireKind = #p::WireKind::#kind;)
}
