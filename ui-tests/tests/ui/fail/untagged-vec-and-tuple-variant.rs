use codec::Codec;

#[derive(Codec)]
#[codec(untagged)]
enum E {
    A(Vec<u32>),
    B(u32, u32),
}

fn main() {}
