// A value read in place borrows from the guard `get_ref` returns: it
// cannot outlive it. Keep the guard while the value lives, or read an
// owned value with `get`.
#[derive(codec::Codec)]
#[codec(name = "Line")]
struct LineRef<'a> {
    text: &'a str,
}

fn read(cache: &codec::Cache) -> Result<(), Box<dyn std::error::Error>> {
    let entry = cache.get_ref::<LineRef<'_>>("key")?.expect("stored");
    let line = entry.value()?;
    drop(entry);
    println!("{}", line.text);
    Ok(())
}

fn main() {}
