use codec::Codec;

#[derive(Codec)]
#[codec(untagged, content = "value")]
enum E {
    A(u32),
    B(String),
}

fn main() {}
