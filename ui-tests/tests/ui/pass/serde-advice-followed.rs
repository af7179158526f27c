//! The fixes the serde-attribute errors advise, followed: each compiles.
use codec::Codec;

// `#[serde(content)]` with a struct variant: codec's own `content` accepts
// codec's layout.
#[derive(Codec)]
#[serde(tag = "t", content = "c")]
#[codec(content = "c")]
enum Adjacent {
    Pair(u8, u8),
    Named { x: u8 },
}

// `#[serde(bound)]`: codec's own bound wins.
#[derive(Codec)]
#[serde(bound = "T: serde::Serialize")]
#[codec(bound = "T: codec::Codec")]
struct Bounded<T> {
    value: T,
}

// `#[serde(transparent)]` on a named struct: a tuple struct is transparent.
#[derive(Codec)]
#[serde(transparent)]
struct Id(u64);

// `skip_serializing` alone: skip both ways.
#[derive(Codec)]
struct Cached {
    #[serde(skip)]
    cache: u32,
    #[serde(skip_serializing, skip_deserializing)]
    scratch: Vec<u8>,
}

// `#[codec(required, default)]`: one of them.
#[derive(Codec)]
struct Strict {
    #[codec(required)]
    value: Option<u32>,
}

pub fn main() {
    let _ = (Adjacent::Pair(1, 2), Adjacent::Named { x: 1 });
    let _ = Bounded { value: 1u8 };
    let _ = Id(1);
    let _ = Cached { cache: 0, scratch: vec![] };
    let _ = Strict { value: None };
}
