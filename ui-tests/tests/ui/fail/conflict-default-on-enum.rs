use codec::Codec;

#[derive(Codec)]
#[codec(default)]
enum E {
    A { x: u32 },
}

fn main() {}
