//! Memo state (`Cache::get_or_try_insert_with_state`): a state stored with
//! a memoized value, checked on each call, as CocoIndex's memo state: the
//! value kept, kept under a new state, or computed again. On every backend.

use std::sync::atomic::{AtomicUsize, Ordering};

use codec::store::MemoState;
use codec::{CacheOptions, StoreError};

use crate::fixtures::backends::each_backend;

/// What a file looked like when its value was computed.
#[derive(codec::Codec, Debug, Clone, PartialEq)]
struct Seen {
    mtime: u64,
    hash: u64,
}

/// CocoIndex's example: an unchanged mtime keeps the value without
/// hashing; a changed mtime with the same content hash keeps it under the
/// new mtime; a changed hash computes it again.
fn check(
    mtime: u64,
    hash: u64,
    hashed: &AtomicUsize,
) -> impl FnOnce(Option<&Seen>) -> MemoState<Seen> + '_ {
    move |seen| {
        if seen.is_some_and(|s| s.mtime == mtime) {
            return MemoState::Keep;
        }
        hashed.fetch_add(1, Ordering::SeqCst);
        let now = Seen { mtime, hash };
        match seen {
            Some(s) if s.hash == hash => MemoState::KeepWith(now),
            _ => MemoState::Recompute(now),
        }
    }
}

#[test]
fn a_state_check_keeps_moves_or_recomputes_the_value_as_it_says() {
    each_backend(|store| {
        let cache = store.open();
        let (computed, hashed) = (AtomicUsize::new(0), AtomicUsize::new(0));
        let words = |mtime: u64, hash: u64, count: usize| {
            cache.get_or_try_insert_with_state("file/a", check(mtime, hash, &hashed), || {
                computed.fetch_add(1, Ordering::SeqCst);
                Ok::<_, StoreError>(count)
            })
        };
        assert_eq!(words(1, 10, 3).unwrap(), 3, "{}", store.name);
        // Untouched: kept, nothing hashed.
        assert_eq!(words(1, 10, 99).unwrap(), 3, "{}", store.name);
        assert_eq!(
            (
                computed.load(Ordering::SeqCst),
                hashed.load(Ordering::SeqCst)
            ),
            (1, 1)
        );
        // Touched, same content: kept under the new mtime, not computed.
        assert_eq!(words(2, 10, 99).unwrap(), 3, "{}", store.name);
        assert_eq!(
            (
                computed.load(Ordering::SeqCst),
                hashed.load(Ordering::SeqCst)
            ),
            (1, 2)
        );
        // The new state is the one stored: mtime 2 is untouched now, for
        // this handle and another.
        assert_eq!(words(2, 10, 99).unwrap(), 3, "{}", store.name);
        assert_eq!(hashed.load(Ordering::SeqCst), 2, "{}", store.name);
        let other = store.open();
        let seen = other
            .get_or_try_insert_with_state(
                "file/a",
                |s: Option<&Seen>| {
                    assert_eq!(s, Some(&Seen { mtime: 2, hash: 10 }));
                    MemoState::Keep
                },
                || -> Result<usize, StoreError> { unreachable!() },
            )
            .unwrap();
        assert_eq!(seen, 3, "{}", store.name);
        // Changed: computed again, and stored with its state.
        assert_eq!(words(3, 11, 4).unwrap(), 4, "{}", store.name);
        assert_eq!(words(3, 11, 99).unwrap(), 4, "{}", store.name);
        assert_eq!(computed.load(Ordering::SeqCst), 2, "{}", store.name);
    });
}

#[test]
fn keeping_a_value_where_none_is_stored_is_an_error_naming_the_key() {
    each_backend(|store| {
        let cache = store.open();
        let e = cache
            .get_or_try_insert_with_state(
                "nothing/here",
                |_: Option<&u64>| MemoState::Keep,
                || Ok::<u32, StoreError>(1),
            )
            .unwrap_err();
        assert!(e.to_string().contains("nothing/here"), "{e}");
        // `KeepWith` counts as `Recompute` there.
        let v = cache
            .get_or_try_insert_with_state(
                "k",
                |_: Option<&u64>| MemoState::KeepWith(7),
                || Ok::<u32, StoreError>(1),
            )
            .unwrap();
        assert_eq!(v, 1, "{}", store.name);
    });
}

/// Callers that find one stale value wait for the first one's computation
/// and take its value: a stale value is computed once, not once per caller.
#[test]
fn a_stale_value_is_computed_once_by_callers_at_once() {
    each_backend(|store| {
        let options = CacheOptions::default().memo_lock(true);
        let first = store.open_with(options.clone());
        let old = AtomicUsize::new(0);
        first
            .get_or_try_insert_with_state("k", check(1, 1, &old), || Ok::<u32, StoreError>(1))
            .unwrap();
        let computed = AtomicUsize::new(0);
        let handles: Vec<_> = (0..2).map(|_| store.open_with(options.clone())).collect();
        std::thread::scope(|s| {
            for cache in [&first, &handles[0], &handles[1], &first] {
                let computed = &computed;
                s.spawn(move || {
                    let hashed = AtomicUsize::new(0);
                    let v = cache
                        .get_or_try_insert_with_state("k", check(2, 2, &hashed), || {
                            computed.fetch_add(1, Ordering::SeqCst);
                            std::thread::sleep(std::time::Duration::from_millis(50));
                            Ok::<u32, StoreError>(2)
                        })
                        .unwrap();
                    assert_eq!(v, 2);
                });
            }
        });
        assert_eq!(computed.load(Ordering::SeqCst), 1, "{}", store.name);
    });
}

mod memoized {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::LazyLock;

    use codec::store::MemoState;
    use codec::{Cache, StoreError};

    use super::Seen;

    static CACHE: LazyLock<Cache> = LazyLock::new(|| {
        let dir = Box::leak(Box::new(tempfile::tempdir().unwrap()));
        Cache::open(dir.path()).unwrap()
    });
    static COUNTED: AtomicUsize = AtomicUsize::new(0);

    /// The state of `path` now: the check reads the arguments, borrowed,
    /// before the body takes them.
    fn seen(prev: Option<&Seen>, path: &str, mtime: u64, hash: u64) -> MemoState<Seen> {
        assert!(!path.is_empty());
        match prev {
            Some(s) if s.mtime == mtime => MemoState::Keep,
            Some(s) if s.hash == hash => MemoState::KeepWith(Seen { mtime, hash }),
            _ => MemoState::Recompute(Seen { mtime, hash }),
        }
    }

    /// Keyed by the path alone: the mtime and the hash of the text are the
    /// state.
    #[codec::memoize(cache = CACHE, ignore(mtime, hash, text), state = |prev| seen(prev, &path, mtime, hash))]
    fn count_words(path: String, mtime: u64, hash: u64, text: &str) -> Result<usize, StoreError> {
        COUNTED.fetch_add(1, Ordering::SeqCst);
        drop(path);
        Ok(text.split_whitespace().count())
    }

    static FETCHED: AtomicUsize = AtomicUsize::new(0);

    /// An `async` memoized function with a state: an ETag.
    #[codec::memoize(cache = CACHE, ignore(etag), state = |prev: Option<&String>| match prev {
        Some(seen) if *seen == etag => MemoState::Keep,
        _ => MemoState::Recompute(etag.clone()),
    })]
    async fn fetch(url: String, etag: String) -> Result<String, StoreError> {
        FETCHED.fetch_add(1, Ordering::SeqCst);
        Ok(format!("{url} at {etag}"))
    }

    #[test]
    fn an_async_memoized_function_with_a_state_fetches_only_on_a_new_etag() {
        let get = |etag: &str| futures::executor::block_on(fetch("u".into(), etag.into())).unwrap();
        assert_eq!(get("e1"), "u at e1");
        assert_eq!(get("e1"), "u at e1");
        assert_eq!(FETCHED.load(Ordering::SeqCst), 1);
        assert_eq!(get("e2"), "u at e2");
        assert_eq!(get("e2"), "u at e2");
        assert_eq!(FETCHED.load(Ordering::SeqCst), 2);
    }

    #[test]
    fn a_memoized_function_with_a_state_computes_only_when_its_check_says_so() {
        let path = || "notes.txt".to_owned();
        assert_eq!(count_words(path(), 1, 10, "a b c").unwrap(), 3);
        assert_eq!(count_words(path(), 2, 10, "a b c").unwrap(), 3);
        assert_eq!(count_words(path(), 2, 10, "a b c").unwrap(), 3);
        assert_eq!(COUNTED.load(Ordering::SeqCst), 1);
        assert_eq!(count_words(path(), 3, 11, "a b c d").unwrap(), 4);
        assert_eq!(COUNTED.load(Ordering::SeqCst), 2);
        // One entry, under one key: the state changes were not new keys.
        let keys = CACHE.keys().unwrap();
        let ours = keys.iter().filter(|k| k.contains("::count_words/"));
        assert_eq!(ours.count(), 1, "{keys:?}");
    }
}

/// `CODEC_RECOMPUTE`: the memo keys under its prefixes are computed again
/// once by a handle of this process, the others hit; a child process,
/// since the variable is read when options are made.
mod recompute {
    use std::path::PathBuf;

    use codec::Cache;

    use crate::fixtures::child;

    fn memos(cache: &Cache, value: &str) -> Vec<String> {
        [
            "app::summary/v1/a",
            "app::summary_all/v1/a",
            "app::pages::title/v1/a",
        ]
        .iter()
        .map(|key| cache.get_or_insert_with(key, || value.to_owned()).unwrap())
        .collect()
    }

    #[test]
    #[ignore = "a child process of the test below"]
    fn child_recomputes_under_its_prefixes() {
        let Some(dir) = child::var::<PathBuf>("CODEC_DIR") else {
            return;
        };
        let cache = Cache::open(dir).unwrap();
        assert_eq!(memos(&cache, "new"), ["new", "old", "new"]);
        // Once: the next calls hit what this handle stored.
        assert_eq!(memos(&cache, "newer"), ["new", "old", "new"]);
    }

    #[test]
    fn the_memo_keys_under_the_prefixes_codec_recompute_names_are_computed_again() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::open(dir.path()).unwrap();
        assert_eq!(memos(&cache, "old"), ["old", "old", "old"]);
        drop(cache);
        let out = child!(child_recomputes_under_its_prefixes)
            .env("CODEC_DIR", dir.path())
            .env("CODEC_RECOMPUTE", "app::summary, app::pages")
            .output();
        child::ended_well(&out);
        let cache = Cache::open(dir.path()).unwrap();
        assert_eq!(memos(&cache, "x"), ["new", "old", "new"]);
    }
}
