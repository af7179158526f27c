//! `#[derive(Codec)]`: the derive of the [codec](https://docs.rs/codec) crate.
//!
//! The input is parsed into one model (`ast`), checked (`check`), and
//! turned into the MessagePack and JSON codecs (`encode`, `decode`).
//! Every error of one derive is reported together, with a stub impl so the
//! user sees the derive's errors and not a cascade of missing-trait errors.

extern crate proc_macro;

mod ast;
mod attr;
mod bound;
mod case;
mod check;
mod constraints;
mod ctxt;
mod decode;
mod default;
mod encode;
mod encoded;
mod expand;
mod link;
mod memoize;
mod register;
mod schema;
mod serde_impls;
#[cfg(test)]
mod ui_mirror;

use proc_macro::TokenStream;
use syn::parse_macro_input;

/// Derives `codec::Codec`: a tagged MessagePack and JSON encoding.
///
/// See the `codec` crate's documentation for the `#[codec(..)]` attributes.
#[proc_macro_derive(Codec, attributes(codec, serde))]
pub fn derive_codec(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as syn::DeriveInput);
    expand::derive(&input)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// Memoizes a function in a `codec::Cache`: `#[codec::memoize(cache = CACHE,
/// version = 1, ignore(client))]`.
///
/// See `codec::memoize` (the `codec` crate re-exports it with the `store`
/// feature) for the options and the key.
#[proc_macro_attribute]
pub fn memoize(args: TokenStream, item: TokenStream) -> TokenStream {
    memoize::expand(args.into(), item.into()).into()
}

/// Names the library of the package being compiled when the crate is one of
/// its integration tests, so that the library's types register themselves
/// in the test. Used by `codec::drift_check!` and `codec::python_module!`;
/// not meant to be called.
#[doc(hidden)]
#[proc_macro]
pub fn __link_package_library(input: TokenStream) -> TokenStream {
    let _ = input;
    link::expand().into()
}
