// Types that borrow, in the shapes the derive supports: several lifetimes
// and a type parameter, serde's `borrow`, untagged and array-like unions,
// array-like structs, and a type declared by a `macro_rules!`.
use std::borrow::Cow;

use codec::Codec;

#[derive(Codec, Debug, PartialEq)]
struct Page<'a, 'b, T> {
    title: &'a str,
    #[serde(borrow)]
    body: Cow<'b, str>,
    items: Vec<T>,
}

#[derive(Codec, Debug, PartialEq)]
#[codec(untagged)]
enum Either<'a> {
    Text(&'a str),
    Number(u64),
}

#[derive(Codec, Debug, PartialEq)]
#[codec(array_like)]
enum Event<'a> {
    Click { x: i64 },
    Key(&'a str),
}

#[derive(Codec, Debug, PartialEq)]
#[codec(array_like)]
struct Pair<'a> {
    key: &'a str,
    value: Option<&'a [u8]>,
}

macro_rules! declare {
    ($name:ident) => {
        #[derive(Codec, Debug, PartialEq)]
        struct $name<'a> {
            text: &'a str,
        }
    };
}

declare!(Line);

fn round_trip<'de, T>(value: &T, bytes: &'de mut Vec<u8>) -> T
where
    T: codec::Encode + codec::Decode<'de> + std::fmt::Debug + PartialEq,
{
    *bytes = codec::to_msgpack(value).unwrap();
    let back: T = codec::from_msgpack(bytes).unwrap();
    assert_eq!(&back, value);
    back
}

pub fn main() {
    let page = Page { title: "t", body: Cow::Borrowed("b"), items: vec![1u8] };
    round_trip(&page, &mut Vec::new());
    round_trip(&Either::Text("x"), &mut Vec::new());
    round_trip(&Either::Number(3), &mut Vec::new());
    round_trip(&Event::Key("k"), &mut Vec::new());
    round_trip(&Event::Click { x: 1 }, &mut Vec::new());
    round_trip(&Pair { key: "k", value: Some(b"v") }, &mut Vec::new());
    round_trip(&Line { text: "l" }, &mut Vec::new());
    let json = codec::to_json(&page).unwrap();
    let back: Page<'_, '_, u8> = codec::from_json(&json).unwrap();
    assert!(matches!(back.body, Cow::Borrowed(_)));
}
