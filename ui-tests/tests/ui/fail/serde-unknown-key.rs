use codec::Codec;

#[derive(Codec)]
struct S {
    #[serde(frobnicate)]
    value: u32,
}

#[derive(Codec)]
#[serde(polish = "x")]
struct T {
    value: u32,
}

#[derive(Codec)]
enum E {
    #[serde(tidy)]
    A,
}

fn main() {}
