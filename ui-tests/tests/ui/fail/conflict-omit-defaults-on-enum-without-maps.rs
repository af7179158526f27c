use codec::Codec;

// Tuple and unit variants only: no variant is written as a map.
#[derive(Codec)]
#[codec(omit_defaults)]
enum E {
    A(u8),
    B,
}

fn main() {}
