use codec::Codec;

#[derive(Codec)]
#[codec(content = "data")]
enum E {
    A(u32),
}

fn main() {}
