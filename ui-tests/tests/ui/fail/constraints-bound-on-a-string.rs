use codec::Codec;

#[derive(Codec)]
struct User {
    #[codec(ge = 0)]
    name: String,
}

fn main() {}
