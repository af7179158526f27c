use codec::Codec;

#[derive(Codec)]
#[codec(array_like)]
struct S {
    a: u8,
    #[codec(skip_serializing_if = "Option::is_none")]
    b: Option<u32>,
}

fn main() {}
