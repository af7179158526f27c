use codec::Codec;

#[derive(Codec)]
struct Reading {
    #[codec(le = "100")]
    value: i64,
}

fn main() {}
