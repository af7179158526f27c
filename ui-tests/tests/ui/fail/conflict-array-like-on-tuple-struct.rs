use codec::Codec;

#[derive(Codec)]
#[codec(array_like)]
struct T(u32, u32);

fn main() {}
