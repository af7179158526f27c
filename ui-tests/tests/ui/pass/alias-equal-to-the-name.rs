use codec::Codec;

// An alias that repeats the field's own name is accepted: it names the
// same field, not a second one.
#[derive(Codec, Debug, PartialEq)]
struct S {
    #[codec(alias = "a")]
    a: u32,
}

pub fn main() {
    let s = S { a: 1 };
    assert_eq!(codec::from_json::<S>(r#"{"a":1}"#).unwrap(), s);
}
