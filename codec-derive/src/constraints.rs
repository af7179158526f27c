//! msgspec's constraints generated: a check after the field decodes, and
//! keywords on the field's schema. They are read in `attr::constraints` and
//! checked against each other in `check.rs`. Whether a constraint fits the
//! field's type is left to the compiler: the generated check calls a trait
//! method the type implements only if the constraint applies to it.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use crate::ast::{Container, Field};
use crate::attr::constraints::{Constraints, Number};

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
