use codec::Codec;

#[derive(Codec)]
#[codec(rename = "Settings")]
struct S {
    value: u32,
}

fn main() {}
