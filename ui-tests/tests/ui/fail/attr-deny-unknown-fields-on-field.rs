use codec::Codec;

#[derive(Codec)]
struct S {
    #[codec(deny_unknown_fields)]
    value: u32,
}

fn main() {}
