use codec::Codec;

#[derive(Codec)]
struct Settings {
    a: u32,
    #[codec(rename = "a")]
    b: u32,
}

fn main() {}
