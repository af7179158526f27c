use codec::Codec;

#[derive(Codec)]
struct S {
    #[codec(renam = "x")]
    a: u32,
    #[codec(skp)]
    b: u32,
}

fn main() {}
