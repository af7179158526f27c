use codec::Codec;

#[derive(Codec)]
struct Reading {
    #[codec(ge = 0, ge = 1)]
    value: i64,
}

fn main() {}
