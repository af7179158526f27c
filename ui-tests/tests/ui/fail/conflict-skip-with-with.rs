use codec::Codec;

mod m {}

#[derive(Codec)]
struct S {
    #[codec(skip, with = "m")]
    value: u32,
}

fn main() {}
