use codec::Codec;

#[derive(Codec)]
#[codec(rename_all = "camelCase")]
#[allow(non_snake_case)]
struct S {
    user_id: u32,
    userId: u32,
}

fn main() {}
