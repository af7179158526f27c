//! Memoized functions as users write them, where rustc and clippy look
//! closely at the body: one-expression bodies on one line (rustc's
//! `unused_braces` looks at one-line blocks only, so rustfmt must leave them
//! alone) and an argument the body does not use (clippy's
//! `used_underscore_binding`). No lint may fire on the generated code.

use codec::{Cache, StoreError};

/// A memoized function whose body is one expression.
///
/// # Errors
/// The cache's.
#[codec::memoize(cache = cache, ignore(cache))]
#[rustfmt::skip]
pub fn embed(cache: &Cache, text: &str) -> Result<Vec<u64>, StoreError> { Ok(vec![text.len() as u64]) }

/// A memoized function that returns no value, with an argument its body
/// does not use (still part of the key).
///
/// # Errors
/// The cache's.
#[codec::memoize(cache = cache, ignore(cache))]
#[rustfmt::skip]
pub fn touch(cache: &Cache, _key: &str) -> Result<(), StoreError> { Ok(()) }

/// A memoized function whose argument is a pattern.
///
/// # Errors
/// The cache's.
#[codec::memoize(cache = cache, ignore(cache))]
#[rustfmt::skip]
pub fn area(cache: &Cache, (w, h): (u32, u32)) -> Result<u32, StoreError> { Ok(w * h) }

/// A memoized `async fn` whose body is one expression.
///
/// # Errors
/// The cache's.
#[codec::memoize(cache = cache, ignore(cache))]
#[rustfmt::skip]
pub async fn sum(cache: &Cache, (a, b): (u32, u32)) -> Result<u32, StoreError> { Ok(a + b) }

/// A memoized function whose body has statements.
///
/// # Errors
/// The cache's.
#[codec::memoize(cache = cache, ignore(cache))]
#[rustfmt::skip]
pub fn twice(cache: &Cache, x: u32) -> Result<u32, StoreError> { let y = x * 2; Ok(y) }

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_bodies_run_once_per_key() {
        let dir = std::env::temp_dir().join(format!(
            "codec-shapes-memoize-bodies-{}-{}",
            std::process::id(),
            module_path!().len()
        ));
        let cache = Cache::open(&dir).unwrap();
        assert_eq!(embed(&cache, "four").unwrap(), [4]);
        touch(&cache, "k").unwrap();
        assert_eq!(area(&cache, (2, 3)).unwrap(), 6);
        assert_eq!(
            crate::shapes::memoize::ready(sum(&cache, (2, 3))).unwrap(),
            5
        );
        assert_eq!(twice(&cache, 4).unwrap(), 8);
        assert_eq!(cache.len().unwrap(), 5);
        drop(cache);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
