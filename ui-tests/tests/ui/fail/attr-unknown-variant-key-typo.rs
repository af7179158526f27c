use codec::Codec;

#[derive(Codec)]
enum E {
    #[codec(rname = "a")]
    A { x: u32 },
}

fn main() {}
