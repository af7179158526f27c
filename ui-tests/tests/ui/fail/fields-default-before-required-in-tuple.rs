use codec::Codec;

#[derive(Codec)]
struct T(#[codec(default)] u32, String);

fn main() {}
