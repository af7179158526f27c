use codec::Codec;

#[derive(Codec)]
#[codec(array_like)]
struct S {
    #[codec(default)]
    a: u32,
    b: String,
}

fn main() {}
