use codec::Codec;

#[derive(Codec)]
struct N(#[codec(skip)] u32);

fn main() {}
