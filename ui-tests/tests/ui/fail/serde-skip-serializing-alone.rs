use codec::Codec;

#[derive(Codec)]
struct S {
    #[serde(skip_serializing)]
    cache: u32,
}

fn main() {}
