use codec::Codec;

#[derive(Codec)]
struct Reading {
    #[codec(multiple_of = 0)]
    value: i64,
}

fn main() {}
