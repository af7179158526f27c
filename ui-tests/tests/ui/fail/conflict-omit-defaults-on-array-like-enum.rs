use codec::Codec;

// `array_like` writes even a struct variant's fields as an array.
#[derive(Codec)]
#[codec(omit_defaults, array_like)]
enum E {
    A { x: u8 },
}

fn main() {}
