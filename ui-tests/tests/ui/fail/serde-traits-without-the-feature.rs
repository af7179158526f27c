// `#[codec(serde)]` needs codec's `serde` feature, which ui-tests leaves off.
use codec::Codec;

#[derive(Codec)]
#[codec(serde)]
struct Chunk {
    text: String,
}

fn main() {}
