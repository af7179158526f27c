use std::sync::LazyLock;

use codec::{Cache, StoreError};

static CACHE: LazyLock<Cache> = LazyLock::new(|| Cache::open("cache").unwrap());

const HOUR: u64 = 3600;

#[codec::memoize(cache = CACHE, version = 1, ttl = HOUR)]
fn rate(currency: &str) -> Result<f64, StoreError> {
    Ok(currency.len() as f64)
}

fn main() {}
