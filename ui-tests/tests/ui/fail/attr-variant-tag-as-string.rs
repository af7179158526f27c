use codec::Codec;

#[derive(Codec)]
enum E {
    #[codec(tag = "a")]
    A { x: u32 },
}

fn main() {}
