use codec::Codec;

struct NoDefault;

#[derive(Codec)]
struct S {
    #[codec(skip)]
    a: NoDefault,
    b: u32,
}

fn main() {}
