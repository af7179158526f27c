//! The macros' own errors in the ui cases, checked without compiling them.
//!
//! Every `#[derive(Codec)]` item of `ui-tests/tests/ui/fail/*.rs` goes
//! through [`expand::derive`], every `#[codec::memoize]` one through
//! [`memoize::expand`], and the errors they report (as
//! `compile_error!`s) must be exactly the plain `error: ...` lines of the
//! case's `.stderr`: those come from the derive, the ones with a code
//! (`error[E0277]`) and the lifetime checker's from the compiler checking
//! the generated code. The ui
//! suite (trybuild) compiles each case; this mirror of it runs in
//! milliseconds, so that every change of the checks, and every mutation of
//! them, is tested in seconds.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use proc_macro2::{TokenStream, TokenTree};
use syn::visit::Visit;

use quote::ToTokens;

use crate::{expand, memoize};

/// The macro inputs of a file, as the compiler hands them over: its items
/// (at any depth) deriving `Codec`, without their `derive` attribute, and
/// the arguments and items of its `#[memoize]` attributes.
#[derive(Default)]
struct MacroInputs {
    derives: Vec<syn::DeriveInput>,
    memoized: Vec<(TokenStream, TokenStream)>,
}

impl<'ast> Visit<'ast> for MacroInputs {
    fn visit_item_struct(&mut self, item: &'ast syn::ItemStruct) {
        self.derive(&item.attrs, syn::DeriveInput::from(item.clone()));
        let mut bare = item.clone();
        if let Some(args) = take_memoize(&mut bare.attrs) {
            self.memoized.push((args, bare.to_token_stream()));
        }
        syn::visit::visit_item_struct(self, item);
    }

    fn visit_item_enum(&mut self, item: &'ast syn::ItemEnum) {
        self.derive(&item.attrs, syn::DeriveInput::from(item.clone()));
        syn::visit::visit_item_enum(self, item);
    }

    fn visit_item_union(&mut self, item: &'ast syn::ItemUnion) {
        self.derive(&item.attrs, syn::DeriveInput::from(item.clone()));
        syn::visit::visit_item_union(self, item);
    }

    fn visit_item_fn(&mut self, item: &'ast syn::ItemFn) {
        let mut bare = item.clone();
        if let Some(args) = take_memoize(&mut bare.attrs) {
            self.memoized.push((args, bare.to_token_stream()));
        }
        syn::visit::visit_item_fn(self, item);
    }

    fn visit_impl_item_fn(&mut self, item: &'ast syn::ImplItemFn) {
        let mut bare = item.clone();
        if let Some(args) = take_memoize(&mut bare.attrs) {
            self.memoized.push((args, bare.to_token_stream()));
        }
        syn::visit::visit_impl_item_fn(self, item);
    }
}

impl MacroInputs {
    fn derive(&mut self, attrs: &[syn::Attribute], mut input: syn::DeriveInput) {
        if attrs.iter().any(derives_codec) {
            input.attrs.retain(|attr| !attr.path().is_ident("derive"));
            self.derives.push(input);
        }
    }
}

/// Removes a `#[memoize(..)]` attribute from `attrs`; its arguments.
fn take_memoize(attrs: &mut Vec<syn::Attribute>) -> Option<TokenStream> {
    let at = attrs.iter().position(|attr| {
        attr.path()
            .segments
            .last()
            .is_some_and(|s| s.ident == "memoize")
    })?;
    let attr = attrs.remove(at);
    Some(match attr.meta {
        syn::Meta::List(list) => list.tokens,
        _ => TokenStream::new(),
    })
}

fn derives_codec(attr: &syn::Attribute) -> bool {
    if !attr.path().is_ident("derive") {
        return false;
    }
    let mut found = false;
    let _ = attr.parse_nested_meta(|meta| {
        found |= meta
            .path
            .segments
            .last()
            .is_some_and(|s| s.ident == "Codec");
        Ok(())
    });
    found
}

/// The messages of the `compile_error!`s in `tokens`, at any depth.
fn compile_errors(tokens: TokenStream, out: &mut Vec<String>) {
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    for (i, token) in tokens.iter().enumerate() {
        match token {
            TokenTree::Ident(ident) if ident == "compile_error" => {
                if let Some(TokenTree::Group(args)) = tokens.get(i + 2) {
                    let message: syn::LitStr =
                        syn::parse2(args.stream()).expect("compile_error! takes a string");
                    out.push(message.value());
                }
            }
            TokenTree::Group(group) => compile_errors(group.stream(), out),
            _ => {}
        }
    }
}

/// The first lines of the plain `error: ` messages of a `.stderr` file.
fn plain_errors(stderr: &str) -> BTreeSet<String> {
    stderr
        .lines()
        .filter_map(|line| line.strip_prefix("error: "))
        .map(str::to_owned)
        .collect()
}

/// Whether the derive reports `message` only without one of its features:
/// the ui crate builds codec with its default features, this test may run
/// with all of them (`cargo test --workspace --all-features`).
fn needs_a_feature_off(message: &str) -> bool {
    cfg!(feature = "serde") && message.contains("through codec's `serde` feature")
}

/// Whether `message` comes from one of codec's `macro_rules!` (a tool's
/// macro without its feature, `python_module!`), not from the derive.
fn of_codecs_macro_rules(message: &str) -> bool {
    message.starts_with("`codec::") && message.contains("!` needs codec's `")
}

/// Whether `message` is the compiler's lifetime check of the generated
/// code, whose errors have no code: a type that borrows where an owned one
/// is needed (`implementation of `codec::Decode` is not general enough`),
/// or a field that borrows without saying so.
fn of_the_lifetime_checker(message: &str) -> bool {
    message.starts_with("implementation of `codec::Decode` is not general enough")
        || message == "lifetime may not live long enough"
}

/// The `.rs` files of `ui-tests/tests/ui/<kind>`, sorted.
fn cases(kind: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../ui-tests/tests/ui")
        .join(kind);
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "rs"))
        .collect();
    cases.sort();
    cases
}

/// The first lines of the errors the macros report for the items of `case`.
fn reported(case: &Path) -> BTreeSet<String> {
    let source = std::fs::read_to_string(case).unwrap();
    let file = syn::parse_file(&source).unwrap_or_else(|e| panic!("{}: {e}", case.display()));
    let mut inputs = MacroInputs::default();
    inputs.visit_file(&file);
    let mut reported = Vec::new();
    for input in &inputs.derives {
        match expand::derive(input) {
            Ok(tokens) => compile_errors(tokens, &mut reported),
            Err(errors) => reported.extend(errors.into_iter().map(|e| e.to_string())),
        }
    }
    for (args, item) in inputs.memoized {
        compile_errors(memoize::expand(args, item), &mut reported);
    }
    reported
        .iter()
        .map(|message| message.lines().next().unwrap_or("").to_owned())
        .collect()
}

#[test]
fn the_derive_reports_the_errors_of_each_failing_ui_case() {
    let cases = cases("fail");
    assert!(cases.len() > 50, "ui cases not found: {}", cases.len());
    let mut mismatches = Vec::new();
    for case in &cases {
        let stderr = std::fs::read_to_string(case.with_extension("stderr")).unwrap_or_default();
        let reported = reported(case);
        let mut expected = plain_errors(&stderr);
        expected.retain(|message| {
            !needs_a_feature_off(message)
                && !of_codecs_macro_rules(message)
                && !of_the_lifetime_checker(message)
        });
        let extra: Vec<_> = reported.difference(&expected).collect();
        let missing: Vec<_> = expected.difference(&reported).collect();
        if !extra.is_empty() || !missing.is_empty() {
            let name = case.file_stem().unwrap().to_string_lossy();
            mismatches.push(format!(
                "{name}: reported but not in .stderr {extra:?}; in .stderr but not reported {missing:?}"
            ));
        }
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}

#[test]
fn the_derive_reports_no_error_in_the_passing_ui_cases() {
    let cases = cases("pass");
    assert!(!cases.is_empty(), "ui cases not found");
    for case in &cases {
        let reported = reported(case);
        assert!(reported.is_empty(), "{}: {reported:?}", case.display());
    }
}
