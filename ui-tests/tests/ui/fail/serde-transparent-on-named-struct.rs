use codec::Codec;

#[derive(Codec)]
#[serde(transparent)]
struct Id {
    inner: u64,
}

fn main() {}
