use codec::Codec;

struct Plain;

#[derive(Codec)]
struct S {
    a: Plain,
}

fn main() {}
