use codec::Codec;

#[derive(Codec)]
struct S {
    a: u32,
    #[codec(rename = "a")]
    b: u32,
}

fn main() {}
