//! Memo state: a state stored with a memoized value (a source's mtime, its
//! ETag, a content hash), checked on each call against the state of now,
//! so a value is kept, kept under a new state, or computed again, as
//! CocoIndex's `__coco_memo_state__` decides.

use codec_runtime::Codec;

use crate::cache::memo::Claimed;
use crate::cache::Cache;
use crate::error::StoreError;
use crate::options::PutOptions;

/// A value and the state it was computed under: a memo entry with state.
#[derive(codec_derive::Codec)]
#[codec(crate = "codec_runtime", name = "codec.Memo")]
struct Stated<S, T> {
    state: S,
    value: T,
}

/// What a memo's state check says of the value stored under a key, given
/// the state stored with it ([`Cache::get_or_try_insert_with_state`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MemoState<S> {
    /// The value stored holds, and so does its state: it is returned.
    Keep,
    /// The value stored holds under a new state (a file touched but not
    /// changed): the entry is stored again with this state, and the value
    /// is not computed again.
    KeepWith(S),
    /// The value stored is stale, or none is: the value is computed and
    /// stored with this state.
    Recompute(S),
}

impl Cache {
    /// [`Cache::get_or_try_insert_with`] with a state stored beside the
    /// value: `check` gets the state stored with the value under `key`
    /// (`None` if there is none, or none `S` and `T` can read) and says
    /// whether the value holds ([`MemoState`]); `make` computes it when it
    /// does not. A change of state that leaves the value good (a file's
    /// mtime changed, its content hash did not) stores the new state
    /// without computing the value again, so the next call compares with
    /// it.
    ///
    /// With no value stored, `check` must give the state to store it under
    /// (`Recompute`, or `KeepWith`, which then counts as `Recompute`);
    /// `Keep` is then an error naming the key. State and value are one
    /// entry, schema-checked as one: a change of `S` or `T` that breaks
    /// reading makes the entry a miss, as in `get_or_try_insert_with`.
    ///
    /// ```
    /// # fn main() -> Result<(), codec::StoreError> {
    /// # let dir = tempfile::tempdir().unwrap();
    /// use codec::store::MemoState;
    ///
    /// #[derive(codec::Codec, Clone, PartialEq)]
    /// struct Seen { mtime: u64, hash: String }
    ///
    /// let cache = codec::Cache::open(dir.path())?;
    /// // A file's words, counted again only when its content changed.
    /// let words = |mtime: u64, text: &str| {
    ///     cache.get_or_try_insert_with_state(
    ///         "words/notes.txt",
    ///         |seen: Option<&Seen>| {
    ///             if seen.is_some_and(|s| s.mtime == mtime) {
    ///                 return MemoState::Keep; // not touched: no hashing
    ///             }
    ///             let now = Seen { mtime, hash: format!("{:x}", text.len()) }; // a real hash here
    ///             match seen {
    ///                 Some(s) if s.hash == now.hash => MemoState::KeepWith(now), // touched only
    ///                 _ => MemoState::Recompute(now),
    ///             }
    ///         },
    ///         || Ok::<_, codec::StoreError>(text.split_whitespace().count()),
    ///     )
    /// };
    /// assert_eq!(words(1, "a b c")?, 3);
    /// assert_eq!(words(2, "a b c")?, 3); // touched: the state moves to mtime 2
    /// assert_eq!(words(3, "a b c d")?, 4); // changed: counted again
    /// # Ok(())
    /// # }
    /// ```
    pub fn get_or_try_insert_with_state<T, S, E>(
        &self,
        key: &str,
        check: impl FnOnce(Option<&S>) -> MemoState<S>,
        make: impl FnOnce() -> Result<T, E>,
    ) -> Result<T, E>
    where
        T: Codec + 'static,
        S: Codec + PartialEq + 'static,
        E: From<StoreError>,
    {
        self.memo_with_state(key, &self.put_options(), check, make)
    }

    /// [`Cache::get_or_try_insert_with_state`] for a computation that is a
    /// future, as [`Cache::get_or_try_insert_with_async`] is: a task that
    /// waits for another's computation of the key is woken, not blocked.
    ///
    /// ```
    /// # fn main() -> Result<(), codec::StoreError> {
    /// # let dir = tempfile::tempdir().unwrap();
    /// # fn block_on<F: std::future::Future>(f: F) -> F::Output {
    /// #     let mut f = std::pin::pin!(f);
    /// #     let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    /// #     loop { if let std::task::Poll::Ready(v) = f.as_mut().poll(&mut cx) { return v; } }
    /// # }
    /// use codec::store::MemoState;
    /// let cache = codec::Cache::open(dir.path())?;
    /// async fn fetch(etag: &str) -> Result<String, codec::StoreError> { Ok(format!("body {etag}")) }
    /// let page = |etag: &'static str| {
    ///     cache.get_or_try_insert_with_state_async(
    ///         "page/1",
    ///         move |seen: Option<&String>| match seen {
    ///             Some(seen) if seen == etag => MemoState::Keep,
    ///             _ => MemoState::Recompute(etag.to_owned()),
    ///         },
    ///         move || fetch(etag),
    ///     )
    /// };
    /// assert_eq!(block_on(page("e1"))?, "body e1");
    /// assert_eq!(block_on(page("e1"))?, "body e1");
    /// assert_eq!(block_on(page("e2"))?, "body e2");
    /// # Ok(())
    /// # }
    /// ```
    pub async fn get_or_try_insert_with_state_async<T, S, E, F>(
        &self,
        key: &str,
        check: impl FnOnce(Option<&S>) -> MemoState<S>,
        make: impl FnOnce() -> F,
    ) -> Result<T, E>
    where
        T: Codec + Send + 'static,
        S: Codec + PartialEq + Send + 'static,
        E: From<StoreError>,
        F: std::future::Future<Output = Result<T, E>>,
    {
        let options = self.put_options();
        match self.check_memo_state(key, &options, check)? {
            Checked::Kept(value) => Ok(value),
            Checked::Stale(state) => {
                self.compute_with_state_async(key, &options, state, make)
                    .await
            }
        }
    }

    /// [`Cache::compute_with_state`] for a computation that is a future.
    pub(crate) async fn compute_with_state_async<T, S, E, F>(
        &self,
        key: &str,
        options: &PutOptions,
        state: S,
        make: impl FnOnce() -> F,
    ) -> Result<T, E>
    where
        T: Codec + Send + 'static,
        S: Codec + PartialEq + Send + 'static,
        E: From<StoreError>,
        F: std::future::Future<Output = Result<T, E>>,
    {
        crate::cache::keys::check_key(key)?;
        let fresh = |stored: &Stated<S, T>| stored.state == state;
        let flight = self.memo.enter_async(key).await;
        let _claim = match self.claim_async(key, flight, fresh).await? {
            Claimed::Stored(stored) => return Ok(stored.value),
            Claimed::Compute(claim) => claim,
        };
        let value = make().await?;
        let stored = self
            .put_async(key, Stated { state, value }, options)
            .await?;
        self.computed(key);
        Ok(stored.value)
    }

    /// [`Cache::get_or_try_insert_with_state`], storing as
    /// [`Cache::put_with`] does with `options` (`#[codec::memoize(ttl)]`).
    pub(crate) fn memo_with_state<T, S, E>(
        &self,
        key: &str,
        options: &PutOptions,
        check: impl FnOnce(Option<&S>) -> MemoState<S>,
        make: impl FnOnce() -> Result<T, E>,
    ) -> Result<T, E>
    where
        T: Codec + 'static,
        S: Codec + PartialEq + 'static,
        E: From<StoreError>,
    {
        match self.check_memo_state(key, options, check)? {
            Checked::Kept(value) => Ok(value),
            Checked::Stale(state) => self.compute_with_state(key, options, state, make),
        }
    }

    /// The first half of [`Cache::memo_with_state`]: the state check, and
    /// what it keeps. Apart from the computation, so that a memoized
    /// function's check, which borrows its arguments, is over before its
    /// body takes them.
    pub(crate) fn check_memo_state<T, S>(
        &self,
        key: &str,
        options: &PutOptions,
        check: impl FnOnce(Option<&S>) -> MemoState<S>,
    ) -> Result<Checked<T, S>, StoreError>
    where
        T: Codec + 'static,
        S: Codec + PartialEq + 'static,
    {
        let stored = self.memo_get::<Stated<S, T>>(key)?.hit();
        Ok(match (check(stored.as_ref().map(|s| &s.state)), stored) {
            (MemoState::Keep, Some(stored)) => Checked::Kept(stored.value),
            (MemoState::KeepWith(state), Some(stored)) => {
                let kept = Stated {
                    state,
                    value: stored.value,
                };
                self.put_with(key, &kept, options)?;
                Checked::Kept(kept.value)
            }
            (MemoState::Keep, None) => {
                return Err(StoreError::Custom {
                    message: format!(
                        "the state check of memo `{key}` kept a value where none is stored: \
                         with no state (`None`), return `MemoState::Recompute(state)`"
                    ),
                });
            }
            (MemoState::KeepWith(state) | MemoState::Recompute(state), _) => Checked::Stale(state),
        })
    }

    /// The second half of [`Cache::memo_with_state`]: `make`'s value,
    /// stored with `state`, unless another caller stored one under
    /// `state` meanwhile.
    pub(crate) fn compute_with_state<T, S, E>(
        &self,
        key: &str,
        options: &PutOptions,
        state: S,
        make: impl FnOnce() -> Result<T, E>,
    ) -> Result<T, E>
    where
        T: Codec + 'static,
        S: Codec + PartialEq + 'static,
        E: From<StoreError>,
    {
        crate::cache::keys::check_key(key)?;
        // Another caller may have computed it under this state meanwhile.
        let fresh = |stored: &Stated<S, T>| stored.state == state;
        let _claim = match self.claim(key, self.memo.enter(key), fresh)? {
            Claimed::Stored(stored) => return Ok(stored.value),
            Claimed::Compute(claim) => claim,
        };
        let value = make()?;
        let stored = Stated { state, value };
        self.put_with(key, &stored, options)?;
        self.computed(key);
        Ok(stored.value)
    }
}

/// What a memo's state check decided.
pub(crate) enum Checked<T, S> {
    /// The value stored, kept.
    Kept(T),
    /// The value must be computed, and stored under this state.
    Stale(S),
}
