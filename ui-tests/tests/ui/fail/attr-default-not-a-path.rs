use codec::Codec;

#[derive(Codec)]
struct S {
    #[codec(default = "1 + 1")]
    value: u32,
}

fn main() {}
