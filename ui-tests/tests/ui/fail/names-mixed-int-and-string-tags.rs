use codec::Codec;

#[derive(Codec)]
enum E {
    #[codec(tag = 1)]
    A { x: u32 },
    B { y: u32 },
}

fn main() {}
