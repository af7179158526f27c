use codec::Codec;

#[derive(Codec)]
struct User {
    #[codec(min_length = 5, max_length = 2)]
    name: String,
}

fn main() {}
