use codec::Codec;

#[derive(Codec)]
#[codec(handler = Self)]
struct Page {
    text: String,
}

fn main() {}
