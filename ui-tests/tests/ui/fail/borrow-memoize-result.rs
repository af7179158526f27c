// A memoized result is read back from the store, owned: it cannot borrow.
use std::sync::LazyLock;

use codec::{Cache, StoreError};

static CACHE: LazyLock<Cache> = LazyLock::new(|| Cache::open("cache").unwrap());

#[derive(codec::Codec)]
struct Line<'a> {
    text: &'a str,
}

#[codec::memoize(cache = CACHE)]
fn fetch(url: &str) -> Result<Line<'static>, StoreError> {
    let _ = url;
    Ok(Line { text: "x" })
}

fn main() {}
