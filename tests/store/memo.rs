//! Memo caches: `get_or_insert_with` over entries today's type cannot read,
//! under concurrent callers in threads and processes, and memo keys. What
//! is not about files runs on every backend.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use codec::store::backend::memory::Memory;
use codec::{Cache, CacheOptions, StoreError};

use crate::fixtures::backends::{each_backend, Store};
use crate::fixtures::child;

mod v1 {
    #[derive(codec::Codec, Debug, PartialEq)]
    #[codec(name = "memo.Embedding")]
    pub struct Embedding {
        pub values: Vec<f32>,
    }
}

mod v2 {
    /// `values` changed type: a breaking change.
    #[derive(codec::Codec, Debug, PartialEq, Clone)]
    #[codec(name = "memo.Embedding")]
    pub struct Embedding {
        pub values: Vec<String>,
    }
}

fn fresh() -> v2::Embedding {
    v2::Embedding {
        values: vec!["fresh".into()],
    }
}

/// The records the `log` crate was given, for the test that checks them.
struct Recorder(Mutex<Vec<String>>);

impl log::Log for Recorder {
    fn enabled(&self, _: &log::Metadata<'_>) -> bool {
        true
    }
    fn log(&self, record: &log::Record<'_>) {
        let line = format!("{} {}: {}", record.level(), record.target(), record.args());
        self.0.lock().unwrap().push(line);
    }
    fn flush(&self) {}
}

static LOGGED: Recorder = Recorder(Mutex::new(Vec::new()));

#[test]
fn an_entry_written_before_a_breaking_change_is_recomputed_and_warned() {
    set_logger();
    each_backend(an_entry_written_before_a_breaking_change_is_recomputed_and_warned_on);
}

fn an_entry_written_before_a_breaking_change_is_recomputed_and_warned_on(store: &Store) {
    // The lines of the backends before this one.
    LOGGED.0.lock().unwrap().retain(|l| !l.contains("(`k`)"));
    let cache = store.open();
    cache
        .put("k", &v1::Embedding { values: vec![0.5] })
        .unwrap();

    // `get` stays strict.
    assert!(matches!(
        cache.get::<v2::Embedding>("k"),
        Err(StoreError::Schema { .. })
    ));
    let value = cache.get_or_insert_with("k", fresh).unwrap();
    assert_eq!(value, fresh());
    assert_eq!(cache.get::<v2::Embedding>("k").unwrap(), Some(fresh()));
    let warnings = cache.warnings();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].starts_with(
            "1 entry (`k`) could not be read as `memo.Embedding` and was computed again:"
        ),
        "{warnings:?}"
    );
    assert!(warnings[0].contains("breaking"), "{warnings:?}");
    // Other tests of this binary log too: this one's lines name `k`.
    let logged: Vec<String> = LOGGED
        .0
        .lock()
        .unwrap()
        .iter()
        .filter(|l| l.contains("(`k`)"))
        .cloned()
        .collect();
    assert_eq!(logged, [format!("WARN codec::store: {}", warnings[0])]);

    // Now readable: computed no more.
    let again: v2::Embedding = cache.get_or_insert_with("k", || unreachable!()).unwrap();
    assert_eq!(again, fresh());
}

/// Tests that read the log set the logger, whichever runs first.
fn set_logger() {
    let _ = log::set_logger(&LOGGED);
    log::set_max_level(log::LevelFilter::Warn);
}

#[test]
fn entries_recomputed_for_one_change_make_one_warning_with_the_memo_fix() {
    set_logger();
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    for i in 0..10 {
        let key = format!("grouped/{i}");
        cache
            .put(&key, &v1::Embedding { values: vec![0.5] })
            .unwrap();
        cache.get_or_insert_with(&key, fresh).unwrap();
    }
    // Another type, another group.
    cache.put("grouped/n", &"text".to_string()).unwrap();
    cache.get_or_insert_with("grouped/n", || 1u32).unwrap();
    let warnings = cache.warnings();
    assert_eq!(warnings.len(), 2, "{warnings:#?}");
    let w = &warnings[0];
    assert!(
        w.starts_with(
            "10 entries (`grouped/0`, `grouped/1`, `grouped/2`, 7 more) could not be read as `memo.Embedding` and were computed again: stored `memo.Embedding` was written with schema"
        ),
        "{w}"
    );
    // The change once, and the fixes of a stored value and of a memo.
    assert_eq!(w.matches("breaking change `").count(), 1, "{w}");
    assert!(
        w.contains("raise the version (#[codec::memoize(version = N)]"),
        "{w}"
    );
    assert!(w.contains("make the change compatible"), "{w}");
    assert!(
        warnings[1].starts_with("1 entry (`grouped/n`) could not be read as `u32`"),
        "{}",
        warnings[1]
    );
    assert!(
        warnings[1].contains("its keys hold values of another type"),
        "{}",
        warnings[1]
    );
    // Logged once per group, not once per entry.
    let logged = LOGGED
        .0
        .lock()
        .unwrap()
        .iter()
        .filter(|l| l.contains("`grouped/"))
        .count();
    assert_eq!(logged, 2);
}

#[test]
fn a_damaged_entry_is_recomputed_too() {
    each_backend(a_damaged_entry_is_recomputed_too_on);
}

fn a_damaged_entry_is_recomputed_too_on(store: &Store) {
    let cache = store.open();
    let big = v2::Embedding {
        values: vec!["x".repeat(5000)],
    };
    cache.put("big", &big).unwrap();
    // Its data object loses its last bytes, as a crash could leave it.
    let data = store.objects("data", "");
    assert_eq!(data.len(), 1, "{}: {data:?}", store.name);
    let bytes = store.read(&data[0]).unwrap();
    store.write(&data[0], &bytes[..bytes.len() - 10]);
    assert!(matches!(
        cache.get::<v2::Embedding>("big"),
        Err(StoreError::Corrupt { .. })
    ));
    let value = cache
        .get_or_try_insert_with("big", || Ok::<_, StoreError>(fresh()))
        .unwrap();
    assert_eq!(value, fresh());
    assert_eq!(cache.get::<v2::Embedding>("big").unwrap(), Some(fresh()));
    assert!(cache.warnings()[0].starts_with("1 entry (`big`) could not be read"));
}

#[test]
fn a_strict_cache_returns_the_error_as_get_does() {
    each_backend(a_strict_cache_returns_the_error_as_get_does_on);
}

fn a_strict_cache_returns_the_error_as_get_does_on(store: &Store) {
    let options = CacheOptions::default().memo_strict(true);
    let cache = store.open_with(options);
    cache
        .put("k", &v1::Embedding { values: vec![0.5] })
        .unwrap();
    let err = cache.get_or_insert_with("k", fresh).unwrap_err();
    assert!(matches!(err, StoreError::Schema { .. }), "{err}");
    assert!(cache.warnings().is_empty());
}

#[test]
fn concurrent_callers_of_one_key_wait_for_one_computation() {
    each_backend(concurrent_callers_of_one_key_wait_for_one_computation_on);
}

fn concurrent_callers_of_one_key_wait_for_one_computation_on(store: &Store) {
    let cache = store.open();
    let calls = AtomicUsize::new(0);
    let slow = || {
        calls.fetch_add(1, Ordering::SeqCst);
        std::thread::sleep(Duration::from_millis(50));
        7u32
    };
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..8)
            .map(|_| s.spawn(|| cache.get_or_insert_with("k", slow).unwrap()))
            .collect();
        for h in handles {
            assert_eq!(h.join().unwrap(), 7);
        }
    });
    assert_eq!(calls.load(Ordering::SeqCst), 1, "computed more than once");

    // 4 threads over 20 shared keys: each key once.
    let calls = AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                for k in 0..20u32 {
                    let v = cache
                        .get_or_insert_with(&format!("shared/{k}"), || {
                            calls.fetch_add(1, Ordering::SeqCst);
                            std::thread::sleep(Duration::from_millis(2));
                            k
                        })
                        .unwrap();
                    assert_eq!(v, k);
                }
            });
        }
    });
    assert_eq!(calls.load(Ordering::SeqCst), 20);
}

#[test]
fn a_failed_computation_lets_the_next_caller_compute() {
    each_backend(a_failed_computation_lets_the_next_caller_compute_on);
}

fn a_failed_computation_lets_the_next_caller_compute_on(store: &Store) {
    let cache = store.open();
    let failed: Result<u32, StoreError> = cache.get_or_try_insert_with("k", || {
        Err(StoreError::Custom {
            message: "no".into(),
        })
    });
    assert!(failed.is_err());
    let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        cache.get_or_insert_with::<u32>("k", || panic!("computation failed"))
    }));
    assert!(panicked.is_err());
    assert_eq!(cache.get_or_insert_with("k", || 3u32).unwrap(), 3);
}

#[test]
fn with_memo_lock_handles_of_one_store_compute_each_entry_once() {
    each_backend(with_memo_lock_handles_of_one_store_compute_each_entry_once_on);
}

/// 4 handles (as 4 processes would have, each its own flights) over 5
/// shared keys: a lock file per key in a folder, a lease elsewhere.
fn with_memo_lock_handles_of_one_store_compute_each_entry_once_on(store: &Store) {
    let calls = AtomicUsize::new(0);
    let handles: Vec<Cache> = (0..4)
        .map(|_| store.open_with(CacheOptions::default().memo_lock(true)))
        .collect();
    std::thread::scope(|s| {
        for (i, cache) in handles.iter().enumerate() {
            let calls = &calls;
            s.spawn(move || {
                for k in (0..5u32).map(|k| (k + i as u32) % 5) {
                    let v = cache
                        .get_or_insert_with(&format!("shared/{k}"), || {
                            calls.fetch_add(1, Ordering::SeqCst);
                            std::thread::sleep(Duration::from_millis(30));
                            k
                        })
                        .unwrap();
                    assert_eq!(v, k, "on {}", store.name);
                }
            });
        }
    });
    assert_eq!(calls.load(Ordering::SeqCst), 5, "on {}", store.name);
    // Each lease was released: the next miss takes its own at once.
    let failed: Result<u32, StoreError> = handles[0].get_or_try_insert_with("k", || {
        Err(StoreError::Custom {
            message: "no".into(),
        })
    });
    assert!(failed.is_err());
    let start = std::time::Instant::now();
    assert_eq!(handles[1].get_or_insert_with("k", || 3u32).unwrap(), 3);
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "on {}",
        store.name
    );
}

#[test]
fn with_memo_lock_a_key_being_computed_holds_back_no_other_key() {
    each_backend(with_memo_lock_a_key_being_computed_holds_back_no_other_key_on);
}

fn with_memo_lock_a_key_being_computed_holds_back_no_other_key_on(store: &Store) {
    let options = CacheOptions::default().memo_lock(true);
    let (one, two) = (store.open_with(options.clone()), store.open_with(options));
    let (started, wait_start) = std::sync::mpsc::channel();
    let (done, wait_done) = std::sync::mpsc::channel();
    let other_first = AtomicBool::new(false);
    std::thread::scope(|s| {
        let (one, other_first) = (&one, &other_first);
        let slow = s.spawn(move || {
            one.get_or_insert_with("slow", || {
                started.send(()).unwrap();
                // Until the other key is computed (or, if it waits for
                // this one, never).
                let done = wait_done.recv_timeout(Duration::from_secs(10));
                other_first.store(done.is_ok(), Ordering::SeqCst);
                1u32
            })
        });
        wait_start.recv().unwrap();
        let other = two.get_or_insert_with("other", || 2u32);
        let _ = done.send(());
        assert_eq!(other.unwrap(), 2, "on {}", store.name);
        assert_eq!(slow.join().unwrap().unwrap(), 1, "on {}", store.name);
    });
    assert!(
        other_first.load(Ordering::SeqCst),
        "on {}: the other key waited for the slow one's lock",
        store.name
    );
}

#[test]
fn a_lease_shorter_than_a_second_is_refused_at_open() {
    let store = Memory::new();
    let options = CacheOptions::default()
        .memo_lock(true)
        .memo_lease(Duration::from_millis(10));
    let Err(err) = Cache::open_backend(std::sync::Arc::new(store), options) else {
        panic!("a lease of 10 ms was taken");
    };
    assert!(matches!(err, StoreError::Open { .. }), "{err}");
    let message = err.to_string();
    assert!(message.contains("memo_lease is 10ms"), "{message}");
    assert!(message.contains("give it 1s at least"), "{message}");
}

/// A child process: computes keys `0..CODEC_COUNT` through a memo with a
/// per-key lock, printing `computed <key>` for each computation it makes.
#[test]
#[ignore = "a child process of the tests below"]
fn child_memo_worker() {
    let Some(dir) = child::var::<PathBuf>("CODEC_DIR") else {
        return;
    };
    let count: u32 = child::var("CODEC_COUNT").unwrap();
    let options = CacheOptions::default().memo_lock(std::env::var_os("CODEC_MEMO_LOCK").is_some());
    let cache = Cache::open_with(dir, options).unwrap();
    for k in 0..count {
        let key = format!("key/{k}");
        let v = cache
            .get_or_insert_with(&key, || {
                println!("computed {key}");
                std::thread::sleep(Duration::from_millis(30));
                k
            })
            .unwrap();
        assert_eq!(v, k);
    }
}

/// Computations made by 4 processes over 10 shared keys.
fn computations_across_processes(lock: bool) -> usize {
    let dir = tempfile::tempdir().unwrap();
    Cache::open(dir.path()).unwrap();
    let children: Vec<_> = (0..4)
        .map(|_| {
            let mut child = child!(child_memo_worker)
                .env("CODEC_DIR", dir.path())
                .env("CODEC_COUNT", "10");
            if lock {
                child = child.env("CODEC_MEMO_LOCK", "1");
            }
            child.spawn()
        })
        .collect();
    let mut computed = 0;
    for child in children {
        let out = child.wait_with_output();
        child::ended_well(&out);
        // The test harness's own words may share a line with ours.
        computed += String::from_utf8_lossy(&out.stdout)
            .matches("computed key/")
            .count();
    }
    computed
}

/// A child process without a logger: recomputes an entry written before
/// a breaking change.
#[test]
#[ignore = "a child process of the test below"]
fn child_recompute_without_a_logger() {
    let Some(dir) = child::var::<PathBuf>("CODEC_DIR") else {
        return;
    };
    let cache = Cache::open(dir).unwrap();
    cache
        .put("k", &v1::Embedding { values: vec![0.5] })
        .unwrap();
    assert_eq!(cache.get_or_insert_with("k", fresh).unwrap(), fresh());
}

#[test]
fn where_no_logger_is_set_a_recomputed_entry_is_warned_on_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let out = child!(child_recompute_without_a_logger)
        .env("CODEC_DIR", dir.path())
        .output();
    child::ended_well(&out);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "codec: warning: 1 entry (`k`) could not be read as `memo.Embedding` and was computed again"
        ),
        "{stderr}"
    );
}

#[test]
fn with_a_lock_per_key_processes_compute_each_entry_once() {
    assert_eq!(computations_across_processes(true), 10);
}

#[test]
fn a_content_hash_of_a_value_changes_when_its_type_gains_a_field() {
    mod before {
        #[derive(codec::Codec)]
        pub struct Chunk {
            pub text: String,
        }
    }
    mod after {
        #[derive(codec::Codec)]
        pub struct Chunk {
            pub text: String,
            #[codec(default)]
            pub source: Option<String>,
        }
    }
    let old = before::Chunk { text: "hi".into() };
    let new = after::Chunk {
        text: "hi".into(),
        source: None,
    };
    assert_ne!(
        codec::content_hash(&old).unwrap(),
        codec::content_hash(&new).unwrap()
    );
    // Keyed by its inputs, the memo survives the change.
    let by_inputs = |text: &str| codec::ContentHash::new().part("model").part(text).finish();
    assert_eq!(by_inputs(&old.text).unwrap(), by_inputs(&new.text).unwrap());
}

#[test]
fn a_handle_that_recomputes_computes_each_key_once_and_replaces_its_value() {
    each_backend(|store| {
        let before = store.open();
        for k in 0..3u32 {
            before.get_or_insert_with(&format!("k{k}"), || k).unwrap();
        }
        let options = CacheOptions::default().memo_recompute(true);
        let run = store.open_with(options);
        let calls = AtomicUsize::new(0);
        let compute = |k: u32| {
            run.get_or_insert_with(&format!("k{k}"), || {
                calls.fetch_add(1, Ordering::SeqCst);
                k + 100
            })
        };
        assert_eq!(compute(0).unwrap(), 100, "{}", store.name);
        // The old values stay for every reader until their new ones land.
        assert_eq!(run.get::<u32>("k1").unwrap(), Some(1));
        assert_eq!(before.get::<u32>("k1").unwrap(), Some(1));
        for k in [1, 2, 0, 1] {
            assert_eq!(compute(k).unwrap(), k + 100, "{}", store.name);
        }
        assert_eq!(calls.load(Ordering::SeqCst), 3, "each key once");
        before.refresh().unwrap();
        assert_eq!(before.get::<u32>("k2").unwrap(), Some(102));
        // Another handle, without the option, hits them.
        let after = store.open();
        assert_eq!(after.get_or_insert_with("k0", || 7u32).unwrap(), 100);
    });
}

/// An async memo that waits for another handle's computation of its key
/// (`memo_lock`: a locked file in a folder, a lease elsewhere) lets the
/// other tasks of its executor run: on a runtime of one thread, a ticker
/// ticks while it waits. The other handle holds the key until the ticker
/// has ticked: if the wait blocked the thread, it would hold it until its
/// time is up, and the ticker would not tick meanwhile.
#[test]
fn an_async_memo_waiting_for_another_handle_lets_the_other_tasks_of_its_thread_run() {
    use std::sync::atomic::AtomicBool;
    use std::sync::Arc;
    use std::time::Instant;

    each_backend(|store| {
        let options = CacheOptions::default().memo_lock(true);
        let (holder, waiter) = (store.open_with(options.clone()), store.open_with(options));
        let ticks = Arc::new(AtomicUsize::new(0));
        let (holding, done) = (
            Arc::new(AtomicBool::new(false)),
            Arc::new(AtomicBool::new(false)),
        );
        let timed_out = AtomicBool::new(false);
        std::thread::scope(|s| {
            s.spawn(|| {
                holder
                    .get_or_insert_with("k", || {
                        holding.store(true, Ordering::SeqCst);
                        // Held until the ticker ticked 5 times past the
                        // waiter's start, or 10 s.
                        let deadline = Instant::now() + Duration::from_secs(10);
                        while ticks.load(Ordering::SeqCst) < 5 {
                            if Instant::now() > deadline {
                                timed_out.store(true, Ordering::SeqCst);
                                break;
                            }
                            std::thread::sleep(Duration::from_millis(1));
                        }
                        1u32
                    })
                    .unwrap();
            });
            while !holding.load(Ordering::SeqCst) {
                std::thread::sleep(Duration::from_millis(1));
            }
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_time()
                .build()
                .unwrap();
            let value = runtime.block_on(async {
                let memo = async {
                    let value = waiter
                        .get_or_try_insert_with_async("k", || async { Ok::<u32, StoreError>(2) })
                        .await;
                    done.store(true, Ordering::SeqCst);
                    value
                };
                let ticker = async {
                    while !done.load(Ordering::SeqCst) {
                        tokio::time::sleep(Duration::from_millis(2)).await;
                        ticks.fetch_add(1, Ordering::SeqCst);
                    }
                };
                futures::future::join(memo, ticker).await.0
            });
            assert_eq!(value.unwrap(), 1, "the holder's value, on {}", store.name);
        });
        assert!(
            !timed_out.load(Ordering::SeqCst),
            "the ticker did not tick while the memo waited, on {}",
            store.name
        );
    });
}

/// A backend whose appends wait, while `slow` is set, until the ticker has
/// ticked 5 times (or 10 s): a put as slow as a request to a distant
/// store, which only a caller that lets the ticker run ever ends early.
struct SlowAppends {
    inner: std::sync::Arc<dyn codec::store::backend::Backend>,
    slow: std::sync::Arc<std::sync::atomic::AtomicBool>,
    ticks: std::sync::Arc<AtomicUsize>,
    timed_out: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

struct SlowAppender {
    inner: Box<dyn codec::store::backend::Appender>,
    slow: std::sync::Arc<std::sync::atomic::AtomicBool>,
    ticks: std::sync::Arc<AtomicUsize>,
    timed_out: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl codec::store::backend::Appender for SlowAppender {
    fn append(
        &mut self,
        bytes: &[u8],
        align: u64,
    ) -> Result<codec::store::backend::Appended, codec::store::backend::BackendError> {
        if self.slow.load(Ordering::SeqCst) {
            let deadline = std::time::Instant::now() + Duration::from_secs(10);
            while self.ticks.load(Ordering::SeqCst) < 5 {
                if std::time::Instant::now() > deadline {
                    self.timed_out.store(true, Ordering::SeqCst);
                    break;
                }
                std::thread::sleep(Duration::from_millis(1));
            }
        }
        self.inner.append(bytes, align)
    }
    fn sync(&mut self) -> Result<(), codec::store::backend::BackendError> {
        self.inner.sync()
    }
    fn end(&self) -> (String, u64) {
        self.inner.end()
    }
}

impl codec::store::backend::Backend for SlowAppends {
    fn location(&self) -> String {
        self.inner.location()
    }
    fn address(&self, name: &str) -> String {
        self.inner.address(name)
    }
    fn read(&self, name: &str) -> Result<Option<Vec<u8>>, codec::store::backend::BackendError> {
        self.inner.read(name)
    }
    fn read_range(
        &self,
        name: &str,
        range: std::ops::Range<u64>,
    ) -> Result<Vec<u8>, codec::store::backend::BackendError> {
        self.inner.read_range(name, range)
    }
    fn list(
        &self,
        prefix: &str,
    ) -> Result<Vec<codec::store::backend::Listed>, codec::store::backend::BackendError> {
        self.inner.list(prefix)
    }
    fn write(
        &self,
        name: &str,
        bytes: &[u8],
        sync: bool,
    ) -> Result<(), codec::store::backend::BackendError> {
        self.inner.write(name, bytes, sync)
    }
    fn create(
        &self,
        name: &str,
        bytes: &[u8],
        sync: bool,
    ) -> Result<codec::store::backend::Created, codec::store::backend::BackendError> {
        self.inner.create(name, bytes, sync)
    }
    fn read_versioned(
        &self,
        name: &str,
    ) -> Result<
        Option<(Vec<u8>, codec::store::backend::Version)>,
        codec::store::backend::BackendError,
    > {
        self.inner.read_versioned(name)
    }
    fn replace(
        &self,
        name: &str,
        bytes: &[u8],
        version: &codec::store::backend::Version,
    ) -> Result<codec::store::backend::Replaced, codec::store::backend::BackendError> {
        self.inner.replace(name, bytes, version)
    }
    fn delete(&self, name: &str) -> Result<(), codec::store::backend::BackendError> {
        self.inner.delete(name)
    }
    fn append_to(
        &self,
        name: &str,
    ) -> Result<Box<dyn codec::store::backend::Appender>, codec::store::backend::BackendError> {
        Ok(Box::new(SlowAppender {
            inner: self.inner.append_to(name)?,
            slow: self.slow.clone(),
            ticks: self.ticks.clone(),
            timed_out: self.timed_out.clone(),
        }))
    }
    fn appends(&self) -> codec::store::backend::Appends {
        self.inner.appends()
    }
    fn concurrent_reads(&self) -> bool {
        self.inner.concurrent_reads()
    }
    fn version(
        &self,
        name: &str,
    ) -> Result<Option<codec::store::backend::Version>, codec::store::backend::BackendError> {
        self.inner.version(name)
    }
    fn take_up_log(
        &self,
        logs: &[String],
    ) -> Result<Option<Box<dyn codec::store::backend::Appender>>, codec::store::backend::BackendError>
    {
        let Some(inner) = self.inner.take_up_log(logs)? else {
            return Ok(None);
        };
        Ok(Some(Box::new(SlowAppender {
            inner,
            slow: self.slow.clone(),
            ticks: self.ticks.clone(),
            timed_out: self.timed_out.clone(),
        })))
    }
}

/// On a backend without memory maps (object storage), an async memo's put
/// runs off the thread polling it: a ticker on a one-thread runtime ticks
/// while the put is slow. (On a folder the store writes in place: its
/// appends are to files the handle holds open.)
#[test]
fn an_async_memo_lets_the_other_tasks_of_its_thread_run_while_its_put_is_slow() {
    use std::sync::atomic::AtomicBool;
    use std::sync::Arc;

    for with_state in [false, true] {
        let slow = Arc::new(AtomicBool::new(false));
        let ticks = Arc::new(AtomicUsize::new(0));
        let timed_out = Arc::new(AtomicBool::new(false));
        let backend = Arc::new(SlowAppends {
            inner: Arc::new(codec::store::backend::memory::Memory::new()),
            slow: slow.clone(),
            ticks: ticks.clone(),
            timed_out: timed_out.clone(),
        });
        let cache = Cache::open_backend(backend, CacheOptions::default()).unwrap();
        let done = AtomicBool::new(false);
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        slow.store(true, Ordering::SeqCst);
        let value = runtime.block_on(async {
            let memo = async {
                let value = match with_state {
                    false => {
                        cache
                            .get_or_try_insert_with_async("k", || async {
                                Ok::<u32, StoreError>(2)
                            })
                            .await
                    }
                    true => {
                        cache
                            .get_or_try_insert_with_state_async(
                                "k",
                                |_: Option<&u32>| codec::store::MemoState::Recompute(1),
                                || async { Ok::<u32, StoreError>(2) },
                            )
                            .await
                    }
                };
                done.store(true, Ordering::SeqCst);
                value
            };
            let ticker = async {
                while !done.load(Ordering::SeqCst) {
                    tokio::time::sleep(Duration::from_millis(2)).await;
                    ticks.fetch_add(1, Ordering::SeqCst);
                }
            };
            futures::future::join(memo, ticker).await.0
        });
        slow.store(false, Ordering::SeqCst);
        assert_eq!(value.unwrap(), 2);
        assert!(
            !timed_out.load(Ordering::SeqCst),
            "the ticker did not tick while the put was slow (with a state: {with_state})"
        );
        assert!(cache.contains("k").unwrap());
    }
}
