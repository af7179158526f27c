use codec::Codec;

#[derive(Codec)]
enum E {
    #[codec(rename = "B")]
    A { x: u32 },
    B { y: u32 },
}

fn main() {}
