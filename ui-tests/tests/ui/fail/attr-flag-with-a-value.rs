use codec::Codec;

#[derive(Codec)]
#[codec(array_like = false)]
struct S {
    a: u32,
}

fn main() {}
