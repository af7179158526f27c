use codec::Codec;

#[derive(Codec)]
struct Reading {
    #[codec(gt = 10, lt = 10)]
    value: i64,
}

fn main() {}
