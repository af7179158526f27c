use codec::Codec;

#[derive(Codec)]
struct S {
    #[codec(required, default)]
    value: Option<u32>,
}

fn main() {}
