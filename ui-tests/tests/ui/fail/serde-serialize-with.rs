use codec::Codec;

#[derive(Codec)]
struct S {
    #[serde(serialize_with = "as_text")]
    value: u32,
}

fn main() {}
