//! `#[codec(serde)]`: serde's `Serialize` and `Deserialize`, delegating to
//! codec's encoding (`codec::serde_traits`), so the type keeps one wire shape
//! through any serde format.

use proc_macro2::TokenStream;
use quote::quote;

use crate::ast::Container;

/// The impls, when the type asks for them; nothing otherwise. Without the
/// `serde` feature, `check` has already refused the attribute.
pub fn impls(cont: &Container) -> TokenStream {
    if !cont.attrs.serde.is_set() || !cfg!(feature = "serde") {
        return TokenStream::new();
    }
    let p = cont.private();
    let ident = cont.ident;
    let (impl_generics, ty_generics, where_clause) = cont.generics.split_for_impl();
    let mut predicates: Vec<TokenStream> = where_clause
        .map(|w| w.predicates.iter().map(|p| quote!(#p)).collect())
        .unwrap_or_default();
    predicates.push(quote!(#ident #ty_generics: #p::Codec));

    let mut de_generics = cont.generics.clone();
    de_generics.params.insert(0, syn::parse_quote!('__de));
    let (de_impl_generics, _, _) = de_generics.split_for_impl();
    quote! {
        #[doc(hidden)]
        #[allow(unused_qualifications, clippy::all)]
        const _: () = {
            #[automatically_derived]
            impl #impl_generics #p::serde::Serialize for #ident #ty_generics
            where #(#predicates,)*
            {
                fn serialize<__S>(&self, __serializer: __S) -> #p::Result<__S::Ok, __S::Error>
                where
                    __S: #p::serde::Serializer,
                {
                    #p::serde_traits::serialize(self, __serializer)
                }
            }

            #[automatically_derived]
            impl #de_impl_generics #p::serde::Deserialize<'__de> for #ident #ty_generics
            where #(#predicates,)*
            {
                fn deserialize<__D>(__deserializer: __D) -> #p::Result<Self, __D::Error>
                where
                    __D: #p::serde::Deserializer<'__de>,
                {
                    #p::serde_traits::deserialize(__deserializer)
                }
            }
        };
    }
}
