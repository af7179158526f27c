use codec::Codec;

#[derive(Codec)]
struct Settings {
    #[codec(renam = "x")]
    value: u32,
}

fn main() {}
