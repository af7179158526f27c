use codec::Codec;

mod other {
    #[derive(codec::Codec)]
    pub enum Color {
        Red,
        Green,
    }
}

#[derive(Codec)]
#[codec(untagged)]
enum E {
    A(other::Color),
    B(String),
}

fn main() {}
