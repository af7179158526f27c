use codec::Codec;

#[derive(Codec)]
#[codec(tag = "kind")]
struct Settings {
    value: u32,
}

fn main() {}
