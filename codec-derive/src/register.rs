//! The registration of a type for `codec::schema::DriftCheck::all`: every
//! type generic over lifetimes only (or not at all) with a `#[codec(name = "...")]` or `#[codec(version = N)]`
//! submits itself to the runtime's `inventory` collection.

use proc_macro2::TokenStream;
use quote::quote;

use crate::ast::Container;

pub fn registration(cont: &Container) -> TokenStream {
    let attrs = &cont.attrs;
    let named = attrs.name.get().is_some() || attrs.version.get().is_some();
    // A generic type has no one schema to check: users list its
    // instantiations with `DriftCheck::add`. A type generic over lifetimes
    // only (a borrowing twin of an owned type) has one, whatever they are:
    // it registers as `'static`, so that the check sees both twins.
    let lifetimes_only = cont
        .generics
        .params
        .iter()
        .all(|p| matches!(p, syn::GenericParam::Lifetime(_)));
    if !named || !lifetimes_only {
        return TokenStream::new();
    }
    let krate = &cont.krate;
    let ident = cont.ident;
    let statics = cont.generics.params.iter().map(|_| quote!('static));
    let ty = if cont.generics.params.is_empty() {
        quote!(#ident)
    } else {
        quote!(#ident<#(#statics),*>)
    };
    quote! {
        const _: () = {
            #krate::__private::inventory::submit! {
                #krate::__private::schema::Registered::new::<#ty>(::core::module_path!())
            }
        };
    }
}
