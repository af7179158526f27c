//! Every misuse of `#[derive(Codec)]` that can be caught at compile time is, with
//! a message that says the fix. One mistake per file under `ui/fail`; valid
//! uses that must keep compiling under `ui/pass`.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.pass("tests/ui/pass/*.rs");
    t.compile_fail("tests/ui/fail/*.rs");
}
