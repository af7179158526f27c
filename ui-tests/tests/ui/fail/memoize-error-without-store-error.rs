use std::sync::LazyLock;

use codec::Cache;

static CACHE: LazyLock<Cache> = LazyLock::new(|| Cache::open("cache").unwrap());

#[derive(Debug)]
struct ParseError;

#[codec::memoize(cache = CACHE)]
fn parse(text: &str) -> Result<u64, ParseError> {
    text.parse().map_err(|_| ParseError)
}

fn main() {}
