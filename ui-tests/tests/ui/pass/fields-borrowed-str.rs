// A `&'a str` field borrows from the input it is decoded from.
#[derive(codec::Codec)]
struct Chunk<'a> {
    text: &'a str,
}

pub fn main() {
    let bytes = codec::to_msgpack(&Chunk { text: "hello" }).unwrap();
    let chunk: Chunk<'_> = codec::from_msgpack(&bytes).unwrap();
    assert!(bytes.as_ptr_range().contains(&chunk.text.as_ptr()));
}
