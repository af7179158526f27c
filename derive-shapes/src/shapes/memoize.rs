//! Memoized functions: `#[::codec::memoize]` in a module without the
//! prelude, with names the prelude has shadowed, and inside `macro_rules!`,
//! sync and async, under the crate's lints.

#![no_implicit_prelude]

/// Shadows the prelude's `Result`: generated code must not use it.
#[allow(dead_code)]
type Result = ();
/// Shadows the prelude's `Ok`.
#[allow(dead_code)]
struct Ok;

/// A value that is not part of the key.
#[derive(::core::fmt::Debug)]
pub struct Client {
    /// How many times the body ran.
    pub calls: ::core::cell::Cell<u32>,
}

/// A memoized function with an ignored argument.
///
/// # Errors
/// The cache's.
#[::codec::memoize(cache = cache, version = 2, ignore(cache, client))]
pub fn words(
    cache: &::codec::Cache,
    client: &Client,
    text: &str,
    limit: ::core::option::Option<u8>,
) -> ::core::result::Result<::std::vec::Vec<::std::string::String>, ::codec::StoreError> {
    client.calls.set(client.calls.get() + 1);
    let limit = <usize as ::core::convert::From<u8>>::from(limit.unwrap_or(u8::MAX));
    ::core::result::Result::Ok(::core::iter::Iterator::collect(
        ::core::iter::Iterator::take(
            ::core::iter::Iterator::map(text.split(' '), ::std::borrow::ToOwned::to_owned),
            limit,
        ),
    ))
}

/// A memoized `async fn`.
///
/// # Errors
/// The cache's.
#[::codec::memoize(cache = cache, name = "shapes.length", ignore(cache))]
pub async fn length(
    cache: &::codec::Cache,
    text: ::std::string::String,
) -> ::core::result::Result<u64, ::std::boxed::Box<dyn ::std::error::Error>> {
    ::core::result::Result::Ok(::core::convert::TryFrom::try_from(text.len())?)
}

macro_rules! memoized {
    ($name:ident, $arg:ident: $ty:ty) => {
        /// A memoized function declared by a macro.
        ///
        /// # Errors
        /// The cache's.
        #[::codec::memoize(cache = cache, ignore(cache))]
        pub fn $name(
            cache: &::codec::Cache,
            $arg: $ty,
        ) -> ::core::result::Result<$ty, ::codec::StoreError> {
            ::core::result::Result::Ok($arg)
        }
    };
}

memoized!(echo, value: i64);

/// Polls a future that never waits (the memoized shapes' bodies do not).
#[cfg(test)]
pub(crate) fn ready<F: ::core::future::Future>(future: F) -> F::Output {
    let mut future = ::core::pin::pin!(future);
    let mut cx = ::core::task::Context::from_waker(::core::task::Waker::noop());
    match future.as_mut().poll(&mut cx) {
        ::core::task::Poll::Ready(v) => v,
        ::core::task::Poll::Pending => ::core::panic!("the shape's body does not wait"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memoized_functions_compile_and_run_once_per_key() {
        let dir = ::std::env::temp_dir().join(::std::format!(
            "codec-shapes-memoize-{}-{}",
            ::std::process::id(),
            ::core::module_path!().len()
        ));
        let cache = ::codec::Cache::open(&dir).unwrap();
        let client = Client {
            calls: ::core::cell::Cell::new(0),
        };
        for _ in 0..2 {
            ::std::assert_eq!(
                words(&cache, &client, "a b c", ::core::option::Option::Some(2)).unwrap(),
                ["a", "b"]
            );
        }
        ::std::assert_eq!(client.calls.get(), 1);
        ::std::assert_eq!(
            ready(length(&cache, ::std::borrow::ToOwned::to_owned("four"))).unwrap(),
            4
        );
        ::std::assert_eq!(echo(&cache, -3).unwrap(), -3);
        ::std::assert_eq!(cache.len().unwrap(), 3);
        ::core::mem::drop(cache);
        ::std::fs::remove_dir_all(&dir).unwrap();
    }
}
