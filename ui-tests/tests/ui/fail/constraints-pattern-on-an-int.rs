use codec::Codec;

#[derive(Codec)]
struct User {
    #[codec(pattern = "^[0-9]+$")]
    id: u64,
}

fn main() {}
