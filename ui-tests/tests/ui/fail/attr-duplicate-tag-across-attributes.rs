use codec::Codec;

#[derive(Codec)]
#[codec(tag = "kind")]
#[codec(tag = "type")]
enum E {
    A { x: u32 },
}

fn main() {}
