//! Every misuse of `#[derive(Codec)]` that can be caught at compile time is, with
//! a message that says the fix. One mistake per file under `ui/fail`. (The valid
//! uses under `ui/pass` are `pass.rs`'s tests: only failing cases here, so
//! trybuild checks them without generating code.)

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/fail/*.rs");
}
