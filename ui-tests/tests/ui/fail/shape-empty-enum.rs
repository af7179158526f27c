use codec::Codec;

#[derive(Codec)]
enum Never {}

fn main() {}
