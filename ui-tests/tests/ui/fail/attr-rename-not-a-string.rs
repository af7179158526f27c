use codec::Codec;

#[derive(Codec)]
struct S {
    #[codec(rename = 1)]
    value: u32,
}

fn main() {}
