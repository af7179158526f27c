use codec::Codec;

// Each payload alone is fine; with `T = String` both are string-like.
#[derive(Codec, Debug)]
#[codec(untagged)]
enum E<T> {
    A(T),
    B(String),
}

fn main() {
    let _ = codec::to_json(&E::<String>::B("x".into()));
}
