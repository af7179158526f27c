use codec::Codec;

#[derive(Codec)]
struct User {
    #[codec(pattern = "^[a-z+$")]
    login: String,
}

fn main() {}
