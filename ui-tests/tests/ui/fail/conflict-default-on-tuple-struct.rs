use codec::Codec;

#[derive(Codec, Default)]
#[codec(default)]
struct T(u32, u32);

fn main() {}
