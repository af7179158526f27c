//! Valid uses of `#[derive(Codec)]` that must keep compiling, and do what they
//! say when run: each file under `ui/pass` is a module here, its `main` a test.
//! (The cases that must fail to compile are `ui.rs`'s.)
// As users write them: a `with` module's `json_schema<T>` has the signature
// the derive calls, whether it uses `T` or not, and an async memoized
// function is only named, not run.
#![allow(
    dead_code,
    clippy::extra_unused_type_parameters,
    clippy::let_underscore_future
)]

macro_rules! cases {
    ($($name:ident = $file:literal,)*) => {
        $(
            #[path = $file]
            mod $name;

            #[test]
            fn $name() {
                $name::main();
            }
        )*

        /// The files the tests above run.
        const FILES: &[&str] = &[$($file),*];
    };
}

cases! {
    alias_equal_to_the_name = "ui/pass/alias-equal-to-the-name.rs",
    borrow_map_with_owned_keys = "ui/pass/borrow-map-with-owned-keys.rs",
    borrow_shapes = "ui/pass/borrow-shapes.rs",
    borrow_top_level_vec = "ui/pass/borrow-top-level-vec.rs",
    borrow_tuple_of_an_option = "ui/pass/borrow-tuple-of-an-option.rs",
    fields_borrowed_str = "ui/pass/fields-borrowed-str.rs",
    fields_cow_str = "ui/pass/fields-cow-str.rs",
    generic_struct_and_enum = "ui/pass/generic-struct-and-enum.rs",
    memoize_cache_forms = "ui/pass/memoize-cache-forms.rs",
    recursive_types = "ui/pass/recursive-types.rs",
    serde_advice_followed = "ui/pass/serde-advice-followed.rs",
    serde_keys_codec_accepts = "ui/pass/serde-keys-codec-accepts.rs",
    skip_serializing_if_with_a_way_back = "ui/pass/skip-serializing-if-with-a-way-back.rs",
    tagged_newtype_variant_with_a_bridge = "ui/pass/tagged-newtype-variant-with-a-bridge.rs",
    untagged_advice_followed = "ui/pass/untagged-advice-followed.rs",
    untagged_union_round_trips = "ui/pass/untagged-union-round-trips.rs",
}

/// A case added to `ui/pass` and not to the list above would run nowhere.
#[test]
fn every_file_of_ui_pass_is_a_test() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ui/pass");
    let mut found: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| format!("ui/pass/{}", e.unwrap().file_name().to_string_lossy()))
        .collect();
    found.sort();
    let mut listed: Vec<&str> = FILES.to_vec();
    listed.sort_unstable();
    assert_eq!(found, listed, "add each file of ui/pass to `cases!`");
}
