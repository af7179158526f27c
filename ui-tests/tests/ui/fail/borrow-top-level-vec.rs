// A `Vec` of a type that borrows is read through a newtype holding it
// with #[codec(borrow)], not at the top level: the note says so.
#[derive(codec::Codec)]
struct Line<'a> {
    text: &'a str,
}

fn read(bytes: &[u8]) {
    let _ = codec::from_msgpack::<Vec<Line<'_>>>(bytes);
}

fn main() {}
