//! The shapes of `codec-derive-shapes`, compiled in edition 2018, under
//! the same lints, plus the names this edition treats differently.

#![deny(
    warnings,
    missing_docs,
    missing_debug_implementations,
    unused_qualifications,
    unused_results,
    unreachable_pub,
    rust_2018_idioms,
    rust_2024_compatibility,
    single_use_lifetimes,
    unused_lifetimes,
    trivial_casts,
    trivial_numeric_casts,
    unused_import_braces,
    unused_extern_crates
)]
#![forbid(unsafe_code)]
// Clippy finds nothing in generated code either (`cargo clippy` of this crate).
#![deny(clippy::all, clippy::pedantic)]
// The 2024 lints that only warn of drop order changes in user code are not
// about the derive.
#![allow(tail_expr_drop_order, if_let_rescope)]

#[path = "../../../src/shapes/mod.rs"]
pub mod shapes;

/// A field named like a keyword of later editions.
#[allow(keyword_idents_2024)]
#[derive(codec::Codec, Debug, PartialEq)]
pub struct KeywordsOfLaterEditions {
    gen: u8,
    r#async: bool,
    r#try: i8,
}

#[cfg(test)]
mod tests {
    use super::KeywordsOfLaterEditions;
    use crate::shapes::roundtrip;

    #[test]
    #[allow(keyword_idents_2024)]
    fn keywords_of_later_editions() {
        let k = KeywordsOfLaterEditions {
            gen: 1,
            r#async: true,
            r#try: -1,
        };
        assert_eq!(roundtrip(&k), r#"{"gen":1,"async":true,"try":-1}"#);
    }
}
