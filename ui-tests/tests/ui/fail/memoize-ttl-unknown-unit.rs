use std::sync::LazyLock;

use codec::{Cache, StoreError};

static CACHE: LazyLock<Cache> = LazyLock::new(|| Cache::open("cache").unwrap());

#[codec::memoize(cache = CACHE, version = 1, ttl = "2 hours")]
fn rate(currency: &str) -> Result<f64, StoreError> {
    Ok(currency.len() as f64)
}

fn main() {}
