use codec::Codec;

#[derive(Codec)]
#[codec(rename_all_fields = "camelCase")]
struct S {
    field_name: u8,
}

fn main() {}
