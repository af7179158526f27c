use codec::Codec;

#[derive(Codec)]
#[codec(untagged)]
enum E {
    A(u32),
    B(i64),
}

fn main() {}
