use codec::Codec;

#[derive(Codec)]
struct Reading {
    #[codec(skip, ge = 0)]
    value: i64,
}

fn main() {}
