use codec::Codec;

#[derive(Codec)]
#[codec(rename_all = "camel")]
struct S {
    value: u32,
}

fn main() {}
