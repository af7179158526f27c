use codec::Codec;

#[derive(Codec)]
struct Inner {
    a: u32,
}

#[derive(Codec)]
struct Outer {
    #[serde(flatten)]
    inner: Inner,
}

fn main() {}
