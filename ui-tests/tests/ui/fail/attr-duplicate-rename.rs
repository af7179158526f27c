use codec::Codec;

#[derive(Codec)]
struct S {
    #[codec(rename = "a", rename = "b")]
    value: u32,
}

fn main() {}
