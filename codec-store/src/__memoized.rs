//! What the functions `#[codec::memoize]` writes call: the key of a call,
//! and the memo of [`Cache`]. Not a public interface.

use std::future::Future;
use std::time::Duration;

use crate::cache::Cache;
use crate::error::StoreError;
use crate::options::PutOptions;
use codec_runtime::Codec;
use codec_runtime::ContentHash;
use codec_runtime::Encode;

/// The key of one call: `<function>/v<version>/<content hash of the arguments>`.
pub fn key(name: &str, version: u64, args: ContentHash) -> Result<String, StoreError> {
    Ok(format!("{name}/v{version}/{}", args.finish()?))
}

/// An argument the key hashes: any [`Encode`] value. A trait of its own for
/// the message, which names the way out a memoized function has.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no codec encoding, so a memoized function cannot hash it into its key",
    label = "`{Self}` does not implement `Codec`",
    note = "if `{Self}` is from uuid, chrono, rust_decimal, ndarray, num-complex or arrow, enable codec's feature of that name (`decimal` for rust_decimal) in Cargo.toml: `codec = {{ version = \"..\", features = [\"chrono\"] }}` for chrono",
    note = "else add #[derive(Codec)] to `{Self}` (or implement `Codec` for it); or, if the result does not depend on this argument, leave it out of the key: #[codec::memoize(.., ignore(<the argument>))], or key on what it depends on: #[codec::memoize(.., key = (&arg.field, ..))]"
)]
pub trait Arg: Encode {}

impl<T: Encode + ?Sized> Arg for T {}

/// Adds an argument to the hash of a call's arguments.
#[inline]
pub fn part<T: Arg + ?Sized>(hash: ContentHash, value: &T) -> ContentHash {
    hash.part(value)
}

/// The error of a memoized function: it holds the store's errors. A trait
/// of its own for the message.
#[diagnostic::on_unimplemented(
    message = "the error of a memoized function must hold the cache's errors: `{Self}` does not implement `From<codec::StoreError>`",
    label = "`{Self}` does not convert from `codec::StoreError`",
    note = "implement `From<codec::StoreError>` for `{Self}` (thiserror: a variant with `#[from] codec::StoreError`), or return `Result<T, codec::StoreError>`, `Box<dyn Error>` or `anyhow::Error`"
)]
pub trait Error: From<StoreError> {}

impl<E: From<StoreError>> Error for E {}

/// What a memoized function returns: a `Result`. Its value must be
/// [`Codec`] and its error an [`Error`], bounds [`call`] states apart so
/// that each unmet one has its own message.
#[diagnostic::on_unimplemented(
    message = "a memoized function returns `Result<T, E>` with `T: Codec` and `E: From<codec::StoreError>`, not `{Self}`",
    label = "the cache's reads and writes can fail: return a `Result`",
    note = "return `Result<T, codec::StoreError>`, or `Result<T, E>` with an error that converts from `codec::StoreError` (`Box<dyn Error>`, `anyhow::Error`, an enum with a `From<codec::StoreError>` impl); only `Ok` values are stored"
)]
pub trait Output: Sized {
    /// The value stored.
    type Value;
    /// The error.
    type Error;
    /// `self` as the `Result` it is.
    fn into_result(self) -> Result<Self::Value, Self::Error>;
    /// The `Result` as `Self`.
    fn from_result(result: Result<Self::Value, Self::Error>) -> Self;
}

impl<T, E> Output for Result<T, E> {
    type Value = T;
    type Error = E;

    #[inline]
    fn into_result(self) -> Self {
        self
    }

    #[inline]
    fn from_result(result: Self) -> Self {
        result
    }
}

/// A time to live a memoized function's entries get (`ttl = "1h"`, `ttl
/// = Duration::from_secs(60)`). A trait of its own for the message.
#[diagnostic::on_unimplemented(
    message = "`ttl = ..` takes a `std::time::Duration` or a text like \"90s\", \"15m\", \"1h\", \"7d\", not `{Self}`",
    label = "not a `Duration`",
    note = "write the time to live as text, ttl = \"1h\", or as a `Duration`: ttl = std::time::Duration::from_secs(3600)"
)]
pub trait Ttl {
    /// The duration.
    fn duration(&self) -> Duration;
}

impl Ttl for Duration {
    #[inline]
    fn duration(&self) -> Duration {
        *self
    }
}

/// The put options of a memoized function's entries: a time to live, or none.
#[inline]
pub fn options<D: Ttl>(cache: &Cache, ttl: Option<D>) -> PutOptions {
    let options = cache.put_options();
    match ttl {
        Some(ttl) => options.ttl(ttl.duration()),
        None => options,
    }
}

/// A memoized call: [`Cache::get_or_try_insert_with_options`] under `key`.
pub fn call<R: Output>(
    cache: &Cache,
    key: Result<String, StoreError>,
    options: PutOptions,
    make: impl FnOnce() -> R,
) -> R
where
    R::Value: Codec + 'static,
    R::Error: Error,
{
    R::from_result(match key {
        Ok(key) => cache.get_or_try_insert_with_options(&key, &options, || make().into_result()),
        Err(e) => Err(e.into()),
    })
}

/// What a memoized call with a state (`state = ..`) decided before its
/// computation: the first half of [`Cache::get_or_try_insert_with_state`],
/// done while the check borrows the arguments. It holds the key, for the
/// computation.
pub struct Checked<T, S>(Result<(String, crate::cache::memo_state::Checked<T, S>), StoreError>);

impl<T, S> Checked<T, S> {
    /// The value kept, or the key and the state to compute it under.
    fn decided(self) -> Result<Result<T, (String, S)>, StoreError> {
        use crate::cache::memo_state::Checked as Decided;
        let (key, decided) = self.0?;
        Ok(match decided {
            Decided::Kept(value) => Ok(value),
            Decided::Stale(state) => Err((key, state)),
        })
    }
}

/// The state check of a memoized call under `key`.
pub fn check_state<R: Output, S, C>(
    cache: &Cache,
    key: Result<String, StoreError>,
    options: &PutOptions,
    check: C,
) -> Checked<R::Value, S>
where
    R::Value: Codec + 'static,
    S: Codec + PartialEq + 'static,
    C: FnOnce(Option<&S>) -> crate::MemoState<S>,
{
    Checked(key.and_then(|key| {
        let decided = cache.check_memo_state(&key, options, check)?;
        Ok((key, decided))
    }))
}

/// The rest of a memoized call with a state: the value kept, or computed
/// and stored under the state the check gave.
pub fn call_checked<R: Output, S>(
    cache: &Cache,
    options: PutOptions,
    checked: Checked<R::Value, S>,
    make: impl FnOnce() -> R,
) -> R
where
    R::Value: Codec + 'static,
    R::Error: Error,
    S: Codec + PartialEq + 'static,
{
    R::from_result(match checked.decided() {
        Err(e) => Err(e.into()),
        Ok(Ok(value)) => Ok(value),
        Ok(Err((key, state))) => {
            cache.compute_with_state(&key, &options, state, || make().into_result())
        }
    })
}

/// [`call_checked`] for an `async` function.
pub async fn call_checked_async<R: Output, S, F: Future<Output = R>>(
    cache: &Cache,
    options: PutOptions,
    checked: Checked<R::Value, S>,
    make: impl FnOnce() -> F,
) -> R
where
    R::Value: Codec + Send + 'static,
    R::Error: Error,
    S: Codec + PartialEq + Send + 'static,
{
    R::from_result(match checked.decided() {
        Err(e) => Err(e.into()),
        Ok(Ok(value)) => Ok(value),
        Ok(Err((key, state))) => {
            let make = || async { make().await.into_result() };
            cache
                .compute_with_state_async(&key, &options, state, make)
                .await
        }
    })
}

/// A memoized `async` call: [`Cache::get_or_try_insert_with_async`] under `key`.
pub async fn call_async<R: Output, F: Future<Output = R>>(
    cache: &Cache,
    key: Result<String, StoreError>,
    options: PutOptions,
    make: impl FnOnce() -> F,
) -> R
where
    R::Value: Codec + Send + 'static,
    R::Error: Error,
{
    R::from_result(match key {
        Ok(key) => {
            cache
                .get_or_try_insert_with_options_async(&key, &options, || async {
                    make().await.into_result()
                })
                .await
        }
        Err(e) => Err(e.into()),
    })
}
