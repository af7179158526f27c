use std::sync::LazyLock;

use codec::{Cache, StoreError};

static CACHE: LazyLock<Cache> = LazyLock::new(|| Cache::open("cache").unwrap());

#[codec::memoize(cache = CACHE, verison = 2)]
fn square(x: u64) -> Result<u64, StoreError> {
    Ok(x * x)
}

fn main() {}
