//! Keeping a memo store within bounds: `Admin::reduce_size` by bytes, by
//! count and by age keeps exactly the most recently used entries, online,
//! on every backend; and `CacheOptions::bounds` applies them by itself.

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use codec::store::{Admin, Bounds};
use codec::{Cache, CacheOptions, StoreError};

use crate::fixtures::backends::{backends, Store};

const GRACE: Duration = Duration::from_secs(3600);
/// The time between two runs of the program.
const BETWEEN_RUNS: Duration = Duration::from_millis(300);

#[derive(codec::Codec)]
struct ChunkV1 {
    doc_id: u64,
    text: String,
}

/// `ChunkV1` after a field's rename: every key it hashes is new.
#[derive(codec::Codec)]
struct ChunkV2 {
    #[codec(rename = "docId")]
    doc_id: u64,
    text: String,
}

/// `ChunkV2` with one more field.
#[derive(codec::Codec)]
struct ChunkV3 {
    #[codec(rename = "docId")]
    doc_id: u64,
    text: String,
    page: u32,
}

#[codec::memoize(cache = cache, name = "embed", version = 1, ignore(cache))]
fn embed_v1(cache: &Cache, chunk: &ChunkV1) -> Result<Vec<f32>, StoreError> {
    Ok(vec![chunk.doc_id as f32; 8])
}

#[codec::memoize(cache = cache, name = "embed", version = 1, ignore(cache))]
fn embed_v2(cache: &Cache, chunk: &ChunkV2) -> Result<Vec<f32>, StoreError> {
    Ok(vec![chunk.doc_id as f32; 8])
}

#[codec::memoize(cache = cache, name = "embed", version = 1, ignore(cache))]
fn embed_v3(cache: &Cache, chunk: &ChunkV3) -> Result<Vec<f32>, StoreError> {
    Ok(vec![chunk.doc_id as f32 + chunk.page as f32; 8])
}

fn v1(i: u64) -> ChunkV1 {
    ChunkV1 {
        doc_id: i,
        text: format!("chunk {i}"),
    }
}

/// The keys of the store, by when each appeared.
struct Filled {
    /// The keys written by run 1 and read again by run 3.
    reread: BTreeSet<String>,
    run1: BTreeSet<String>,
    run2: BTreeSet<String>,
    run3: BTreeSet<String>,
    /// When run 3 started.
    run3_start: Instant,
}

fn new_keys(cache: &Cache, before: &BTreeSet<String>) -> BTreeSet<String> {
    let all: BTreeSet<String> = cache.keys().unwrap().into_iter().collect();
    all.difference(before).cloned().collect()
}

/// Three runs of a program memoizing 10 chunks, each with its own handle:
/// the argument type changes between runs (so each run writes 10 new
/// entries), and run 3, last, reads 3 of run 1's entries again.
fn fill(store: &Store) -> Filled {
    let mut seen = BTreeSet::new();
    let mut run = |body: &dyn Fn(&Cache)| {
        let cache = store.open();
        body(&cache);
        let keys = new_keys(&cache, &seen);
        seen.extend(keys.iter().cloned());
        drop(cache); // the end of the run records its uses
        std::thread::sleep(BETWEEN_RUNS);
        keys
    };
    let run1 = run(&|cache| {
        for i in 0..10 {
            embed_v1(cache, &v1(i)).unwrap();
        }
    });
    let run2 = run(&|cache| {
        for i in 0..10 {
            let ChunkV1 { doc_id, text } = v1(i);
            embed_v2(cache, &ChunkV2 { doc_id, text }).unwrap();
        }
    });
    let run3_start = Instant::now();
    let run3 = run(&|cache| {
        for i in 0..10 {
            let ChunkV1 { doc_id, text } = v1(i);
            embed_v3(
                cache,
                &ChunkV3 {
                    doc_id,
                    text,
                    page: 1,
                },
            )
            .unwrap();
        }
        // A step still on the old type: hits.
        for i in 0..3 {
            embed_v1(cache, &v1(i)).unwrap();
        }
    });
    let cache = store.open();
    let reread: BTreeSet<String> = (0..3)
        .map(|i| {
            let hash = codec::ContentHash::new().part(&v1(i));
            codec::__private::memoize::key("embed", 1, hash).unwrap()
        })
        .collect();
    assert!(reread.is_subset(&run1));
    assert_eq!((run1.len(), run2.len(), run3.len()), (10, 10, 10));
    drop(cache);
    Filled {
        reread,
        run1,
        run2,
        run3,
        run3_start,
    }
}

/// The 13 most recently used keys: run 3's and the 3 it read again.
fn most_recent(filled: &Filled) -> BTreeSet<String> {
    filled.run3.union(&filled.reread).cloned().collect()
}

/// Reduces the store of `store` to `bounds` while another handle has it
/// open, and checks that exactly `filled`'s 13 most recently used entries
/// are left, readable by that handle and by a new one.
fn check_reduced(store: &Store, filled: &Filled, bounds: &dyn Fn() -> Bounds) {
    let other = store.open();
    let cache = store.open();
    // Made once the handles are open (which takes a while on S3), so an
    // age counts from the call.
    let bounds = &bounds();
    let done = cache.admin().reduce_size(bounds, GRACE).unwrap();
    let expected = most_recent(filled);
    let left: BTreeSet<String> = cache.keys().unwrap().into_iter().collect();
    assert_eq!(left, expected, "{}: {bounds:?}", store.name);
    assert_eq!(done.kept, 13, "{}", store.name);
    assert_eq!(done.removed.len(), 17, "{}", store.name);
    // Least recently used first: run 1's left, then run 2's.
    let first: BTreeSet<String> = done.removed[..7].iter().cloned().collect();
    let run1_left: BTreeSet<String> = filled.run1.difference(&filled.reread).cloned().collect();
    assert_eq!(first, run1_left, "{}", store.name);
    let then: BTreeSet<String> = done.removed[7..].iter().cloned().collect();
    assert_eq!(then, filled.run2, "{}", store.name);
    // Online, on every backend, a folder too.
    assert!(done.compacted.is_some(), "{}", store.name);
    // The other handle went on reading and writing.
    other.refresh().unwrap();
    assert_eq!(
        other.keys().unwrap().into_iter().collect::<BTreeSet<_>>(),
        expected
    );
    for key in &expected {
        assert_eq!(
            other.get::<Vec<f32>>(key).unwrap().map(|v| v.len()),
            Some(8)
        );
    }
    other.put("later", &1u32).unwrap();
    drop((cache, other));
    assert_eq!(store.open().len().unwrap(), 14, "{}", store.name);
}

#[test]
fn reduce_size_by_count_keeps_the_most_recently_used() {
    for store in backends() {
        let filled = fill(&store);
        check_reduced(&store, &filled, &|| Bounds::default().max_entries(13));
    }
}

#[test]
fn reduce_size_by_bytes_keeps_the_most_recently_used() {
    for store in backends() {
        let filled = fill(&store);
        let size = store.open().entries().unwrap()[0].size;
        let bounds = Bounds::default().max_bytes(13 * size + size / 2);
        check_reduced(&store, &filled, &|| bounds.clone());
    }
}

#[test]
fn reduce_size_by_age_keeps_the_most_recently_used() {
    for store in backends() {
        let filled = fill(&store);
        // Run 2 ended a run's pause before run 3 started.
        let age = || filled.run3_start.elapsed() + BETWEEN_RUNS / 2;
        check_reduced(&store, &filled, &|| Bounds::default().max_age(age()));
    }
}

#[test]
fn a_folder_reduced_gives_its_space_back_when_compacted() {
    let dir = tempfile::tempdir().unwrap();
    {
        let cache = Cache::open(dir.path()).unwrap();
        for i in 0..40u32 {
            cache.put(&format!("k{i}"), &vec![i; 1000]).unwrap();
        }
        let done = cache
            .admin()
            .reduce_size(&Bounds::default().max_entries(10), GRACE);
        assert_eq!(done.unwrap().removed.len(), 30);
    }
    let compacted = Admin::compact(dir.path(), &[], |_, _| {}).unwrap();
    assert_eq!(compacted.kept, 10);
    assert!(
        compacted.size_after * 3 < compacted.size_before,
        "{compacted:?}"
    );
}

#[test]
fn a_bound_in_the_options_is_kept_at_checkpoints() {
    let dir = tempfile::tempdir().unwrap();
    let options = CacheOptions::default()
        .checkpoint_bytes(4096)
        .bounds(Bounds::default().max_entries(20));
    let cache = Cache::open_with(dir.path(), options.clone()).unwrap();
    for i in 0..200u32 {
        cache.put(&format!("k{i:03}"), &i).unwrap();
    }
    // At least the first background checkpoint applied them, in the
    // background: the close waits for it.
    let warnings = cache.warnings();
    drop(cache);
    let cache = Cache::open_with(dir.path(), options).unwrap();
    let len = cache.len().unwrap();
    assert!(len < 200, "{len} entries left: {warnings:?}");
    cache.admin().checkpoint().unwrap();
    assert_eq!(cache.len().unwrap(), 20);
    // The latest are kept.
    assert_eq!(cache.get::<u32>("k199").unwrap(), Some(199));
    assert_eq!(cache.get::<u32>("k179").unwrap(), None);
}

/// `Admin::checkpoint` applies the bounds itself: with no background
/// build (`checkpoint_bytes` 0) and fewer writes than start a pass, it is
/// what keeps them.
#[test]
fn a_checkpoint_asked_for_applies_the_bounds_itself() {
    let dir = tempfile::tempdir().unwrap();
    let options = CacheOptions::default()
        .checkpoint_bytes(0)
        .bounds(Bounds::default().max_entries(20));
    let cache = Cache::open_with(dir.path(), options).unwrap();
    for i in 0..200u32 {
        cache.put(&format!("k{i:03}"), &i).unwrap();
    }
    assert_eq!(cache.len().unwrap(), 200, "no pass ran yet");
    cache.admin().checkpoint().unwrap();
    assert_eq!(cache.len().unwrap(), 20);
    assert_eq!(cache.get::<u32>("k199").unwrap(), Some(199));
    assert_eq!(cache.get::<u32>("k179").unwrap(), None);
}

#[test]
fn uses_are_recorded_once_per_key_and_interval_never_per_get() {
    for store in backends() {
        let options = CacheOptions::default().use_interval(Duration::from_secs(3600));
        let cache = store.open_with(options);
        cache.put("a", &1u32).unwrap();
        cache.put("b", &2u32).unwrap();
        for _ in 0..10_000 {
            assert_eq!(cache.get::<u32>("a").unwrap(), Some(1));
        }
        assert!(cache.contains("b").unwrap());
        assert_eq!(
            store.objects("used", ".jsonl"),
            Vec::<String>::new(),
            "{}",
            store.name
        );
        drop(cache); // records them
        let used = store.objects("used", ".jsonl");
        assert_eq!(used.len(), 1, "{}", store.name);
        let text = String::from_utf8(store.read(&used[0]).unwrap()).unwrap();
        let mut keys: Vec<&str> = text.lines().map(|l| l.split('"').nth(3).unwrap()).collect();
        keys.sort();
        assert_eq!(keys, ["a", "b"], "{}: {text}", store.name);
    }
}

#[test]
fn the_last_uses_of_the_entries_kept_survive_the_merge_of_their_records() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    cache.put("a", &1u32).unwrap();
    cache.put("b", &2u32).unwrap();
    // `a` is used after `b` was written: the most recently used.
    assert_eq!(cache.get::<u32>("a").unwrap(), Some(1));
    // A reduction that keeps both merges the records of uses...
    let kept_both = cache
        .admin()
        .reduce_size(&Bounds::default().max_entries(2), GRACE)
        .unwrap();
    assert!(kept_both.removed.is_empty());
    drop(cache);
    // ... and the next, by another handle, still knows `a`'s use.
    let other = Cache::open(dir.path()).unwrap();
    let done = other
        .admin()
        .reduce_size(&Bounds::default().max_entries(1), GRACE)
        .unwrap();
    assert_eq!(done.removed, ["b"]);
    assert_eq!(other.get::<u32>("a").unwrap(), Some(1));
}

/// The lines of every `used/` record of the folder.
fn use_lines(dir: &std::path::Path) -> Vec<String> {
    let Ok(listed) = std::fs::read_dir(dir.join("used")) else {
        return Vec::new();
    };
    listed
        .flat_map(|e| {
            let text = std::fs::read_to_string(e.unwrap().path()).unwrap();
            text.lines().map(str::to_owned).collect::<Vec<_>>()
        })
        .collect()
}

#[test]
fn compaction_drops_the_uses_of_removed_keys_and_keeps_the_others() {
    let dir = tempfile::tempdir().unwrap();
    {
        let cache = Cache::open(dir.path()).unwrap();
        for i in 0..200u32 {
            cache.put(&format!("k{i}"), &i).unwrap();
        }
        for i in 0..200u32 {
            assert_eq!(cache.get::<u32>(&format!("k{i}")).unwrap(), Some(i));
        }
        for i in 10..200u32 {
            cache.remove(&format!("k{i}")).unwrap();
        }
    }
    assert!(use_lines(dir.path()).len() >= 200);
    Admin::compact(dir.path(), &[], |_, _| {}).unwrap();
    let mut lines = use_lines(dir.path());
    lines.sort();
    assert_eq!(lines.len(), 10, "{lines:?}");
    let live: Vec<String> = (0..10).map(|i| format!(r##""#key":"k{i}""##)).collect();
    assert!(
        lines
            .iter()
            .all(|l| live.iter().any(|k| l.contains(k.as_str()))),
        "{lines:?}"
    );
    // The uses kept still order the entries, and a handle that takes up
    // the compaction's writer id records its own beside them: the most
    // recently read stays.
    let cache = Cache::open(dir.path()).unwrap();
    assert_eq!(cache.get::<u32>("k3").unwrap(), Some(3));
    drop(cache);
    let cache = Cache::open(dir.path()).unwrap();
    let done = cache
        .admin()
        .reduce_size(&Bounds::default().max_entries(1), GRACE)
        .unwrap();
    assert_eq!(cache.keys().unwrap(), ["k3"], "{done:?}");
}

#[test]
fn online_compaction_drops_the_uses_of_removed_keys_and_expired_leases() {
    use codec::store::backend::memory::Memory;
    use codec::store::backend::Backend;
    let backend: std::sync::Arc<dyn Backend> = std::sync::Arc::new(Memory::new());
    let cache = Cache::open_backend(backend.clone(), CacheOptions::default()).unwrap();
    for i in 0..50u32 {
        cache.put(&format!("k{i}"), &i).unwrap();
        cache.get::<u32>(&format!("k{i}")).unwrap();
    }
    for i in 5..50u32 {
        cache.remove(&format!("k{i}")).unwrap();
    }
    // A lease of a holder gone long ago, and one held now.
    let lease = |expires: u64| format!(r#"{{"holder":"gone-1","expires":{expires}}}"#);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64;
    let later = now + 3_600_000_000_000;
    backend
        .write("locks/a.lock", lease(1).as_bytes(), false)
        .unwrap();
    backend
        .write("locks/b.lock", lease(later).as_bytes(), false)
        .unwrap();
    drop(cache);
    Admin::compact_backend(backend.clone(), &[], Duration::ZERO, |_, _| {}).unwrap();
    let mut uses = Vec::new();
    for listed in backend.list("used/").unwrap() {
        let bytes = backend.read(&listed.name).unwrap().unwrap();
        uses.extend(String::from_utf8(bytes).unwrap().lines().map(str::to_owned));
    }
    assert_eq!(uses.len(), 5, "{uses:?}");
    let leases: Vec<String> = backend
        .list("locks/")
        .unwrap()
        .into_iter()
        .map(|l| l.name)
        .collect();
    assert_eq!(leases, ["locks/b.lock"]);
}

/// Holds every listing of `used/` (which applying the bounds starts
/// with) until the test lets it go.
struct HeldUses {
    held: std::sync::Arc<(std::sync::Mutex<bool>, std::sync::Condvar)>,
}

impl crate::fixtures::wrapped::Hooks for HeldUses {
    fn list(
        &self,
        inner: &dyn codec::store::backend::Backend,
        prefix: &str,
    ) -> Result<Vec<codec::store::backend::Listed>, codec::store::backend::BackendError> {
        if prefix.starts_with("used") {
            let (lock, released) = &*self.held;
            let mut go = lock.lock().unwrap();
            while !*go {
                go = released.wait(go).unwrap();
            }
        }
        inner.list(prefix)
    }
}

#[test]
fn puts_never_wait_for_the_bounds_which_the_background_applies() {
    use codec::store::backend::folder::Folder;
    let dir = tempfile::tempdir().unwrap();
    let held = std::sync::Arc::new((std::sync::Mutex::new(false), std::sync::Condvar::new()));
    let backend = std::sync::Arc::new(crate::fixtures::wrapped::Wrapped::new(
        std::sync::Arc::new(Folder::new(dir.path())),
        HeldUses { held: held.clone() },
    ));
    let options = CacheOptions::default()
        .checkpoint_bytes(4096)
        .bounds(Bounds::default().max_entries(20));
    let cache = Cache::open_backend(backend, options).unwrap();
    // Past the threshold several times over, while the bounds' reading
    // is held: every put returns.
    let (done, puts) = std::sync::mpsc::channel();
    let writer = std::thread::spawn(move || {
        for i in 0..200u32 {
            cache.put(&format!("k{i:03}"), &i).unwrap();
        }
        done.send(()).unwrap();
        cache
    });
    let returned = puts.recv_timeout(Duration::from_secs(60));
    let release = || {
        *held.0.lock().unwrap() = true;
        held.1.notify_all();
    };
    release();
    let cache = writer.join().unwrap();
    assert!(returned.is_ok(), "a put waited for the bounds");
    cache.admin().checkpoint().unwrap();
    assert_eq!(cache.len().unwrap(), 20);
}

#[test]
fn the_bounds_are_applied_every_so_many_writes_without_checkpoints() {
    let dir = tempfile::tempdir().unwrap();
    let options = CacheOptions::default()
        .checkpoint_bytes(0)
        .bounds(Bounds::default().max_entries(100));
    let cache = Cache::open_with(dir.path(), options.clone()).unwrap();
    for i in 0..3000u32 {
        cache.put(&format!("k{i:04}"), &i).unwrap();
    }
    // The close waits for a pass that runs. The first starts at the
    // 1,024th write and reads those at least: it keeps 100 of them,
    // however slowly it runs beside the puts.
    drop(cache);
    let cache = Cache::open_with(dir.path(), options).unwrap();
    let len = cache.len().unwrap();
    assert!(len <= 3000 - (1024 - 100), "{len} entries left");
    assert_eq!(cache.get::<u32>("k2999").unwrap(), Some(2999));
}
