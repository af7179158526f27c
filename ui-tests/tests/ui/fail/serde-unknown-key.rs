use codec::Codec;

#[derive(Codec)]
struct S {
    #[serde(frobnicate)]
    value: u32,
}

fn main() {}
