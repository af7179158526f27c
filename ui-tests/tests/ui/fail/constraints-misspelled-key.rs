use codec::Codec;

#[derive(Codec)]
struct User {
    #[codec(max_lenght = 3)]
    name: String,
}

fn main() {}
