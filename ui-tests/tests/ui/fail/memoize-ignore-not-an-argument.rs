use std::sync::LazyLock;

use codec::{Cache, StoreError};

static CACHE: LazyLock<Cache> = LazyLock::new(|| Cache::open("cache").unwrap());

#[codec::memoize(cache = CACHE, ignore(client))]
fn fetch(url: &str) -> Result<String, StoreError> {
    Ok(url.to_owned())
}

fn main() {}
