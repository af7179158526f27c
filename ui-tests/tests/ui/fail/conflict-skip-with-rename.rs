use codec::Codec;

#[derive(Codec)]
struct S {
    #[codec(skip, rename = "v")]
    value: u32,
}

fn main() {}
