use codec::Codec;

#[derive(Codec)]
#[codec(untagged, tag = "type")]
enum E {
    A(u32),
    B(String),
}

fn main() {}
