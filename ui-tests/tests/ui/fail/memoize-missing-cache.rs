use codec::StoreError;

#[codec::memoize(version = 2)]
fn square(x: u64) -> Result<u64, StoreError> {
    Ok(x * x)
}

fn main() {}
