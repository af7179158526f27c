// A type that borrows cannot be stored, so it has no handler.
#[derive(codec::Codec)]
#[codec(handler = "inline")]
struct Line<'a> {
    text: &'a str,
}

fn main() {}
