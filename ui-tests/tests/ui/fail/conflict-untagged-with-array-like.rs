use codec::Codec;

#[derive(Codec)]
#[codec(untagged, array_like)]
enum E {
    A(u32),
    B(String),
}

fn main() {}
