//! `#[codec::memoize(cache = .., version = N, ignore(..) | key = .., ttl = ..)]`:
//! a function whose results are kept in a `codec::Cache` (for `ttl`
//! long), keyed by the function's name, its version and the content hash
//! of its arguments (or of the `key` expression).
//!
//! The function keeps its signature; its body becomes the computation that
//! `Cache::get_or_try_insert_with` (or `_async`) runs on a miss:
//!
//! ```ignore
//! fn embed(model: &Model, text: &str) -> Result<Vec<f32>, E> {
//!     let __cache: &::codec::Cache = &(CACHE);
//!     let __key = key(concat!(module_path!(), "::embed"), 1, ContentHash::new().part(model).part(text));
//!     let __options = options::<Duration>(__cache, None); // or Some(the ttl)
//!     call::<Result<Vec<f32>, E>>(__cache, __key, __options, move || -> Result<Vec<f32>, E> { /* the body */ })
//! }
//! ```

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::meta::ParseNestedMeta;
use syn::spanned::Spanned;

use crate::ctxt::Ctxt;

const KEYS: &[&str] = &[
    "cache", "version", "name", "ignore", "key", "ttl", "state", "crate",
];

/// The options of one `#[memoize(..)]`.
#[derive(Default)]
struct Options {
    cache: Option<syn::Expr>,
    version: Option<u64>,
    name: Option<syn::LitStr>,
    ignore: Vec<syn::Ident>,
    /// What the key hashes instead of the arguments (`key = (&chunk.text, &model.name)`).
    key: Option<syn::Expr>,
    /// How long entries live: a duration read from text at compile time
    /// (`ttl = "1h"`), or an expression giving a `Duration`.
    ttl: Option<Ttl>,
    /// Where generated code finds the runtime (`crate = "kodec"`).
    krate: Option<syn::Path>,
    /// The state check (`state = |prev| ..`), in the body's scope: it may
    /// read the arguments.
    state: Option<syn::Expr>,
}

/// The expansion of `#[memoize(args)] item`: the memoized function, or the
/// errors next to the function unchanged (so its callers see no cascade).
pub fn expand(args: TokenStream, item: TokenStream) -> TokenStream {
    let func: syn::ItemFn = match syn::parse2(item.clone()) {
        Ok(func) => func,
        Err(_) => {
            let e = syn::Error::new(
                Span::call_site(),
                "#[codec::memoize] goes on a function: `fn name(args) -> Result<T, E> { .. }`",
            );
            let e = e.into_compile_error();
            return quote!(#item #e);
        }
    };
    let cx = Ctxt::new();
    let options = parse_options(&cx, args);
    check_signature(&cx, &func.sig);
    check_ignored(&cx, &func.sig, &options.ignore);
    if let (Some(key), Some(first)) = (&options.key, options.ignore.first()) {
        cx.error_spanned_by(
            first,
            format!(
                "`key = {}` says what the key hashes, so no argument is left out of it: \
                 remove ignore(..)",
                key.to_token_stream()
            ),
        );
    }
    let Some(cache) = &options.cache else {
        cx.error_spanned_by(
            &func.sig.ident,
            "#[codec::memoize] needs the cache to keep results in: #[codec::memoize(cache = CACHE)], \
             with e.g. `static CACHE: LazyLock<codec::Cache>`",
        );
        return with_errors(cx, &func);
    };
    match cx.check() {
        Ok(()) => generate(&func, cache, &options),
        Err(e) => {
            let e = e.into_compile_error();
            quote!(#func #e)
        }
    }
}

fn with_errors(cx: Ctxt, func: &syn::ItemFn) -> TokenStream {
    let e = cx.check().err().map(syn::Error::into_compile_error);
    quote!(#func #e)
}

fn parse_options(cx: &Ctxt, args: TokenStream) -> Options {
    let mut options = Options::default();
    let parser = syn::meta::parser(|meta| {
        let key = meta
            .path
            .get_ident()
            .map(ToString::to_string)
            .unwrap_or_default();
        match key.as_str() {
            "cache" => options.cache = Some(meta.value()?.parse()?),
            "version" => {
                let lit: syn::LitInt = meta.value()?.parse().map_err(|e| {
                    syn::Error::new(e.span(), "expected a version number: version = 2")
                })?;
                options.version = Some(lit.base10_parse()?);
            }
            "name" => options.name = Some(meta.value()?.parse()?),
            "key" => options.key = Some(meta.value()?.parse()?),
            "state" => options.state = Some(meta.value()?.parse()?),
            "ttl" => {
                let expr: syn::Expr = meta.value()?.parse()?;
                options.ttl = Some(match &expr {
                    syn::Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Str(text),
                        ..
                    }) => Ttl::Nanos(parse_ttl(text)?),
                    _ => Ttl::Expr(expr),
                });
            }
            "crate" => {
                let lit: syn::LitStr = meta.value()?.parse()?;
                options.krate = Some(lit.parse().map_err(|_| {
                    syn::Error::new(lit.span(), "expected a path: crate = \"my_codec\"")
                })?);
            }
            "ignore" => meta.parse_nested_meta(|arg| {
                match arg.path.get_ident() {
                    Some(ident) => options.ignore.push(ident.clone()),
                    None => cx.error_spanned_by(&arg.path, "expected an argument's name"),
                }
                Ok(())
            })?,
            _ => return Err(unknown_option(&meta)),
        }
        Ok(())
    });
    if let Err(e) = syn::parse::Parser::parse2(parser, args) {
        cx.syn_error(e);
    }
    options
}

/// The `ttl` of a memoized function.
enum Ttl {
    /// Read from text: `ttl = "1h30m"`.
    Nanos(u64),
    /// `ttl = Duration::from_secs(90)`, checked by the compiler.
    Expr(syn::Expr),
}

/// The nanoseconds of a duration written as numbers with units, largest
/// first or not: `"90s"`, `"15m"`, `"1h30m"`, `"7d"`, `"250ms"`.
fn parse_ttl(text: &syn::LitStr) -> syn::Result<u64> {
    let value = text.value();
    let bad = |why: &str| {
        syn::Error::new(
            text.span(),
            format!(
                "`ttl = {:?}`: {why}; write numbers with units ms, s, m, h, d: ttl = \"90s\", \"1h30m\", \"7d\"",
                value
            ),
        )
    };
    let mut total: u64 = 0;
    let mut rest = value.trim();
    if rest.is_empty() {
        return Err(bad("no duration"));
    }
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        if digits == 0 {
            return Err(bad("expected a number"));
        }
        let n: u64 = rest[..digits]
            .parse()
            .map_err(|_| bad("a number too large"))?;
        rest = &rest[digits..];
        let unit = rest
            .find(|c: char| c.is_ascii_digit())
            .unwrap_or(rest.len());
        let nanos: u64 = match rest[..unit].trim() {
            "ms" => 1_000_000,
            "s" => 1_000_000_000,
            "m" => 60 * 1_000_000_000,
            "h" => 3600 * 1_000_000_000,
            "d" => 86_400 * 1_000_000_000,
            "" => return Err(bad("a number without a unit")),
            other => return Err(bad(&format!("unknown unit `{other}`"))),
        };
        rest = &rest[unit..];
        total = n
            .checked_mul(nanos)
            .and_then(|n| total.checked_add(n))
            .ok_or_else(|| bad("a duration too long"))?;
    }
    if total == 0 {
        return Err(bad("entries that expire at once are never read"));
    }
    Ok(total)
}

fn unknown_option(meta: &ParseNestedMeta) -> syn::Error {
    let key = meta.path.to_token_stream().to_string().replace(' ', "");
    let msg = match crate::attr::closest(&key, KEYS) {
        Some(near) => format!("unknown memoize option `{key}`; did you mean `{near}`?"),
        None => format!(
            "unknown memoize option `{key}`; expected one of: {}",
            KEYS.join(", ")
        ),
    };
    syn::Error::new_spanned(&meta.path, msg)
}

/// What a memoized function cannot be.
fn check_signature(cx: &Ctxt, sig: &syn::Signature) {
    // fn embed<M: Model>(model: &M, ..)
    for param in &sig.generics.params {
        match param {
            syn::GenericParam::Lifetime(_) => {}
            syn::GenericParam::Type(t) => cx.error_spanned_by(
                &t.ident,
                "a memoized function cannot be generic over types: one key would hold the \
                 results of every instantiation; memoize a function per type that calls the \
                 generic one",
            ),
            syn::GenericParam::Const(c) => cx.error_spanned_by(
                &c.ident,
                "a memoized function cannot have const parameters: one key would hold the \
                 results of every instantiation; pass the value as an argument",
            ),
        }
    }
    for input in &sig.inputs {
        match input {
            // fn embed(&self, ..)
            syn::FnArg::Receiver(r) => cx.error_spanned_by(
                r.self_token,
                "#[codec::memoize] does not take `self`: the key would not say which type's \
                 method it is; memoize a free function that takes the value as an argument",
            ),
            // fn embed(text: impl AsRef<str>)
            syn::FnArg::Typed(arg) if matches!(*arg.ty, syn::Type::ImplTrait(_)) => cx
                .error_spanned_by(
                    &arg.ty,
                    "a memoized function cannot take `impl Trait`: its key hashes each \
                     argument's encoding, so the type must be known; take a concrete type",
                ),
            syn::FnArg::Typed(_) => {}
        }
    }
    if let Some(variadic) = &sig.variadic {
        cx.error_spanned_by(variadic, "a memoized function cannot be variadic");
    }
    if let Some(constness) = &sig.constness {
        cx.error_spanned_by(
            constness,
            "a memoized function cannot be `const`: it reads and writes a cache",
        );
    }
}

/// `ignore(x)` names an argument, once.
fn check_ignored(cx: &Ctxt, sig: &syn::Signature, ignore: &[syn::Ident]) {
    let names: Vec<String> = sig
        .inputs
        .iter()
        .filter_map(|input| arg_ident(input).map(|ident| ident.to_string()))
        .collect();
    for (i, ident) in ignore.iter().enumerate() {
        if ignore[..i].contains(ident) {
            cx.error_spanned_by(ident, format!("`{ident}` is ignored twice"));
        } else if !names.contains(&ident.to_string()) {
            let args = if names.is_empty() {
                "it has none".to_owned()
            } else {
                format!("its arguments are `{}`", names.join("`, `"))
            };
            cx.error_spanned_by(
                ident,
                format!(
                    "ignore(`{ident}`) names no argument of `{}`; {args}",
                    sig.ident
                ),
            );
        }
    }
}

/// The name a typed argument binds, when its pattern is a plain name.
fn arg_ident(input: &syn::FnArg) -> Option<syn::Ident> {
    match input {
        syn::FnArg::Typed(arg) => arg_ident_of(arg),
        syn::FnArg::Receiver(_) => None,
    }
}

fn generate(func: &syn::ItemFn, cache: &syn::Expr, options: &Options) -> TokenStream {
    let mut func = func.clone();
    let krate = match &options.krate {
        Some(path) => path.to_token_stream(),
        None => quote!(::codec),
    };
    let cache_local = syn::Ident::new("__codec_cache", Span::mixed_site());
    let key_local = syn::Ident::new("__codec_key", Span::mixed_site());
    let hash_local = syn::Ident::new("__codec_args", Span::mixed_site());
    let ret = match &func.sig.output {
        syn::ReturnType::Type(_, ty) => ty.to_token_stream(),
        syn::ReturnType::Default => quote!(()),
    };
    let ret_span = match &func.sig.output {
        syn::ReturnType::Type(_, ty) => ty.span(),
        syn::ReturnType::Default => func.sig.ident.span(),
    };

    // Arguments bound by a pattern are renamed, hashed whole, and taken
    // apart again at the start of the body.
    let mut unpack: Vec<syn::Stmt> = Vec::new();
    let mut parts = Vec::new();
    // With `key = ..`, the arguments are taken apart before the key is
    // hashed (its expression may name what their patterns bind), and only
    // the expression is hashed.
    let keyed = options.key.is_some();
    for (i, input) in func.sig.inputs.iter_mut().enumerate() {
        let syn::FnArg::Typed(arg) = input else {
            continue;
        };
        let ident = match arg_ident_of(arg) {
            Some(ident) => ident,
            None => {
                let ident = format_ident!("__codec_arg{}", i, span = Span::mixed_site());
                let pat = std::mem::replace(&mut *arg.pat, ident_pat(&ident));
                unpack.push(syn::parse_quote!(let #pat = #ident;));
                ident
            }
        };
        if keyed || options.ignore.contains(&ident) {
            continue;
        }
        // A reference is hashed as what it points to (`&str` as `str`).
        let value = match &*arg.ty {
            syn::Type::Reference(_) => quote!(#ident),
            _ => quote!(&#ident),
        };
        let at = respan(&krate, arg.ty.span());
        // The key hashes the arguments the body leaves unused too (`_model`).
        parts.push(quote_spanned! {arg.ty.span()=>
            #[allow(clippy::used_underscore_binding)]
            let #hash_local = #at::__private::memoize::part(#hash_local, #value);
        });
    }

    let name = match &options.name {
        Some(name) => name.to_token_stream(),
        None => {
            let ident = func.sig.ident.to_string();
            let ident = ident.strip_prefix("r#").unwrap_or(&ident);
            quote!(::core::concat!(::core::module_path!(), "::", #ident))
        }
    };
    if let Some(key) = &options.key {
        let at = respan(&krate, key.span());
        parts.push(quote_spanned! {key.span()=>
            let #hash_local = #at::__private::memoize::part(#hash_local, &(#key));
        });
    }
    let version = options.version.unwrap_or(0);
    let put_options = match &options.ttl {
        None => quote! {
            #krate::__private::memoize::options::<::core::time::Duration>(#cache_local, ::core::option::Option::None)
        },
        Some(Ttl::Nanos(nanos)) => quote! {
            #krate::__private::memoize::options(
                #cache_local,
                ::core::option::Option::Some(::core::time::Duration::from_nanos(#nanos)),
            )
        },
        Some(Ttl::Expr(expr)) => {
            let at = respan(&krate, expr.span());
            quote_spanned! {expr.span()=>
                #at::__private::memoize::options(#cache_local, ::core::option::Option::Some(#expr))
            }
        }
    };
    // The body is the closure's, with the arguments' patterns first: not a
    // block in a block, which `unused_braces` would flag.
    let mut block = (*func.block).clone();
    let unpack_first = match keyed {
        true => unpack,
        false => {
            block.stmts.splice(0..0, unpack);
            Vec::new()
        }
    };
    // Spanned on the return type: an unmet bound of `call` points at it.
    let at = respan(&krate, ret_span);
    let call = if let Some(state) = &options.state {
        // The check first, in a statement of its own: it may borrow the
        // arguments, which the body then takes.
        let checked = syn::Ident::new("__codec_checked", Span::mixed_site());
        let options_local = syn::Ident::new("__codec_options", Span::mixed_site());
        let at_state = respan(&krate, state.span());
        let call = match func.sig.asyncness {
            None => quote_spanned! {ret_span=>
                #at::__private::memoize::call_checked::<#ret, _>(
                    #cache_local, #options_local, #checked, move || -> #ret #block
                )
            },
            Some(_) => quote_spanned! {ret_span=>
                #at::__private::memoize::call_checked_async::<#ret, _, _>(
                    #cache_local, #options_local, #checked, move || async move #block
                ).await
            },
        };
        quote_spanned! {ret_span=>
            {
                let #options_local = #put_options;
                let #checked = #at_state::__private::memoize::check_state::<#ret, _, _>(
                    #cache_local, #key_local, &#options_local, #state,
                );
                #call
            }
        }
    } else if func.sig.asyncness.is_some() {
        quote_spanned! {ret_span=>
            #at::__private::memoize::call_async::<#ret, _>(
                #cache_local, #key_local, #put_options, move || async move #block
            ).await
        }
    } else {
        quote_spanned! {ret_span=>
            #at::__private::memoize::call::<#ret>(
                #cache_local, #key_local, #put_options, move || -> #ret #block
            )
        }
    };
    let cache_ref = quote_spanned!(cache.span()=> &(#cache));
    let body = quote! {{
        let #cache_local: &#krate::Cache = #cache_ref;
        #(#unpack_first)*
        let #hash_local = #krate::ContentHash::new();
        #(#parts)*
        let #key_local = #krate::__private::memoize::key(#name, #version, #hash_local);
        #call
    }};
    func.block = Box::new(syn::parse2(body).expect("the generated body is a block"));
    func.into_token_stream()
}

/// `tokens` (a path) with every span set to `span`: an expression that
/// starts with them is then reported at `span`, not at the attribute.
fn respan(tokens: &TokenStream, span: Span) -> TokenStream {
    tokens
        .clone()
        .into_iter()
        .map(|mut token| {
            token.set_span(span);
            token
        })
        .collect()
}

/// The name `arg` binds, when its pattern is a plain name (`text`, `mut text`).
fn arg_ident_of(arg: &syn::PatType) -> Option<syn::Ident> {
    match &*arg.pat {
        syn::Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => Some(p.ident.clone()),
        _ => None,
    }
}

fn ident_pat(ident: &syn::Ident) -> syn::Pat {
    syn::Pat::Ident(syn::PatIdent {
        attrs: Vec::new(),
        by_ref: None,
        mutability: None,
        ident: ident.clone(),
        subpat: None,
    })
}
