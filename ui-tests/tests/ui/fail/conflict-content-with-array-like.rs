use codec::Codec;

#[derive(Codec)]
#[codec(array_like, tag = "t", content = "data")]
enum E {
    A(u32),
}

fn main() {}
