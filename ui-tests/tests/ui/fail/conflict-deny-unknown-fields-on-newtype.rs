use codec::Codec;

#[derive(Codec)]
#[codec(deny_unknown_fields)]
struct N(u32);

fn main() {}
