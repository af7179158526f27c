use codec::Codec;

#[derive(Codec)]
struct S {
    #[serde(skip_deserializing)]
    cache: u32,
}

fn main() {}
