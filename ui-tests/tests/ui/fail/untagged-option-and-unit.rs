use codec::Codec;

#[derive(Codec)]
#[codec(untagged)]
enum E {
    A(Option<u32>),
    B,
}

fn main() {}
