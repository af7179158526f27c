use codec::Codec;

mod other {
    #[derive(codec::Codec)]
    pub struct P {
        pub x: u32,
    }
}

#[derive(Codec)]
#[codec(untagged)]
enum E {
    A(other::P),
    B { y: u32 },
}

fn main() {}
