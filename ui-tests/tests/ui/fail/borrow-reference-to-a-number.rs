// Only strings and bytes are borrowed from the input.
#[derive(codec::Codec)]
struct Counter<'a> {
    count: &'a u32,
}

fn main() {}
