use codec::Codec;

#[derive(Codec)]
#[codec(rename_all = "lowercase")]
enum E {
    Ab,
    AB,
}

fn main() {}
