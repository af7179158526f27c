use codec::Codec;

#[derive(Codec)]
#[codec(untagged)]
enum E {
    A { x: u32 },
    B { y: u32 },
}

fn main() {}
