use std::sync::LazyLock;

use codec::Cache;

static CACHE: LazyLock<Cache> = LazyLock::new(|| Cache::open("cache").unwrap());

#[codec::memoize(cache = CACHE)]
struct Page {
    url: String,
}

fn main() {}
