use codec::Codec;

#[derive(Codec)]
#[codec(untagged)]
enum E {
    #[codec(rename = "a")]
    A(u32),
    B(String),
}

fn main() {}
