//! The value a field takes when it is missing: one expression for the
//! decoder, `omit_defaults` and the schema's `"default"`.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use crate::ast::{Container, Field};
use crate::attr;

/// The default of `field`: its own (`default`, `default = "path"`), else
/// the field of `container`, an expression of the type's `Default` value,
/// when the type has `#[codec(default)]`. `None` for a field without one.
pub fn value(cont: &Container, field: &Field, container: &TokenStream) -> Option<TokenStream> {
    let p = cont.private();
    match field.attrs.default.get() {
        Some(attr::Default::Default) => {
            let ty = field.ty;
            Some(quote_spanned!(ty.span()=> <#ty as #p::DefaultForMissing>::default_for_missing()))
        }
        Some(attr::Default::Path(path)) => Some(quote!(#path())),
        None if cont.attrs.default.is_set() => {
            let member = &field.member;
            Some(quote!(#container.#member))
        }
        None => None,
    }
}
