// A map whose values borrow has borrowed keys too: `&'a str`.
use std::collections::HashMap;

#[derive(codec::Codec)]
struct Labels<'a> {
    labels: HashMap<String, &'a str>,
}

fn main() {}
