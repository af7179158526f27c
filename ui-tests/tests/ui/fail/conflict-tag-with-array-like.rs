use codec::Codec;

#[derive(Codec)]
#[codec(array_like, tag = "kind")]
enum E {
    A { x: u32 },
}

fn main() {}
