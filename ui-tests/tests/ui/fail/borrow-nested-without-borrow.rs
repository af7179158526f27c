// A field of a type that borrows borrows too, and says so: a type whose
// only borrowing is such a field needs #[codec(borrow)] on it.
#[derive(codec::Codec)]
struct Inner<'a> {
    text: &'a str,
}

#[derive(codec::Codec)]
struct Outer<'a> {
    inner: Inner<'a>,
}

fn main() {}
