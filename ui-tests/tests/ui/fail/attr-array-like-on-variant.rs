use codec::Codec;

#[derive(Codec)]
enum E {
    #[codec(array_like)]
    A { x: u32 },
}

fn main() {}
