// A `Uuid` field needs codec's `uuid` feature, which ui-tests leaves off:
// the error says to enable it.
use codec::Codec;

#[derive(Codec)]
struct User {
    id: uuid::Uuid,
}

fn main() {}
