//! Trait bounds for generic types: each type parameter that a serialized field
//! mentions must implement `Codec`; parameters only in skipped fields, fields
//! with `with`, or `PhantomData` need nothing.

use std::collections::BTreeSet;

use syn::visit::Visit;

use crate::ast::{Container, Data, Field};

pub fn with_codec_bounds(cont: &Container) -> syn::Generics {
    let krate = &cont.krate;
    let params: BTreeSet<syn::Ident> = cont
        .generics
        .type_params()
        .map(|p| p.ident.clone())
        .collect();
    let mut used = BTreeSet::new();
    let fields: Box<dyn Iterator<Item = &Field>> = match &cont.data {
        Data::Struct(_, fields) => Box::new(fields.iter()),
        Data::Enum(variants) => Box::new(variants.iter().flat_map(|v| v.fields.iter())),
    };
    for field in fields {
        if field.is_skipped() || field.attrs.with.is_set() {
            continue;
        }
        let mut finder = ParamFinder {
            params: &params,
            used: &mut used,
        };
        finder.visit_type(field.ty);
    }
    let mut generics = cont.generics.clone();
    let where_clause = generics.make_where_clause();
    for param in &used {
        where_clause
            .predicates
            .push(syn::parse_quote!(#param: #krate::__private::Codec));
    }
    // Skipped fields are filled with their `Default`.
    generics
}

struct ParamFinder<'p> {
    params: &'p BTreeSet<syn::Ident>,
    used: &'p mut BTreeSet<syn::Ident>,
}

impl<'ast> Visit<'ast> for ParamFinder<'_> {
    fn visit_type_path(&mut self, ty: &'ast syn::TypePath) {
        if ty.qself.is_none() {
            if let Some(last) = ty.path.segments.last() {
                if last.ident == "PhantomData" {
                    return;
                }
            }
            if let Some(first) = ty.path.segments.first() {
                if self.params.contains(&first.ident) {
                    self.used.insert(first.ident.clone());
                }
            }
        }
        syn::visit::visit_type_path(self, ty);
    }

    fn visit_macro(&mut self, _: &'ast syn::Macro) {}
}
