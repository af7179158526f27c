use codec::Codec;

#[derive(Codec, Default)]
struct Opaque {
    a: u8,
}

#[derive(Codec)]
#[codec(omit_defaults)]
struct S {
    #[codec(default)]
    inner: Opaque,
}

fn main() {}
