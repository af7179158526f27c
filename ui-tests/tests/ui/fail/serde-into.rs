use codec::Codec;

#[derive(Codec, Clone)]
#[serde(into = "u32")]
struct S {
    value: u32,
}

fn main() {}
