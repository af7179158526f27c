use codec::Codec;

#[derive(Codec)]
enum E {
    #[codec(rename_all = "camelCase")]
    A(u32, u32),
}

fn main() {}
