use codec::Codec;

#[derive(Codec)]
#[codec(untagged)]
enum Expr {
    Num(i64),
    Paren(Box<Expr>),
}

fn main() {}
