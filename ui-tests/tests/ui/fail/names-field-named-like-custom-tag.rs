use codec::Codec;

#[derive(Codec)]
#[codec(tag = "kind")]
enum Event {
    Click { kind: String },
}

fn main() {}
