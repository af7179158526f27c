// The store returns owned values: a type that borrows from its input
// cannot be read back from it.
#[derive(codec::Codec)]
struct Line<'a> {
    text: &'a str,
}

fn read(cache: &codec::Cache) {
    let _ = cache.get::<Line<'static>>("key");
}

fn main() {}
