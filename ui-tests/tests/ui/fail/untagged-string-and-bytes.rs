use codec::Codec;

#[derive(Codec)]
#[codec(untagged)]
enum E {
    A(String),
    B(Vec<u8>),
}

fn main() {}
