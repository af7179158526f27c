//! Memoization: [`Cache::get_or_insert_with`] and
//! [`Cache::get_or_try_insert_with`].
//!
//! - An entry today's type cannot read (a breaking change of the type,
//!   damaged data) is a miss: the value is computed again and overwrites
//!   it, and a warning goes to [`Cache::warnings`] and to the `log` crate.
//!   [`CacheOptions::memo_strict`](crate::CacheOptions::memo_strict)
//!   returns the error instead.
//! - One computation per key at a time: callers of a key that is being
//!   computed by another thread of the same handle wait for it and get its
//!   value (single flight). With
//!   [`CacheOptions::memo_lock`](crate::CacheOptions::memo_lock), the same
//!   holds across handles, processes and machines, through a lock per key:
//!   a locked file where the backend has file locks (a folder), else a
//!   lease (`lease.rs`).
//! - [`Cache::get_or_try_insert_with_async`] is the same for a computation
//!   that is a future: a task waiting for another one's computation of its
//!   key is woken, not blocked; on object storage the store's requests
//!   (the read, the lease, the put) run on threads of their own
//!   ([`Cache::io`]), so the thread polling the task runs others meanwhile.

use parking_lot::{Condvar, Mutex};
use std::collections::HashSet;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use sha2::{Digest, Sha256};

use crate::backend::{Lock, Locking, Locks};
use crate::cache::lease::{self, Leases, Watch};
use crate::cache::Cache;
use crate::error::StoreError;
use crate::layout;
use crate::options::PutOptions;
use codec_runtime::Codec;
use codec_runtime::EnvelopeError;

/// Groups of recomputed entries kept for [`Cache::warnings`]; entries of
/// later groups go to `log` only.
const MAX_WARNINGS: usize = 1000;

/// The keys a warning names of its group; it counts the others.
const KEYS_SHOWN: usize = 3;

/// How long a caller waiting for another's lease pauses first; the pause
/// doubles, up to [`LAST_PAUSE`] (or a quarter of the lease).
const FIRST_PAUSE: Duration = Duration::from_millis(10);

/// The longest pause between two looks of a caller waiting for a lease.
const LAST_PAUSE: Duration = Duration::from_secs(1);

/// The pause after `pause` of a caller waiting for a lease of `lease`:
/// twice as long, up to [`LAST_PAUSE`] and a quarter of the lease, so
/// that a short lease is looked at several times before it expires.
fn next_pause(pause: Duration, lease: Duration) -> Duration {
    (pause * 2).min(LAST_PAUSE).min(lease / 4)
}

/// The memo state of one handle: keys being computed, and warnings.
#[derive(Default)]
pub(crate) struct Memo {
    computing: Mutex<Computing>,
    done: Condvar,
    warnings: Mutex<Vec<Recomputed>>,
    /// With `memo_recompute`: the keys this handle computed again.
    recomputed: Mutex<std::collections::HashSet<String>>,
}

/// Entries of one type recomputed for one reason (a schema change, damaged
/// data): one warning, however many entries.
struct Recomputed {
    type_name: String,
    /// Why they could not be read, without their keys: the schema change
    /// and its fix, or the first entry's error for other reasons.
    cause: String,
    /// What tells the group apart: the schema change, or the kind of error.
    group: Group,
    keys: Vec<String>,
    count: usize,
}

/// What entries of one type have in common to share a warning.
#[derive(PartialEq)]
enum Group {
    /// The same schema change (the writer's fingerprint and the changes),
    /// and whether the stored type is the same type, changed (rather than
    /// another type).
    Schema(String, bool),
    /// The same kind of error (damaged data, a missing file).
    Other(std::mem::Discriminant<StoreError>),
}

impl Recomputed {
    fn message(&self) -> String {
        let mut keys: Vec<String> = self.keys.iter().map(|k| format!("`{k}`")).collect();
        if self.count > self.keys.len() {
            keys.push(format!("{} more", self.count - self.keys.len()));
        }
        let entries = match self.count {
            1 => "1 entry".to_owned(),
            n => format!("{n} entries"),
        };
        let were = if self.count == 1 { "was" } else { "were" };
        let advice = match &self.group {
            Group::Schema(_, true) => {
                "\nfor a memo: to recompute without this warning, raise the version \
                 (#[codec::memoize(version = N)], or a version in the key); \
                 to reuse the stored values instead, make the change compatible (the fix above)"
            }
            Group::Schema(_, false) => {
                "\nfor a memo: its keys hold values of another type; raise the version \
                 (#[codec::memoize(version = N)], or a version in the key) so that they differ"
            }
            Group::Other(_) => "",
        };
        format!(
            "{entries} ({}) could not be read as `{}` and {were} computed again: {}{advice}",
            keys.join(", "),
            self.type_name,
            self.cause,
        )
    }
}

impl Memo {
    /// One warning per group of entries recomputed for the same reason.
    pub(crate) fn warnings(&self) -> Vec<String> {
        let groups = self.warnings.lock();
        groups.iter().map(Recomputed::message).collect()
    }

    /// Counts `key` in its group; the group's message when it is new.
    fn recomputed(&self, type_name: &str, key: &str, e: &StoreError) -> Option<String> {
        let (group, cause) = match e {
            StoreError::Schema { refusal, .. } => {
                let cause = refusal.to_string();
                let changed = !matches!(refusal, EnvelopeError::WrongType { .. });
                (Group::Schema(cause.clone(), changed), cause)
            }
            other => (
                Group::Other(std::mem::discriminant(other)),
                other.to_string(),
            ),
        };
        let mut groups = self.warnings.lock();
        if let Some(g) = groups
            .iter_mut()
            .find(|g| g.type_name == type_name && g.group == group)
        {
            g.count += 1;
            if g.keys.len() < KEYS_SHOWN {
                g.keys.push(key.to_owned());
            }
            return None;
        }
        let new = Recomputed {
            type_name: type_name.to_owned(),
            cause,
            group,
            keys: vec![key.to_owned()],
            count: 1,
        };
        let message = new.message();
        if groups.len() < MAX_WARNINGS {
            groups.push(new);
        }
        Some(message)
    }
}

/// The keys being computed, and the tasks waiting for one of them to end.
#[derive(Default)]
struct Computing {
    keys: HashSet<String>,
    wakers: Vec<Waker>,
}

/// A key being computed by this thread; dropping it (also on a panic of
/// the computation) lets the next waiting caller in.
pub(crate) struct Flight<'a> {
    memo: &'a Memo,
    key: &'a str,
}

impl Memo {
    /// Waits until no other thread computes `key`, then claims it.
    pub(crate) fn enter<'a>(&'a self, key: &'a str) -> Flight<'a> {
        let mut computing = self.computing.lock();
        while computing.keys.contains(key) {
            self.done.wait(&mut computing);
        }
        computing.keys.insert(key.to_owned());
        Flight { memo: self, key }
    }

    /// [`Memo::enter`] for a task: waits without blocking its thread.
    pub(crate) fn enter_async<'a>(&'a self, key: &'a str) -> Enter<'a> {
        Enter { memo: self, key }
    }
}

/// The future of [`Memo::enter_async`].
pub(crate) struct Enter<'a> {
    memo: &'a Memo,
    key: &'a str,
}

impl<'a> Future for Enter<'a> {
    type Output = Flight<'a>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Flight<'a>> {
        let (memo, key) = (self.memo, self.key);
        let mut computing = memo.computing.lock();
        if computing.keys.contains(key) {
            // Registered under the lock the flight's end takes: no wake is lost.
            if !computing.wakers.iter().any(|w| w.will_wake(cx.waker())) {
                computing.wakers.push(cx.waker().clone());
            }
            return Poll::Pending;
        }
        computing.keys.insert(key.to_owned());
        Poll::Ready(Flight { memo, key })
    }
}

impl Drop for Flight<'_> {
    fn drop(&mut self) {
        let wakers = {
            let mut computing = self.memo.computing.lock();
            computing.keys.remove(self.key);
            std::mem::take(&mut computing.wakers)
        };
        self.memo.done.notify_all();
        // Every waiting task polls again; those of other keys wait anew.
        wakers.into_iter().for_each(Waker::wake);
    }
}

/// The right to compute a key: its flight, and its lock (a locked file, a
/// lease) with [`CacheOptions::memo_lock`](crate::CacheOptions::memo_lock).
pub(crate) struct Claim<'a> {
    _lock: Option<Lock>,
    _flight: Flight<'a>,
}

/// What a caller holding a key's flight finds.
pub(crate) enum Claimed<'a, T> {
    /// Another caller stored the value meanwhile.
    Stored(T),
    Compute(Claim<'a>),
}

/// What a caller waiting for a key's lease gets.
enum Leased<T> {
    /// The value, stored by the lease's holder.
    Stored(T),
    Taken(Lock),
}

/// What a memo found under a key.
pub(crate) enum Lookup<T> {
    Hit(T),
    Miss,
    /// An entry `T` cannot read: computed again, with a warning.
    Unreadable(StoreError),
}

impl<T> Lookup<T> {
    pub(crate) fn hit(self) -> Option<T> {
        match self {
            Lookup::Hit(v) => Some(v),
            _ => None,
        }
    }
}

/// How a memo reads the values of its key and names their type in a
/// warning: as a Rust type ([`Typed`]), or as a type another language
/// declared ([`DeclaredType`](crate::DeclaredType)), whose values are
/// their bytes.
pub(crate) trait MemoRead {
    type Value;
    /// The value under `key`, as [`Cache::get`] reads it.
    fn read(&self, cache: &Cache, key: &str) -> Result<Option<Self::Value>, StoreError>;
    /// The type's wire name.
    fn type_name(&self) -> std::borrow::Cow<'_, str>;
}

/// The values of Rust type `T`.
pub(crate) struct Typed<T>(std::marker::PhantomData<fn() -> T>);

impl<T> Typed<T> {
    pub(crate) fn new() -> Self {
        Typed(std::marker::PhantomData)
    }
}

impl<T: Codec + 'static> MemoRead for Typed<T> {
    type Value = T;
    fn read(&self, cache: &Cache, key: &str) -> Result<Option<T>, StoreError> {
        cache.get::<T>(key)
    }
    fn type_name(&self) -> std::borrow::Cow<'_, str> {
        codec_runtime::schema::wire_name::<T>()
    }
}

impl Cache {
    /// The value under `key`, computing and storing it with `make` if
    /// absent; an error of `make` is returned as is, and nothing is stored.
    ///
    /// An entry that cannot be read as `T` (written before a breaking change
    /// of `T`, or damaged) counts as absent: it is computed again and
    /// overwritten, with a warning in [`Cache::warnings`] (unless
    /// [`CacheOptions::memo_strict`](crate::CacheOptions::memo_strict)).
    /// Concurrent callers of one key wait for the first one's computation
    /// and get its value; so `make` must not ask this handle for the same
    /// key (it would wait for itself).
    ///
    /// ```
    /// # fn main() -> Result<(), codec::StoreError> {
    /// # let dir = tempfile::tempdir().unwrap();
    /// let cache = codec::Cache::open(dir.path())?;
    /// let parse = |text: &str| -> Result<u32, codec::StoreError> {
    ///     cache.get_or_try_insert_with(text, || {
    ///         text.parse().map_err(|e| codec::StoreError::Custom { message: format!("{e}") })
    ///     })
    /// };
    /// assert_eq!(parse("42")?, 42);
    /// assert!(parse("forty").is_err());
    /// assert!(!cache.contains("forty")?);
    /// # Ok(())
    /// # }
    /// ```
    pub fn get_or_try_insert_with<T: Codec + 'static, E: From<StoreError>>(
        &self,
        key: &str,
        make: impl FnOnce() -> Result<T, E>,
    ) -> Result<T, E> {
        self.get_or_try_insert_with_options(key, &self.put_options(), make)
    }

    /// [`Cache::get_or_try_insert_with`], storing the value computed as
    /// [`Cache::put_with`] does with `options`: with a time to live, say.
    /// An expired entry is a miss.
    ///
    /// ```
    /// # fn main() -> Result<(), codec::StoreError> {
    /// # let dir = tempfile::tempdir().unwrap();
    /// use std::time::Duration;
    /// let cache = codec::Cache::open(dir.path())?;
    /// let hourly = codec::PutOptions::default().ttl(Duration::from_secs(3600));
    /// let rate: f64 = cache.get_or_try_insert_with_options("rate/eur", &hourly, || {
    ///     Ok::<_, codec::StoreError>(1.08) // fetched again once the hour is over
    /// })?;
    /// # assert_eq!(rate, 1.08);
    /// # Ok(())
    /// # }
    /// ```
    pub fn get_or_try_insert_with_options<T: Codec + 'static, E: From<StoreError>>(
        &self,
        key: &str,
        options: &PutOptions,
        make: impl FnOnce() -> Result<T, E>,
    ) -> Result<T, E> {
        self.memo_by(&Typed::<T>::new(), key, make, |value| {
            self.put_with(key, &value, options).map(|()| value)
        })
    }

    /// The memo of the values `reader` reads: the value under `key`, or
    /// the one `make` computes, which `store` writes and gives back as
    /// `reader` would read it.
    pub(crate) fn memo_by<R: MemoRead, V, E: From<StoreError>>(
        &self,
        reader: &R,
        key: &str,
        make: impl FnOnce() -> Result<V, E>,
        store: impl FnOnce(V) -> Result<R::Value, StoreError>,
    ) -> Result<R::Value, E> {
        if let Some(v) = self.memo_get_by(reader, key)?.hit() {
            return Ok(v);
        }
        // Before the computation, which a key the cache refuses would waste.
        crate::cache::keys::check_key(key)?;
        let _claim = match self.claim_by(reader, key, self.memo.enter(key), |_| true)? {
            Claimed::Stored(v) => return Ok(v),
            Claimed::Compute(claim) => claim,
        };
        let value = store(make()?)?;
        self.computed(key);
        Ok(value)
    }

    /// [`Cache::get_or_try_insert_with`] for a computation that is a future,
    /// without an async runtime: a task waiting for another task's (or
    /// thread's) computation of the same key is woken when it ends, not
    /// blocked; so is one waiting for another handle's or process's lock or
    /// lease with [`CacheOptions::memo_lock`](crate::CacheOptions::memo_lock)
    /// (it tries again after pauses that a thread of their own ends, and
    /// the executor runs other tasks meanwhile). On a backend without
    /// memory maps (object storage) the store's requests, the read, the
    /// lease's and the put, run on a thread of their own each, awaited the
    /// same way, so a slow put does not hold up the thread that polls; in
    /// a folder they run in place, as reads of the page cache and appends
    /// to open files (a hit costs about a microsecond). `T` is `Send` to
    /// cross to that thread.
    ///
    /// ```
    /// # fn main() -> Result<(), codec::StoreError> {
    /// # let dir = tempfile::tempdir().unwrap();
    /// # fn block_on<F: std::future::Future>(f: F) -> F::Output {
    /// #     let mut f = std::pin::pin!(f);
    /// #     let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    /// #     loop { if let std::task::Poll::Ready(v) = f.as_mut().poll(&mut cx) { return v; } }
    /// # }
    /// let cache = codec::Cache::open(dir.path())?;
    /// async fn fetch(id: u32) -> Result<String, codec::StoreError> { Ok(format!("page {id}")) }
    /// let page = block_on(cache.get_or_try_insert_with_async("page/7", || fetch(7)))?;
    /// assert_eq!(page, "page 7");
    /// assert_eq!(cache.get::<String>("page/7")?.as_deref(), Some("page 7"));
    /// # Ok(())
    /// # }
    /// ```
    pub async fn get_or_try_insert_with_async<T, E, F>(
        &self,
        key: &str,
        make: impl FnOnce() -> F,
    ) -> Result<T, E>
    where
        T: Codec + Send + 'static,
        E: From<StoreError>,
        F: Future<Output = Result<T, E>>,
    {
        let options = self.put_options();
        self.get_or_try_insert_with_options_async(key, &options, make)
            .await
    }

    /// [`Cache::get_or_try_insert_with_async`], storing the value computed
    /// as [`Cache::put_with`] does with `options`.
    pub async fn get_or_try_insert_with_options_async<T, E, F>(
        &self,
        key: &str,
        options: &PutOptions,
        make: impl FnOnce() -> F,
    ) -> Result<T, E>
    where
        T: Codec + Send + 'static,
        E: From<StoreError>,
        F: Future<Output = Result<T, E>>,
    {
        if let Some(v) = self.memo_get_async::<T>(key).await?.hit() {
            return Ok(v);
        }
        // Before the computation, which a key the cache refuses would waste.
        crate::cache::keys::check_key(key)?;
        let flight = self.memo.enter_async(key).await;
        let _claim = match self.claim_async(key, flight, |_| true).await? {
            Claimed::Stored(v) => return Ok(v),
            Claimed::Compute(claim) => claim,
        };
        let value = make().await?;
        let value = self.put_async(key, value, options).await?;
        self.computed(key);
        Ok(value)
    }

    /// `work` with a handle on this store, for an async caller: on a
    /// thread of its own where the backend has no memory maps (object
    /// storage, whose every call is a request over the network), so the
    /// thread polling the caller runs its other tasks meanwhile. In place
    /// on a folder, whose reads are of the page cache and whose writes
    /// append to files the handle holds open: a thread would cost more
    /// than they do.
    pub(crate) async fn io<R: Send + 'static>(
        &self,
        work: impl FnOnce(&Cache) -> R + Send + 'static,
    ) -> R {
        if self.backend.maps().is_some() {
            return work(self);
        }
        let cache = self.for_background();
        on_thread(move || work(&cache)).await
    }

    /// [`Cache::memo_get`] through [`Cache::io`].
    pub(crate) async fn memo_get_async<T: Codec + Send + 'static>(
        &self,
        key: &str,
    ) -> Result<Lookup<T>, StoreError> {
        let key = key.to_owned();
        self.io(move |cache| cache.memo_get::<T>(&key)).await
    }

    /// [`Cache::memo_get`] after reading what other handles wrote, through
    /// [`Cache::io`].
    async fn refreshed_memo_get_async<T: Codec + Send + 'static>(
        &self,
        key: &str,
    ) -> Result<Lookup<T>, StoreError> {
        let key = key.to_owned();
        self.io(move |cache| {
            cache.refresh()?;
            cache.memo_get::<T>(&key)
        })
        .await
    }

    /// [`Cache::put_with`] through [`Cache::io`]; gives `value` back.
    pub(crate) async fn put_async<T: Codec + Send + 'static>(
        &self,
        key: &str,
        value: T,
        options: &PutOptions,
    ) -> Result<T, StoreError> {
        let (key, options) = (key.to_owned(), options.clone());
        self.io(move |cache| cache.put_with(&key, &value, &options).map(|()| value))
            .await
    }

    /// With `key`'s flight held: its lock if the handle takes them (a
    /// locked file, else a lease), then the value if another caller stored
    /// it while this one waited (one that is `fresh`: a value with state
    /// found stale is not the one another caller stored).
    pub(crate) fn claim<'a, T: Codec + 'static>(
        &self,
        key: &str,
        flight: Flight<'a>,
        fresh: impl Fn(&T) -> bool,
    ) -> Result<Claimed<'a, T>, StoreError> {
        self.claim_by(&Typed::<T>::new(), key, flight, fresh)
    }

    /// [`Cache::claim`] of the values `reader` reads.
    pub(crate) fn claim_by<'a, R: MemoRead>(
        &self,
        reader: &R,
        key: &str,
        flight: Flight<'a>,
        fresh: impl Fn(&R::Value) -> bool,
    ) -> Result<Claimed<'a, R::Value>, StoreError> {
        let lock = match (self.options.memo_lock, self.backend.locks()) {
            (false, _) => None,
            (true, Some(locks)) => Some(key_lock(locks, key)?),
            (true, None) => match self.key_lease(reader, key, &fresh)? {
                Leased::Stored(v) => return Ok(Claimed::Stored(v)),
                Leased::Taken(lease) => Some(lease),
            },
        };
        self.claimed(reader, key, flight, lock, fresh)
    }

    /// The end of a claim, with `key`'s flight and its lock (if taken):
    /// the value if another caller stored it meanwhile, else the right to
    /// compute it.
    fn claimed<'a, R: MemoRead>(
        &self,
        reader: &R,
        key: &str,
        flight: Flight<'a>,
        lock: Option<Lock>,
        fresh: impl Fn(&R::Value) -> bool,
    ) -> Result<Claimed<'a, R::Value>, StoreError> {
        if lock.is_some() {
            // Another process may have stored the value while we waited.
            self.refresh()?;
        }
        match self.memo_get_by(reader, key)? {
            Lookup::Hit(v) if fresh(&v) => return Ok(Claimed::Stored(v)),
            Lookup::Hit(_) | Lookup::Miss => {}
            Lookup::Unreadable(e) => self.warn_recomputed(&reader.type_name(), key, &e),
        }
        Ok(Claimed::Compute(Claim {
            _lock: lock,
            _flight: flight,
        }))
    }

    /// Takes the lease of `key`, waiting while another holds it, unless
    /// the value is stored meanwhile: a waiting caller looks for it
    /// between its tries, so it returns as soon as the holder's put lands.
    fn key_lease<R: MemoRead>(
        &self,
        reader: &R,
        key: &str,
        fresh: &impl Fn(&R::Value) -> bool,
    ) -> Result<Leased<R::Value>, StoreError> {
        let duration = self.options.memo_lease;
        let leases = Leases::new(self.backend.clone(), duration);
        let (name, holder) = (key_lock_name(key), lease::holder(&self.writer_id));
        let mut watch = Watch::default();
        let mut pause = FIRST_PAUSE;
        loop {
            if let Some(lease) = leases.try_take(&name, &holder, &mut watch)? {
                return Ok(Leased::Taken(Lock::new(lease)));
            }
            std::thread::sleep(pause);
            pause = next_pause(pause, duration);
            self.refresh()?;
            match self.memo_get_by(reader, key)? {
                Lookup::Hit(v) if fresh(&v) => return Ok(Leased::Stored(v)),
                _ => {}
            }
        }
    }

    /// [`Cache::claim`] for an async caller: the wait for another
    /// handle's lock or lease is a series of tries and [`pause`]s that
    /// never block the thread polling it, so the executor runs its other
    /// tasks meanwhile.
    pub(crate) async fn claim_async<'a, T: Codec + Send + 'static>(
        &self,
        key: &str,
        flight: Flight<'a>,
        fresh: impl Fn(&T) -> bool,
    ) -> Result<Claimed<'a, T>, StoreError> {
        let reader = Typed::<T>::new();
        if !self.options.memo_lock {
            return self.claim_by(&reader, key, flight, fresh);
        }
        let (duration, name) = (self.options.memo_lease, key_lock_name(key));
        let leases = Arc::new(Leases::new(self.backend.clone(), duration));
        let holder = lease::holder(&self.writer_id);
        let mut watch = Watch::default();
        let mut wait = FIRST_PAUSE;
        let lock = loop {
            let taken = match self.backend.locks() {
                Some(locks) => locks.lock(&name, Locking::TryAlone)?,
                // A request (or a few): off the polling thread.
                None => {
                    let (leases, name, holder) = (leases.clone(), name.clone(), holder.clone());
                    let (taken, watched) = self
                        .io(move |_| {
                            let taken = leases.try_take(&name, &holder, &mut watch);
                            (taken, watch)
                        })
                        .await;
                    watch = watched;
                    taken?.map(Lock::new)
                }
            };
            if let Some(lock) = taken {
                break lock;
            }
            pause(wait).await;
            wait = next_pause(wait, duration);
            match self.refreshed_memo_get_async::<T>(key).await? {
                Lookup::Hit(v) if fresh(&v) => return Ok(Claimed::Stored(v)),
                _ => {}
            }
        };
        // The claim's last look, off the polling thread too.
        match self.refreshed_memo_get_async::<T>(key).await? {
            Lookup::Hit(v) if fresh(&v) => return Ok(Claimed::Stored(v)),
            Lookup::Hit(_) | Lookup::Miss => {}
            Lookup::Unreadable(e) => self.warn_recomputed(&reader.type_name(), key, &e),
        }
        Ok(Claimed::Compute(Claim {
            _lock: Some(lock),
            _flight: flight,
        }))
    }

    /// The value under `key`, computing and storing it with `make` if
    /// absent: [`Cache::get_or_try_insert_with`] for a computation that
    /// cannot fail.
    ///
    /// ```
    /// # fn main() -> Result<(), codec::StoreError> {
    /// # let dir = tempfile::tempdir().unwrap();
    /// let cache = codec::Cache::open(dir.path())?;
    /// let key = codec::ContentHash::new().part("model-1").part("some text").finish()?;
    /// let embedding: Vec<f32> = cache.get_or_insert_with(&key, || vec![0.25, 0.5])?;
    /// // The second call computes nothing.
    /// let again: Vec<f32> = cache.get_or_insert_with(&key, || unreachable!())?;
    /// assert_eq!(again, embedding);
    /// # Ok(())
    /// # }
    /// ```
    pub fn get_or_insert_with<T: Codec + 'static>(
        &self,
        key: &str,
        make: impl FnOnce() -> T,
    ) -> Result<T, StoreError> {
        self.get_or_try_insert_with(key, || Ok::<T, StoreError>(make()))
    }

    /// [`Cache::get`], where an entry `T` cannot read is a miss unless the
    /// handle is strict.
    pub(crate) fn memo_get<T: Codec + 'static>(&self, key: &str) -> Result<Lookup<T>, StoreError> {
        self.memo_get_by(&Typed::<T>::new(), key)
    }

    /// [`Cache::memo_get`] of the values `reader` reads.
    pub(crate) fn memo_get_by<R: MemoRead>(
        &self,
        reader: &R,
        key: &str,
    ) -> Result<Lookup<R::Value>, StoreError> {
        if self.options.recomputes(key) && !self.memo.recomputed.lock().contains(key) {
            return Ok(Lookup::Miss);
        }
        match reader.read(self, key) {
            Ok(Some(v)) => Ok(Lookup::Hit(v)),
            Ok(None) => Ok(Lookup::Miss),
            Err(e) if !self.options.memo_strict && e.is_unreadable_entry() => {
                Ok(Lookup::Unreadable(e))
            }
            Err(e) => Err(e),
        }
    }

    /// Records that this handle computed `key` (with `memo_recompute`, its
    /// next calls hit the value stored).
    pub(crate) fn computed(&self, key: &str) {
        if self.options.recomputes(key) {
            self.memo.recomputed.lock().insert(key.to_owned());
        }
    }

    /// Records an entry `T` could not read, computed again: the first of
    /// its group is a warning to the `log` crate (or, where no logger is
    /// set, to stderr: a memo that recomputes silently looks like a slow
    /// program), the others count in [`Cache::warnings`].
    fn warn_recomputed(&self, name: &str, key: &str, e: &StoreError) {
        match self.memo.recomputed(name, key, e) {
            Some(warning) if log::max_level() == log::LevelFilter::Off => {
                eprintln!("codec: warning: {warning}");
            }
            Some(warning) => log::warn!(target: "codec::store", "{warning}"),
            None => log::debug!(target: "codec::store", "entry `{key}` recomputed as `{name}`"),
        }
    }
}

/// A pause of `duration` for an async caller, with no runtime assumed: a
/// thread of its own sleeps and wakes the task, which the executor polls
/// again. For waits of 10 ms and more, a thread each is cheap.
fn pause(duration: Duration) -> impl Future<Output = ()> {
    on_thread(move || std::thread::sleep(duration))
}

/// `work` on a thread of its own, awaited: the task is woken when it ends,
/// with no runtime assumed. For blocking calls of a millisecond and more
/// (a request, a pause), a thread each is cheap. A panic of `work` is
/// the awaiting task's, as if `work` had run in place.
fn on_thread<R: Send + 'static>(
    work: impl FnOnce() -> R + Send + 'static,
) -> impl Future<Output = R> {
    /// What the work ended with, and the waker of the task polling it.
    type Shared<R> = Arc<Mutex<(Option<std::thread::Result<R>>, Option<Waker>)>>;
    /// `Unpin` whatever `R` is: a box and an `Arc`.
    struct OnThread<R> {
        work: Option<Box<dyn FnOnce() -> R + Send>>,
        shared: Option<Shared<R>>,
    }
    impl<R: Send + 'static> Future for OnThread<R> {
        type Output = R;
        fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<R> {
            let this = self.get_mut();
            let shared = match (&this.shared, this.work.take()) {
                (Some(shared), _) => shared.clone(),
                (None, work) => {
                    let work = work.expect("the work is taken with its first poll");
                    let shared: Shared<R> = Arc::new(Mutex::new((None, None)));
                    let theirs = shared.clone();
                    std::thread::spawn(move || {
                        let done = std::panic::catch_unwind(std::panic::AssertUnwindSafe(work));
                        let waker = {
                            let mut state = theirs.lock();
                            state.0 = Some(done);
                            state.1.take()
                        };
                        if let Some(waker) = waker {
                            waker.wake();
                        }
                    });
                    this.shared = Some(shared.clone());
                    shared
                }
            };
            let mut state = shared.lock();
            match state.0.take() {
                Some(Ok(done)) => Poll::Ready(done),
                Some(Err(panic)) => std::panic::resume_unwind(panic),
                None => {
                    state.1 = Some(cx.waker().clone());
                    Poll::Pending
                }
            }
        }
    }
    OnThread {
        work: Some(Box::new(work)),
        shared: None,
    }
}

/// Takes the lock of `key`, waiting for another holder.
fn key_lock(locks: &dyn Locks, key: &str) -> Result<Lock, StoreError> {
    let lock = locks.lock(&key_lock_name(key), Locking::Alone)?;
    Ok(lock.expect("a lock taken waiting is taken"))
}

/// `locks/<first 16 bytes of SHA-256 of the key, hex>.lock`: keys are any
/// text, file names are not.
fn key_lock_name(key: &str) -> String {
    let hash = Sha256::digest(key.as_bytes());
    let hex: String = hash[..16].iter().map(|b| format!("{b:02x}")).collect();
    format!("{}/{hex}.lock", layout::KEY_LOCKS)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn damaged() -> StoreError {
        StoreError::Corrupt {
            key: "k".into(),
            message: "cut short".into(),
        }
    }

    fn failed() -> StoreError {
        StoreError::Custom {
            message: "no".into(),
        }
    }

    /// Polls `f` until it is ready, yielding between polls.
    fn spin<F: Future>(f: F) -> F::Output {
        let mut f = std::pin::pin!(f);
        let mut cx = Context::from_waker(Waker::noop());
        loop {
            if let Poll::Ready(v) = f.as_mut().poll(&mut cx) {
                return v;
            }
            std::thread::yield_now();
        }
    }

    #[test]
    fn work_on_a_thread_gives_its_result_or_its_panic_to_the_task() {
        assert_eq!(spin(on_thread(|| 7u32)), 7);
        let panicked = std::panic::catch_unwind(|| spin(on_thread(|| -> u32 { panic!("boom") })));
        let message = panicked.unwrap_err();
        assert_eq!(message.downcast_ref::<&str>(), Some(&"boom"));
    }

    #[test]
    fn a_waiter_pauses_twice_as_long_each_time_up_to_a_second_and_a_quarter_of_the_lease() {
        let ms = Duration::from_millis;
        let pauses = |lease| {
            std::iter::successors(Some(FIRST_PAUSE), |&p| Some(next_pause(p, lease)))
                .take(9)
                .collect::<Vec<_>>()
        };
        let long = [10, 20, 40, 80, 160, 320, 640, 1000, 1000].map(ms);
        assert_eq!(pauses(Duration::from_secs(60)), long);
        let short = [10, 20, 40, 80, 160, 250, 250, 250, 250].map(ms);
        assert_eq!(pauses(Duration::from_secs(1)), short);
    }

    #[test]
    fn entries_share_a_warning_only_with_their_type_and_reason() {
        let memo = Memo::default();
        assert!(memo.recomputed("t.A", "a/1", &damaged()).is_some());
        assert!(memo.recomputed("t.A", "a/2", &damaged()).is_none());
        assert!(
            memo.recomputed("t.A", "a/3", &failed()).is_some(),
            "another reason"
        );
        assert!(
            memo.recomputed("t.B", "b/1", &damaged()).is_some(),
            "another type"
        );
        let warnings = memo.warnings();
        assert_eq!(warnings.len(), 3, "{warnings:#?}");
        assert!(
            warnings[0].starts_with("2 entries (`a/1`, `a/2`)"),
            "{}",
            warnings[0]
        );
    }

    #[test]
    fn the_first_thousand_groups_are_kept_and_every_one_is_logged() {
        let memo = Memo::default();
        for i in 0..MAX_WARNINGS + 5 {
            let first = memo.recomputed(&format!("t.T{i}"), "k", &damaged());
            assert!(first.is_some(), "group {i}");
        }
        assert_eq!(memo.warnings().len(), MAX_WARNINGS);
    }
}
