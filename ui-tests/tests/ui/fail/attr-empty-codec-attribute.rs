use codec::Codec;

#[derive(Codec)]
#[codec]
struct S {
    value: u32,
}

fn main() {}
