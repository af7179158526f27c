//! Trait bounds for generic types: each type parameter that a serialized field
//! mentions must implement the trait of the impl (`Encode`, `Decode<'__de>`
//! or `Schema`, as serde bounds each impl by its own trait), so that
//! `Wrapper<&'a str>` decodes borrowed; parameters only in skipped fields,
//! fields with `with`, or `PhantomData` need nothing. A field of an associated type
//! (`I::Item`, `<I as Iterator>::Item`) bounds that type, not the parameter.

use quote::ToTokens;
use syn::visit::Visit;

use crate::ast::{Container, Data, Field};

/// The container's generics, each encoded type parameter bounded by
/// `bound` (`codec::__private::Encode`...), unless `#[codec(bound = ..)]`
/// says the bounds.
pub fn with_bounds(cont: &Container, bound: &proc_macro2::TokenStream) -> syn::Generics {
    let mut generics = cont.generics.clone();
    let where_clause = generics.make_where_clause();
    if let Some(bound) = cont.attrs.bound.get() {
        // `#[codec(bound = "...")]` replaces the inferred bounds.
        where_clause.predicates.extend(bound.iter().cloned());
        return generics;
    }
    for ty in encoded_generic_types(cont) {
        where_clause.predicates.push(syn::parse_quote!(#ty: #bound));
    }
    // Skipped fields are filled with their `Default`.
    generics
}

/// The types made of the parameters that the encoding depends on: each type
/// parameter a serialized field mentions, in declaration order, then each
/// associated type of a parameter a field holds, in order of appearance.
pub fn encoded_generic_types(cont: &Container) -> Vec<syn::Type> {
    let params: Vec<&syn::Ident> = cont.generics.type_params().map(|p| &p.ident).collect();
    let mut finder = BoundFinder {
        params: &params,
        found: Vec::new(),
    };
    let fields: Box<dyn Iterator<Item = &Field>> = match &cont.data {
        Data::Struct(_, fields) => Box::new(fields.iter()),
        Data::Enum(variants) => Box::new(variants.iter().flat_map(|v| v.fields.iter())),
    };
    for field in fields {
        if field.is_skipped() || field.attrs.with.is_set() {
            continue;
        }
        finder.visit_type(field.ty);
    }
    let found = finder.found;
    let is_param = |ty: &syn::Type| {
        params
            .iter()
            .any(|p| matches!(ty, syn::Type::Path(t) if t.path.is_ident(*p)))
    };
    let mut types: Vec<syn::Type> = params
        .iter()
        .filter(|p| {
            found
                .iter()
                .any(|ty| matches!(ty, syn::Type::Path(t) if t.path.is_ident(**p)))
        })
        .map(|p| syn::parse_quote!(#p))
        .collect();
    types.extend(found.into_iter().filter(|ty| !is_param(ty)));
    types
}

/// Collects the types to bound, each once, in order of appearance.
struct BoundFinder<'p> {
    params: &'p [&'p syn::Ident],
    found: Vec<syn::Type>,
}

impl BoundFinder<'_> {
    fn is_param(&self, ident: &syn::Ident) -> bool {
        self.params.contains(&ident)
    }

    fn mentions_param(&self, ty: &syn::Type) -> bool {
        let mut finder = BoundFinder {
            params: self.params,
            found: Vec::new(),
        };
        finder.visit_type(ty);
        !finder.found.is_empty()
    }

    fn bound(&mut self, ty: syn::Type) {
        let tokens = ty.to_token_stream().to_string();
        if !self
            .found
            .iter()
            .any(|t| t.to_token_stream().to_string() == tokens)
        {
            self.found.push(ty);
        }
    }
}

impl<'ast> Visit<'ast> for BoundFinder<'_> {
    fn visit_type_path(&mut self, ty: &'ast syn::TypePath) {
        if let Some(qself) = &ty.qself {
            // `<I as Iterator>::Item`: the projection is what the field holds.
            if self.mentions_param(&qself.ty) {
                self.bound(syn::Type::Path(ty.clone()));
            }
            return;
        }
        let segments = &ty.path.segments;
        if let Some(last) = segments.last() {
            if last.ident == "PhantomData" {
                return;
            }
        }
        if ty.path.leading_colon.is_none() {
            if let Some(first) = segments.first() {
                if self.is_param(&first.ident) {
                    self.bound(syn::Type::Path(ty.clone()));
                    if segments.len() > 1 {
                        return; // `I::Item`: bounded as a whole
                    }
                }
            }
        }
        syn::visit::visit_type_path(self, ty);
    }

    fn visit_macro(&mut self, _: &'ast syn::Macro) {}
}
