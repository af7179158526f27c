use codec::Codec;

#[derive(Codec)]
#[codec(untagged)]
enum E {
    A(u32, u32),
    B(String, String),
}

fn main() {}
