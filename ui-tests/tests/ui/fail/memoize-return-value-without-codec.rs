use std::sync::LazyLock;

use codec::{Cache, StoreError};

static CACHE: LazyLock<Cache> = LazyLock::new(|| Cache::open("cache").unwrap());

struct Page;

#[codec::memoize(cache = CACHE)]
fn fetch(url: &str) -> Result<Page, StoreError> {
    let _ = url;
    Ok(Page)
}

fn main() {}
