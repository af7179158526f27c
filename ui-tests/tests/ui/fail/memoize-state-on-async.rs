use std::sync::LazyLock;

static CACHE: LazyLock<codec::Cache> = LazyLock::new(|| codec::Cache::open("/tmp/x").unwrap());

// A state check on an `async` function: refused, with the way out.
#[codec::memoize(cache = CACHE, state = |_prev: Option<&u64>| codec::store::MemoState::Recompute(1u64))]
async fn fetch(url: String) -> Result<String, codec::StoreError> {
    Ok(url)
}

fn main() {}
