use codec::Codec;

#[derive(Codec)]
struct Reading {
    #[codec(max_length = 3)]
    value: f64,
}

fn main() {}
