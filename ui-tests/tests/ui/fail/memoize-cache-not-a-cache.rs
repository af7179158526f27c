use codec::StoreError;

static CACHE: &str = "cache_dir";

#[codec::memoize(cache = CACHE)]
fn square(x: u64) -> Result<u64, StoreError> {
    Ok(x * x)
}

fn main() {}
