//! Compile-fail and compile-pass cases of `#[derive(Codec)]`, driven by trybuild.
