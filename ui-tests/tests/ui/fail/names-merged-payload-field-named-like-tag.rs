use codec::Codec;

mod other {
    #[derive(codec::Codec)]
    pub struct Click {
        pub r#type: String,
    }
}

#[derive(Codec)]
enum Event {
    Click(other::Click),
}

fn main() {}
