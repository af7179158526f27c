use codec::Codec;

#[derive(Codec)]
enum Event {
    Click { r#type: String },
}

fn main() {}
