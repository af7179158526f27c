use codec::Codec;

#[derive(Codec)]
#[codec(skip)]
struct S {
    value: u32,
}

fn main() {}
