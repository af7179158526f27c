// The fix the note gives for a borrowed field: `Cow<'a, str>` encodes the
// borrowed text and decodes an owned copy.
use std::borrow::Cow;

#[derive(codec::Codec, Debug, PartialEq)]
struct Chunk<'a> {
    text: Cow<'a, str>,
    ids: Cow<'a, [u32]>,
}

pub fn main() {
    let text = String::from("hello");
    let ids = [1u32, 2];
    let chunk = Chunk { text: Cow::Borrowed(&text), ids: Cow::Borrowed(&ids) };
    let json = codec::to_json(&chunk).unwrap();
    assert_eq!(json, r#"{"text":"hello","ids":[1,2]}"#);
    let back: Chunk<'static> = codec::from_json(&json).unwrap();
    assert_eq!(back, chunk);
    let back: Chunk<'static> = codec::from_msgpack(&codec::to_msgpack(&chunk).unwrap()).unwrap();
    assert_eq!(back, chunk);
}
