// A field of a type that borrows borrows too, and says so.
#[derive(codec::Codec)]
struct Inner<'a> {
    text: &'a str,
}

#[derive(codec::Codec)]
struct Outer<'a> {
    id: &'a str,
    inner: Inner<'a>,
}

fn main() {}
