use std::sync::LazyLock;

use codec::{Cache, StoreError};

static CACHE: LazyLock<Cache> = LazyLock::new(|| Cache::open("cache").unwrap());

#[codec::memoize(cache = CACHE)]
fn first<T: codec::Codec + Clone + 'static>(items: Vec<T>) -> Result<Option<T>, StoreError> {
    Ok(items.first().cloned())
}

fn main() {}
