use std::sync::LazyLock;

static CACHE: LazyLock<codec::Cache> = LazyLock::new(|| codec::Cache::open("/tmp/x").unwrap());

// A state that is not a check of the previous state.
#[codec::memoize(cache = CACHE, state = 7u64)]
fn count(text: String) -> Result<usize, codec::StoreError> {
    Ok(text.len())
}

fn main() {}
