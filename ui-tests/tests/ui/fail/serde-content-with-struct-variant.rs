use codec::Codec;

#[derive(Codec)]
#[serde(tag = "t", content = "c")]
enum E {
    Pair(u8, u8),
    Named { x: u8 },
}

fn main() {}
