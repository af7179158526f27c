use std::sync::LazyLock;

use codec::{Cache, StoreError};

static CACHE: LazyLock<Cache> = LazyLock::new(|| Cache::open("cache").unwrap());

struct Client;

#[codec::memoize(cache = CACHE, key = client)]
fn fetch(client: &Client, url: &str) -> Result<String, StoreError> {
    let _ = client;
    Ok(url.to_owned())
}

fn main() {}
