use codec::Codec;

#[derive(Codec)]
struct S {
    #[codec(renam = "x")]
    value: u32,
}

fn main() {}
