use codec::Codec;

#[derive(Codec)]
struct S(u8, #[codec(required)] Option<u32>);

fn main() {}
