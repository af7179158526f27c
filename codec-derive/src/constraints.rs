//! msgspec's constraints as field attributes: `#[codec(ge = 0)]`, `gt`,
//! `le`, `lt`, `multiple_of`, `min_length`, `max_length`, `pattern`.
//!
//! Read here from the field's `#[codec(..)]` keys (attr.rs hands the keys
//! over), checked against each other, and generated as a check after the
//! field decodes and as keywords on the field's schema. Whether a constraint
//! fits the field's type is left to the compiler: the generated check calls
//! a trait method the type implements only if the constraint applies to it.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::meta::ParseNestedMeta;
use syn::spanned::Spanned;

use crate::ast::{Container, Data, Field};
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

#[derive(Clone, Copy)]
enum Number {
    Int(i128),
    Float(f64),
}

impl Number {
    fn as_f64(self) -> f64 {
        match self {
            Number::Int(i) => i as f64,
            Number::Float(f) => f,
        }
    }

    fn tokens(self, p: &TokenStream) -> TokenStream {
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
    ge: Option<(Span, Number)>,
    gt: Option<(Span, Number)>,
    le: Option<(Span, Number)>,
    lt: Option<(Span, Number)>,
    multiple_of: Option<(Span, Number)>,
    min_length: Option<(Span, usize)>,
    max_length: Option<(Span, usize)>,
    pattern: Option<(Span, String)>,
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

    fn numeric(&self) -> Option<Span> {
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

fn ungroup(mut expr: &syn::Expr) -> &syn::Expr {
    while let syn::Expr::Group(group) = expr {
        expr = &group.expr;
    }
    expr
}

fn string<'e>(expr: &'e syn::Expr, key: &str) -> syn::Result<&'e syn::LitStr> {
    match ungroup(expr) {
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
    match ungroup(expr) {
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
    let (negative, lit) = match ungroup(expr) {
        syn::Expr::Lit(syn::ExprLit { lit, .. }) => (false, lit),
        syn::Expr::Unary(syn::ExprUnary {
            op: syn::UnOp::Neg(_),
            expr: inner,
            ..
        }) => match ungroup(inner) {
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

/// Constraints that contradict each other or cannot be checked.
///
/// ```ignore
/// #[codec(min_length = 5, max_length = 2)] name: String,
/// #[codec(ge = 10, lt = 10)] n: u32,
/// #[codec(skip, ge = 0)] n: u32,
/// ```
pub fn check(cx: &Ctxt, cont: &Container) {
    let fields: Vec<&Field> = match &cont.data {
        Data::Struct(_, fields) => fields.iter().collect(),
        Data::Enum(variants) => variants.iter().flat_map(|v| &v.fields).collect(),
    };
    for field in fields {
        let c = &field.attrs.constraints;
        if let (Some((_, min)), Some((span, max))) = (c.min_length, c.max_length) {
            if min > max {
                cx.syn_error(syn::Error::new(
                    span,
                    format!("`max_length = {max}` is below `min_length = {min}`: no value fits; swap or fix them"),
                ));
            }
        }
        for (lower, lower_key, lower_strict) in [(c.ge, "ge", false), (c.gt, "gt", true)] {
            for (upper, upper_key, upper_strict) in [(c.le, "le", false), (c.lt, "lt", true)] {
                if let (Some((_, lo)), Some((span, hi))) = (lower, upper) {
                    let empty = if lower_strict || upper_strict {
                        lo.as_f64() >= hi.as_f64()
                    } else {
                        lo.as_f64() > hi.as_f64()
                    };
                    if empty {
                        cx.syn_error(syn::Error::new(
                            span,
                            format!("`{lower_key} = {lo}` and `{upper_key} = {hi}` leave no value; fix the bounds"),
                        ));
                    }
                }
            }
        }
        if let Some(skip) = field.attrs.skip.span() {
            if !c.is_empty() {
                cx.syn_error(syn::Error::new(
                    skip,
                    "a `skip` field is never decoded, so its constraints would never be checked; remove them or `skip`",
                ));
            }
        }
    }
}

/// Decodes with `value`, then checks the field's constraints.
pub fn decode(cont: &Container, field: &Field, value: TokenStream) -> TokenStream {
    let c = &field.attrs.constraints;
    if c.is_empty() {
        return value;
    }
    let p = cont.private();
    let ty = field.ty;
    let bounds = bounds(c, &p);
    let mut checks = Vec::new();
    if c.numeric().is_some() {
        let check = quote_spanned!(ty.span()=> <#ty as #p::CheckNumber>::check_number);
        checks.push(quote!(#check(&__v, &__BOUNDS)));
    }
    if c.min_length.is_some() || c.max_length.is_some() {
        let check = quote_spanned!(ty.span()=> <#ty as #p::CheckLength>::check_length);
        checks.push(quote!(#check(&__v, &__BOUNDS)));
    }
    let mut pattern = TokenStream::new();
    if let Some((_, text)) = &c.pattern {
        pattern = quote! {
            static __PATTERN: #p::LazyLock<#p::Result<#p::constraints::Regex, #p::String>> =
                #p::LazyLock::new(|| #p::constraints::compile(#text));
        };
        let check = quote_spanned!(ty.span()=> <#ty as #p::CheckPattern>::check_pattern);
        checks.push(quote!(#check(&__v, &__BOUNDS, &__PATTERN)));
    }
    quote! {{
        let __start = __r.position();
        #value.and_then(|__v| {
            #pattern
            const __BOUNDS: #p::Bounds = #bounds;
            #(
                #checks.map_err(|__e| #p::Located::located(&*__r, __start, __e))?;
            )*
            #p::Ok(__v)
        })
    }}
}

/// The field's schema with its constraints' keywords.
pub fn schema(cont: &Container, field: &Field, schema: TokenStream) -> TokenStream {
    let c = &field.attrs.constraints;
    if c.is_empty() {
        return schema;
    }
    let p = cont.private();
    let bounds = bounds(c, &p);
    quote!(#p::constraints::schema(#schema, &#bounds))
}

fn bounds(c: &Constraints, p: &TokenStream) -> TokenStream {
    let num = |n: Option<(Span, Number)>| match n {
        Some((_, n)) => {
            let n = n.tokens(p);
            quote!(#p::Some(#n))
        }
        None => quote!(#p::None),
    };
    let len = |n: Option<(Span, usize)>| match n {
        Some((_, n)) => quote!(#p::Some(#n)),
        None => quote!(#p::None),
    };
    let (ge, gt, le, lt, multiple_of) = (
        num(c.ge),
        num(c.gt),
        num(c.le),
        num(c.lt),
        num(c.multiple_of),
    );
    let (min_length, max_length) = (len(c.min_length), len(c.max_length));
    let pattern = match &c.pattern {
        Some((_, text)) => quote!(#p::Some(#text)),
        None => quote!(#p::None),
    };
    quote! {
        #p::Bounds {
            ge: #ge,
            gt: #gt,
            le: #le,
            lt: #lt,
            multiple_of: #multiple_of,
            min_length: #min_length,
            max_length: #max_length,
            pattern: #pattern,
        }
    }
}
