use codec::Codec;

#[derive(Codec)]
struct S {
    #[serde(rename(serialize = "out", deserialize = "in"))]
    value: u32,
}

fn main() {}
