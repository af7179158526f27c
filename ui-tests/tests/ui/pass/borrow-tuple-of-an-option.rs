// A tuple's elements read as they read alone, borrowed ones too: an
// `Option<&str>` inside a tuple borrows as it does as a field.
#[derive(codec::Codec)]
struct Labels<'a> {
    first: (Option<&'a str>, u32),
}

pub fn main() {
    let bytes = codec::to_msgpack(&Labels { first: (Some("a"), 1) }).unwrap();
    let labels: Labels<'_> = codec::from_msgpack(&bytes).unwrap();
    assert_eq!(labels.first, (Some("a"), 1));
}
