use codec::Codec;

#[derive(Codec)]
#[serde(bound = "T: serde::Serialize")]
struct S<T> {
    value: T,
}

fn main() {}
