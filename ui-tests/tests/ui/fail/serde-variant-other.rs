use codec::Codec;

#[derive(Codec)]
#[serde(tag = "type")]
enum E {
    A { x: u8 },
    #[serde(other)]
    Unknown,
}

fn main() {}
