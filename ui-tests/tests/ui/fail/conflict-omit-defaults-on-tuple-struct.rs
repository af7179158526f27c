use codec::Codec;

#[derive(Codec)]
#[codec(omit_defaults)]
struct S(u8, u8);

fn main() {}
