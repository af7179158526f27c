// A borrowed field cannot be decoded into: the note names the owned types.
#[derive(codec::Codec)]
struct Chunk<'a> {
    text: &'a str,
}

fn main() {}
