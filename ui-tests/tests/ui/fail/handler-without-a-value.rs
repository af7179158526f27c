use codec::Codec;

#[derive(Codec)]
#[codec(handler)]
struct Page {
    text: String,
}

fn main() {}
