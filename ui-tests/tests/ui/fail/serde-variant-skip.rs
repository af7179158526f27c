use codec::Codec;

#[derive(Codec)]
enum E {
    A,
    #[serde(skip)]
    B,
}

fn main() {}
