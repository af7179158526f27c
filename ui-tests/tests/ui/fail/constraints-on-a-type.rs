use codec::Codec;

#[derive(Codec)]
#[codec(max_length = 3)]
struct Tags {
    names: Vec<String>,
}

fn main() {}
