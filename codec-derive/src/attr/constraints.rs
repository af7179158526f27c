//! msgspec's constraints as field attributes: `#[codec(ge = 0)]`, `gt`,
//! `le`, `lt`, `multiple_of`, `min_length`, `max_length`, `pattern`.
//!
//! Read here from the field's `#[codec(..)]` keys (the field's reader hands
//! them over). `check.rs` checks them against each other, and
//! `crate::constraints` generates them as a check after the field decodes
//! and as keywords on the field's schema.

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::meta::ParseNestedMeta;
use syn::spanned::Spanned;

use super::lit::ungroup_ref;
use crate::ctxt::Ctxt;

/// The attribute keys of constraints.
pub const KEYS: &[&str] = &[
    "ge",
    "gt",
    "le",
    "lt",
    "multiple_of",
    "min_length",
    "max_length",
    "pattern",
];

/// A field's keys, with the constraints' keys, for "did you mean".
pub fn with_field_keys(keys: &[&'static str]) -> Vec<&'static str> {
    keys.iter().chain(KEYS).copied().collect()
}

/// A bound's value, as written.
#[derive(Clone, Copy)]
pub enum Number {
    Int(i128),
    Float(f64),
}

impl Number {
    pub fn as_f64(self) -> f64 {
        match self {
            Number::Int(i) => i as f64,
            Number::Float(f) => f,
        }
    }

    /// The bound as the runtime's `Bound`.
    pub fn tokens(self, p: &TokenStream) -> TokenStream {
        match self {
            Number::Int(i) => quote!(#p::Bound::Int(#i)),
            Number::Float(f) => quote!(#p::Bound::Float(#f)),
        }
    }
}

impl std::fmt::Display for Number {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Number::Int(i) => write!(f, "{i}"),
            Number::Float(v) => write!(f, "{v:?}"),
        }
    }
}

/// The constraints of one field, each with the span of its key.
#[derive(Default)]
pub struct Constraints {
    pub ge: Option<(Span, Number)>,
    pub gt: Option<(Span, Number)>,
    pub le: Option<(Span, Number)>,
    pub lt: Option<(Span, Number)>,
    pub multiple_of: Option<(Span, Number)>,
    pub min_length: Option<(Span, usize)>,
    pub max_length: Option<(Span, usize)>,
    pub pattern: Option<(Span, String)>,
}

impl Constraints {
    /// Reads the value of the constraint `key` (one of [`KEYS`]).
    pub fn parse(&mut self, cx: &Ctxt, meta: &ParseNestedMeta, key: &str) -> syn::Result<()> {
        let span = meta.path.span();
        let expr: syn::Expr = meta
            .value()
            .map_err(|_| meta.error(format!("expected a value: #[codec({key} = ...)]")))?
            .parse()?;
        let duplicate =
            || syn::Error::new(span, format!("duplicate codec attribute `{key}`; keep one"));
        match key {
            "pattern" => {
                let lit = string(&expr, key)?;
                if let Err(e) = regex_syntax::Parser::new().parse(&lit.value()) {
                    return Err(syn::Error::new(
                        lit.span(),
                        format!(
                            "invalid regular expression in `pattern`: {}",
                            first_line(&e)
                        ),
                    ));
                }
                set(cx, &mut self.pattern, (span, lit.value()), duplicate)
            }
            "min_length" | "max_length" => {
                let n = length(&expr, key)?;
                let slot = if key == "min_length" {
                    &mut self.min_length
                } else {
                    &mut self.max_length
                };
                set(cx, slot, (span, n), duplicate)
            }
            _ => {
                let n = number(&expr, key)?;
                if key == "multiple_of" && n.as_f64() <= 0.0 {
                    return Err(syn::Error::new_spanned(
                        &expr,
                        "`multiple_of` must be greater than 0",
                    ));
                }
                let slot = match key {
                    "ge" => &mut self.ge,
                    "gt" => &mut self.gt,
                    "le" => &mut self.le,
                    "lt" => &mut self.lt,
                    _ => &mut self.multiple_of,
                };
                set(cx, slot, (span, n), duplicate)
            }
        }
        Ok(())
    }

    pub fn is_empty(&self) -> bool {
        self.numeric().is_none()
            && self.min_length.is_none()
            && self.max_length.is_none()
            && self.pattern.is_none()
    }

    /// The span of the first numeric bound, if any.
    pub fn numeric(&self) -> Option<Span> {
        [self.ge, self.gt, self.le, self.lt, self.multiple_of]
            .into_iter()
            .flatten()
            .map(|(s, _)| s)
            .next()
    }
}

fn set<T>(cx: &Ctxt, slot: &mut Option<T>, value: T, duplicate: impl Fn() -> syn::Error) {
    if slot.is_some() {
        cx.syn_error(duplicate());
    } else {
        *slot = Some(value);
    }
}

fn first_line(e: &regex_syntax::Error) -> String {
    // regex-syntax draws the pattern with a caret; keep its verdict only.
    let text = e.to_string();
    text.lines()
        .rev()
        .find(|l| l.starts_with("error: "))
        .map_or(text.clone(), |l| l.trim_start_matches("error: ").to_owned())
}

fn string<'e>(expr: &'e syn::Expr, key: &str) -> syn::Result<&'e syn::LitStr> {
    match ungroup_ref(expr) {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(s),
            ..
        }) => Ok(s),
        other => Err(syn::Error::new_spanned(
            other,
            format!("expected a string literal: #[codec({key} = \"^[a-z]+$\")]"),
        )),
    }
}

fn length(expr: &syn::Expr, key: &str) -> syn::Result<usize> {
    match ungroup_ref(expr) {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => i.base10_parse(),
        other => Err(syn::Error::new_spanned(
            other,
            format!("expected a length, a non-negative integer: #[codec({key} = 1)]"),
        )),
    }
}

fn number(expr: &syn::Expr, key: &str) -> syn::Result<Number> {
    let bad = |e: &syn::Expr| {
        syn::Error::new_spanned(
            e,
            format!("expected a number literal: #[codec({key} = 0)] or #[codec({key} = 0.5)]"),
        )
    };
    let (negative, lit) = match ungroup_ref(expr) {
        syn::Expr::Lit(syn::ExprLit { lit, .. }) => (false, lit),
        syn::Expr::Unary(syn::ExprUnary {
            op: syn::UnOp::Neg(_),
            expr: inner,
            ..
        }) => match ungroup_ref(inner) {
            syn::Expr::Lit(syn::ExprLit { lit, .. }) => (true, lit),
            other => return Err(bad(other)),
        },
        other => return Err(bad(other)),
    };
    let n = match lit {
        syn::Lit::Int(i) => Number::Int(i.base10_parse()?),
        syn::Lit::Float(f) => Number::Float(f.base10_parse()?),
        _ => return Err(bad(expr)),
    };
    Ok(match (negative, n) {
        (false, n) => n,
        (true, Number::Int(i)) => Number::Int(-i),
        (true, Number::Float(f)) => Number::Float(-f),
    })
}
