use codec::Codec;

#[derive(Codec)]
struct T(#[codec(rename = "a")] u32, u32);

fn main() {}
