//! The registration of a type for `codec::schema::DriftCheck::all`: every
//! non-generic type with a `#[codec(name = "...")]` or `#[codec(version = N)]`
//! submits itself to the runtime's `inventory` collection.

use proc_macro2::TokenStream;
use quote::quote;

use crate::ast::Container;

pub fn registration(cont: &Container) -> TokenStream {
    let attrs = &cont.attrs;
    let named = attrs.name.get().is_some() || attrs.version.get().is_some();
    // A generic type has no one schema to check: users list its
    // instantiations with `DriftCheck::add`.
    if !named || !cont.generics.params.is_empty() {
        return TokenStream::new();
    }
    let krate = &cont.krate;
    let ident = cont.ident;
    quote! {
        const _: () = {
            #krate::__private::inventory::submit! {
                #krate::__private::schema::Registered::new::<#ident>(::core::module_path!())
            }
        };
    }
}
