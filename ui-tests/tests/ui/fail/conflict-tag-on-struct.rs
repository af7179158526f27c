use codec::Codec;

#[derive(Codec)]
#[codec(tag = "kind")]
struct S {
    value: u32,
}

fn main() {}
