//! The shapes of `codec-derive-shapes`, compiled in edition 2024, under
//! the same lints, plus the names this edition treats differently.

#![deny(
    warnings,
    missing_docs,
    missing_debug_implementations,
    unused_qualifications,
    unused_results,
    unreachable_pub,
    rust_2018_idioms,
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

/// Keywords of this edition as raw identifiers.
#[allow(missing_docs, non_camel_case_types)] // fields of variants, a variant named `gen`
#[derive(codec::Codec, Debug, PartialEq)]
pub enum Keywords {
    /// A variant named by a keyword of this edition.
    r#gen { r#gen: u8, r#async: bool },
}

#[cfg(test)]
mod tests {
    use super::Keywords;
    use crate::shapes::roundtrip;

    #[test]
    fn keywords_of_this_edition() {
        let k = Keywords::r#gen {
            r#gen: 1,
            r#async: false,
        };
        assert_eq!(roundtrip(&k), r#"{"type":"gen","gen":1,"async":false}"#);
    }
}
