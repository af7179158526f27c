use codec::Codec;

#[derive(Codec)]
#[codec(untagged)]
enum E {
    #[codec(alias = "a")]
    A(u32),
    B(String),
}

fn main() {}
