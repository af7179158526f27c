// The guard of a read in place is local: a value borrowing from it cannot
// be returned. Return the guard and decode where the value is used, or
// read an owned value with `get`.
#[derive(codec::Codec)]
#[codec(name = "Line")]
struct LineRef<'a> {
    text: &'a str,
}

fn first_line(cache: &codec::Cache) -> LineRef<'_> {
    let entry = cache.get_ref::<LineRef<'_>>("key").unwrap().expect("stored");
    entry.value().unwrap()
}

fn main() {}
