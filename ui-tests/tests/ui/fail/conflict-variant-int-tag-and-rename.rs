use codec::Codec;

#[derive(Codec)]
enum E {
    #[codec(tag = 1, rename = "a")]
    A { x: u32 },
}

fn main() {}
