use codec::Codec;

#[derive(Codec)]
struct S {
    #[codec(with = "not a path")]
    value: u32,
}

fn main() {}
