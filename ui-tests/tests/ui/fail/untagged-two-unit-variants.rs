use codec::Codec;

#[derive(Codec)]
#[codec(untagged)]
enum E {
    A,
    B,
}

fn main() {}
