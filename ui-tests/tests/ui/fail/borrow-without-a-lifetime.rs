// `borrow` needs a lifetime in the field's type to borrow for.
#[derive(codec::Codec)]
struct Line {
    #[codec(borrow)]
    text: String,
}

fn main() {}
