//! Memoization: [`Cache::get_or_insert_with`] and
//! [`Cache::get_or_try_insert_with`].
//!
//! - An entry today's type cannot read (a breaking change of the type,
//!   damaged data) is a miss: the value is computed again and overwrites
//!   it, and a warning goes to [`Cache::warnings`] and to the `log` crate.
//!   [`CacheOptions::memo_strict`](super::CacheOptions::memo_strict)
//!   returns the error instead.
//! - One computation per key at a time: callers of a key that is being
//!   computed by another thread of the same handle wait for it and get its
//!   value (single flight). With
//!   [`CacheOptions::memo_lock`](super::CacheOptions::memo_lock), the same
//!   holds across handles and processes, through a lock file per key.

use std::collections::HashSet;
use std::fs::{File, OpenOptions};
use std::path::Path;
use std::sync::{Condvar, Mutex};

use sha2::{Digest, Sha256};

use super::{layout, Cache, StoreError};
use crate::codec::Codec;

/// Memo warnings kept for [`Cache::warnings`]; later ones go to `log` only.
const MAX_WARNINGS: usize = 1000;

/// The memo state of one handle: keys being computed, and warnings.
#[derive(Default)]
pub(super) struct Memo {
    computing: Mutex<HashSet<String>>,
    done: Condvar,
    pub(super) warnings: Mutex<Vec<String>>,
}

/// A key being computed by this thread; dropping it (also on a panic of
/// the computation) lets the next waiting caller in.
struct Flight<'a> {
    memo: &'a Memo,
    key: &'a str,
}

impl Memo {
    /// Waits until no other thread computes `key`, then claims it.
    fn enter<'a>(&'a self, key: &'a str) -> Flight<'a> {
        let mut computing = self.computing.lock().unwrap_or_else(|e| e.into_inner());
        while computing.contains(key) {
            computing = self.done.wait(computing).unwrap_or_else(|e| e.into_inner());
        }
        computing.insert(key.to_owned());
        Flight { memo: self, key }
    }
}

impl Drop for Flight<'_> {
    fn drop(&mut self) {
        self.memo
            .computing
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(self.key);
        self.memo.done.notify_all();
    }
}

/// What a memo found under a key.
enum Lookup<T> {
    Hit(T),
    Miss,
    /// An entry `T` cannot read: computed again, with a warning.
    Unreadable(StoreError),
}

impl<T> Lookup<T> {
    fn hit(self) -> Option<T> {
        match self {
            Lookup::Hit(v) => Some(v),
            _ => None,
        }
    }
}

impl Cache {
    /// The value under `key`, computing and storing it with `make` if
    /// absent; an error of `make` is returned as is, and nothing is stored.
    ///
    /// An entry that cannot be read as `T` (written before a breaking change
    /// of `T`, or damaged) counts as absent: it is computed again and
    /// overwritten, with a warning in [`Cache::warnings`] (unless
    /// [`CacheOptions::memo_strict`](super::CacheOptions::memo_strict)).
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
        if let Some(v) = self.memo_get(key)?.hit() {
            return Ok(v);
        }
        let _flight = self.memo.enter(key);
        // Key locks are files: a cache elsewhere than in a folder computes
        // once per key and handle only.
        let _lock = if self.options.memo_lock && self.backend.folder().is_some() {
            let lock = self.key_lock(key)?;
            // Another process may have stored the value while we waited.
            self.refresh()?;
            Some(lock)
        } else {
            None
        };
        // Another caller may have stored it while we waited.
        match self.memo_get(key)? {
            Lookup::Hit(v) => return Ok(v),
            Lookup::Miss => {}
            Lookup::Unreadable(e) => self.warn_recomputed::<T>(key, &e),
        }
        let value = make()?;
        self.put(key, &value)?;
        Ok(value)
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
    fn memo_get<T: Codec + 'static>(&self, key: &str) -> Result<Lookup<T>, StoreError> {
        match self.get::<T>(key) {
            Ok(Some(v)) => Ok(Lookup::Hit(v)),
            Ok(None) => Ok(Lookup::Miss),
            Err(e) if !self.options.memo_strict && e.is_unreadable_entry() => {
                Ok(Lookup::Unreadable(e))
            }
            Err(e) => Err(e),
        }
    }

    fn warn_recomputed<T: Codec>(&self, key: &str, e: &StoreError) {
        let name = crate::schema::wire_name::<T>();
        let warning = format!("entry `{key}` cannot be read as `{name}`, computed again: {e}");
        log::warn!(target: "codec::store", "{warning}");
        let mut warnings = self.memo.warnings.lock().unwrap_or_else(|e| e.into_inner());
        if warnings.len() < MAX_WARNINGS {
            warnings.push(warning);
        }
    }

    /// Takes the lock file of `key`, waiting for another holder.
    fn key_lock(&self, key: &str) -> Result<File, StoreError> {
        let path = key_lock_path(&self.dir, key);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| StoreError::io(dir, e))?;
        }
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(|e| StoreError::io(&path, e))?;
        file.lock().map_err(|e| StoreError::io(&path, e))?;
        Ok(file)
    }
}

/// `locks/<first 16 bytes of SHA-256 of the key, hex>.lock`: keys are any
/// text, file names are not.
fn key_lock_path(dir: &Path, key: &str) -> std::path::PathBuf {
    let hash = Sha256::digest(key.as_bytes());
    let hex: String = hash[..16].iter().map(|b| format!("{b:02x}")).collect();
    dir.join(layout::KEY_LOCKS).join(format!("{hex}.lock"))
}
