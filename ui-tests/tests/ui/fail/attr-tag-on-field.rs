use codec::Codec;

#[derive(Codec)]
struct S {
    #[codec(tag = "kind")]
    value: u32,
}

fn main() {}
