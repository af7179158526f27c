use codec::Codec;

#[derive(Codec)]
#[codec(untagged)]
enum E {
    #[codec(tag = 1)]
    A(u32),
    B(String),
}

fn main() {}
