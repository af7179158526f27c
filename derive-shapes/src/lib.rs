//! Shapes of user code that `#[derive(Codec)]` must compile in, without a
//! warning, under the strictest lints a user crate sets. Each shape
//! round-trips one value through `MessagePack` and JSON in its tests.
//!
//! The shapes under `shapes/` are shared with the edition 2018 and 2024
//! crates beside this one, which compile the same files in their edition.

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

pub mod shapes;
