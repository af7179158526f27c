use codec::Codec;

#[derive(Codec)]
#[codec(handler = "fiel")]
struct Blob(codec::Bytes);

fn main() {}
