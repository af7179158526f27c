use codec::Codec;

#[derive(Codec)]
#[codec(deny_unknown_fields)]
enum Color {
    Red,
    Green,
}

fn main() {}
