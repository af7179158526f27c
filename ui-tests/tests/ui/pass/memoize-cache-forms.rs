// Every form of `cache = ...` the documentation gives, sync and async.
use std::sync::{Arc, LazyLock, OnceLock};

use codec::{Cache, StoreError};

static CACHE: LazyLock<Cache> = LazyLock::new(|| Cache::open("cache").unwrap());
static SHARED: LazyLock<Arc<Cache>> = LazyLock::new(|| Arc::new(Cache::open("cache").unwrap()));

fn cache() -> &'static Cache {
    static CELL: OnceLock<Cache> = OnceLock::new();
    CELL.get_or_init(|| Cache::open("cache").unwrap())
}

struct Ctx {
    cache: Cache,
}

#[codec::memoize(cache = CACHE, version = 1)]
fn a(x: u64) -> Result<u64, StoreError> {
    Ok(x)
}

#[codec::memoize(cache = SHARED)]
fn b(x: &[u8], mut y: String) -> Result<String, Box<dyn std::error::Error>> {
    y.push_str(std::str::from_utf8(x)?);
    Ok(y)
}

#[codec::memoize(cache = cache(), name = "c")]
pub(crate) async fn c<'a>(x: &'a str) -> Result<Vec<String>, StoreError> {
    Ok(vec![x.to_owned()])
}

#[codec::memoize(cache = ctx.cache, ignore(ctx))]
fn d(ctx: &Ctx, r#type: Option<u8>) -> Result<(), StoreError> {
    let _ = r#type;
    let _ = &ctx.cache;
    Ok(())
}

pub fn main() {
    let _ = (a, b, d);
    let _ = c("x");
}
