use codec::Codec;

#[derive(Codec)]
struct Page {
    #[codec(skip_serializing_if = "Vec::is_empty")]
    tags: Vec<String>,
}

fn main() {}
