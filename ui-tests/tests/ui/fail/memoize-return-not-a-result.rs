use std::sync::LazyLock;

use codec::Cache;

static CACHE: LazyLock<Cache> = LazyLock::new(|| Cache::open("cache").unwrap());

#[codec::memoize(cache = CACHE)]
fn square(x: u64) -> u64 {
    x * x
}

fn main() {}
