use codec::Codec;

#[derive(Codec)]
struct S {
    a: u32,
    #[codec(alias = "a")]
    b: u32,
}

fn main() {}
