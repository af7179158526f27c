use codec::Codec;

#[derive(Codec)]
#[codec(array_like)]
struct S {
    #[codec(alias = "b")]
    a: u32,
}

fn main() {}
