use codec::Codec;

#[derive(Codec)]
#[codec(tagged)]
enum E {
    A { x: u32 },
}

fn main() {}
