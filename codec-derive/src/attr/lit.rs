//! Values of attribute keys, read from their literals: strings, paths,
//! integers and flags, with the error each wrong spelling gets. Knows
//! nothing of what the keys mean.

use syn::meta::ParseNestedMeta;

pub(super) fn path_key(path: &syn::Path) -> String {
    path.get_ident()
        .map(ToString::to_string)
        .unwrap_or_else(|| quote::quote!(#path).to_string().replace(' ', ""))
}

pub(super) fn parse_lit_str(meta: &ParseNestedMeta) -> syn::Result<syn::LitStr> {
    let key = path_key(&meta.path);
    let expr: syn::Expr = meta
        .value()
        .map_err(|_| meta.error(format!("expected a value: #[codec({key} = \"...\")]")))?
        .parse()?;
    match ungroup(expr) {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(s),
            ..
        }) => Ok(s),
        other => Err(syn::Error::new_spanned(
            other,
            format!("expected a string literal: #[codec({key} = \"...\")]"),
        )),
    }
}

pub(super) fn parse_string(meta: &ParseNestedMeta) -> syn::Result<String> {
    parse_lit_str(meta).map(|s| s.value())
}

pub(super) fn parse_lit_path(meta: &ParseNestedMeta) -> syn::Result<syn::Path> {
    let lit = parse_lit_str(meta)?;
    lit.parse::<syn::Path>()
        .map_err(|_| syn::Error::new(lit.span(), "expected a path, like \"my_crate::module\""))
}

/// `"path::to::function"`.
pub(super) fn parse_fn_path(meta: &ParseNestedMeta) -> syn::Result<syn::ExprPath> {
    let lit = parse_lit_str(meta)?;
    lit.parse::<syn::ExprPath>().map_err(|_| {
        syn::Error::new(
            lit.span(),
            "expected the path of a function, like \"Vec::is_empty\"",
        )
    })
}

/// `"T: Trait, U: Other"`: where predicates.
pub(super) fn parse_bound(meta: &ParseNestedMeta) -> syn::Result<Vec<syn::WherePredicate>> {
    let lit = parse_lit_str(meta)?;
    let parser =
        syn::punctuated::Punctuated::<syn::WherePredicate, syn::Token![,]>::parse_terminated;
    syn::parse::Parser::parse_str(parser, &lit.value())
        .map(|p| p.into_iter().collect())
        .map_err(|e| {
            syn::Error::new(
                lit.span(),
                format!("expected where predicates, like \"T: codec::Codec\": {e}"),
            )
        })
}

pub(super) fn parse_int(meta: &ParseNestedMeta) -> syn::Result<i64> {
    let expr: syn::Expr = meta
        .value()
        .map_err(|_| meta.error("expected an integer tag: #[codec(tag = 1)]"))?
        .parse()?;
    let expr = ungroup(expr);
    let (negative, lit) = match &expr {
        syn::Expr::Lit(syn::ExprLit { lit, .. }) => (false, lit),
        syn::Expr::Unary(syn::ExprUnary {
            op: syn::UnOp::Neg(_),
            expr: inner,
            ..
        }) => match ungroup_ref(inner) {
            syn::Expr::Lit(syn::ExprLit { lit, .. }) => (true, lit),
            _ => {
                return Err(syn::Error::new_spanned(
                    expr,
                    "expected an integer tag: #[codec(tag = 1)]",
                ))
            }
        },
        _ => {
            return Err(syn::Error::new_spanned(
                expr,
                "expected an integer tag: #[codec(tag = 1)]",
            ))
        }
    };
    match lit {
        syn::Lit::Int(i) => {
            let v: i64 = i.base10_parse()?;
            Ok(if negative { -v } else { v })
        }
        syn::Lit::Str(s) => Err(syn::Error::new(
            s.span(),
            "a variant's `tag` is an integer; for a string tag write #[codec(rename = \"...\")]",
        )),
        _ => Err(syn::Error::new_spanned(
            lit,
            "expected an integer tag: #[codec(tag = 1)]",
        )),
    }
}

pub(super) fn parse_version(meta: &ParseNestedMeta) -> syn::Result<u32> {
    let expr: syn::Expr = meta
        .value()
        .map_err(|_| meta.error("expected a version number: #[codec(version = 2)]"))?
        .parse()?;
    match ungroup_ref(&expr) {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => i.base10_parse(),
        _ => Err(syn::Error::new_spanned(
            expr,
            "expected a version number: #[codec(version = 2)]",
        )),
    }
}

/// The expression inside the invisible groups a `macro_rules!` fragment
/// (`$v:literal`, `$v:expr`) leaves around a value.
fn ungroup(mut expr: syn::Expr) -> syn::Expr {
    while let syn::Expr::Group(group) = expr {
        expr = *group.expr;
    }
    expr
}

pub(super) fn ungroup_ref(mut expr: &syn::Expr) -> &syn::Expr {
    while let syn::Expr::Group(group) = expr {
        expr = &group.expr;
    }
    expr
}

/// A key that takes no value, like `#[codec(skip)]`.
pub(super) fn flag(meta: &ParseNestedMeta) -> syn::Result<()> {
    if meta.input.peek(syn::Token![=]) || meta.input.peek(syn::token::Paren) {
        let key = path_key(&meta.path);
        let _ = meta.value().and_then(|v| v.parse::<syn::Expr>());
        return Err(syn::Error::new_spanned(
            &meta.path,
            format!("`{key}` takes no value: write #[codec({key})], or leave it out"),
        ));
    }
    Ok(())
}
