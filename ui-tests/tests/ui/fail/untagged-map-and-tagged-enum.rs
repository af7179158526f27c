use codec::Codec;

use std::collections::BTreeMap;

mod other {
    #[derive(codec::Codec)]
    pub enum Shape {
        Dot { x: u32 },
    }
}

#[derive(Codec)]
#[codec(untagged)]
enum E {
    A(BTreeMap<String, u32>),
    B(other::Shape),
}

fn main() {}
