// A tuple's elements read as they read alone: an `Option<&str>` borrows
// as a field, not inside a tuple.
#[derive(codec::Codec)]
struct Labels<'a> {
    first: (Option<&'a str>, u32),
}

fn main() {}
