//! Compaction: live values kept, space reclaimed, open folders and unknown
//! handlers refused, and a compaction killed at any moment leaves the
//! folder as it was before or after (the compacting child process is
//! `child_compact`).

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::sync::Arc;

use codec::store::Admin;
use codec::store::{DumpContext, Handler, Info, LoadContext};
use codec::{Cache, PutOptions, StoreError};

use crate::fixtures::{child, logs, truncate_data_file};

/// Fills `dir` through three handles (overwrites, removals, large values,
/// a value kept apart) and returns what every key must hold.
fn fill(dir: &std::path::Path, n: u32) -> BTreeMap<String, String> {
    let handles: Vec<Cache> = (0..3).map(|_| Cache::open(dir).unwrap()).collect();
    let mut expected = BTreeMap::new();
    for i in 0..n {
        let cache = &handles[i as usize % 3];
        let key = format!("k{i}");
        let len = if i % 4 == 0 { 3000 } else { 30 };
        let value = format!("{i}-").repeat(len / 4);
        cache.put(&key, &value).unwrap();
        expected.insert(key, value);
        if i % 7 == 6 {
            let earlier = format!("k{}", i - 3);
            let value = format!("overwritten {i}");
            handles[(i as usize + 1) % 3].put(&earlier, &value).unwrap();
            expected.insert(earlier, value);
        }
        if i % 5 == 4 {
            let earlier = format!("k{}", i - 1);
            handles[(i as usize + 2) % 3].remove(&earlier).unwrap();
            expected.remove(&earlier);
        }
    }
    expected
}

fn check(dir: &std::path::Path, expected: &BTreeMap<String, String>) {
    let cache = Cache::open(dir).unwrap();
    assert_eq!(
        cache.keys().unwrap(),
        expected.keys().cloned().collect::<Vec<_>>()
    );
    for (key, value) in expected {
        assert_eq!(
            cache.get::<String>(key).unwrap().as_ref(),
            Some(value),
            "{key}"
        );
    }
    assert!(cache.warnings().is_empty(), "{:?}", cache.warnings());
}

fn folder_size(dir: &std::path::Path) -> u64 {
    walk(dir)
        .iter()
        .map(|p| std::fs::metadata(p).unwrap().len())
        .sum()
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}

#[test]
fn compaction_keeps_live_values_and_reclaims_space() {
    let dir = tempfile::tempdir().unwrap();
    let expected = fill(dir.path(), 300);
    let before = folder_size(dir.path());
    let mut calls = Vec::new();
    let done = Admin::compact(dir.path(), &[], |done, all| calls.push((done, all))).unwrap();
    assert_eq!(done.kept, expected.len());
    assert!(done.dropped.is_empty());
    assert_eq!(calls.last(), Some(&(expected.len(), expected.len())));
    assert!(done.freed > 0);
    assert!(folder_size(dir.path()) < before);
    assert_eq!(logs(dir.path()), 1);
    check(dir.path(), &expected);
    // Compacting a compacted folder changes nothing that reads.
    Admin::compact(dir.path(), &[], |_, _| {}).unwrap();
    check(dir.path(), &expected);
}

/// A folder compacted already (one writer, every line live, every file
/// named) is left as it is: copying every entry again gave nothing back,
/// and `codec compact` run on a schedule rewrote the whole store each
/// time. One more line that is not live (an entry expired) and the next
/// compaction copies again.
#[test]
fn a_compaction_of_a_compacted_folder_rewrites_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let mut expected = fill(dir.path(), 60);
    let cache = Cache::open(dir.path()).unwrap();
    let file = PutOptions::default().handler("file");
    cache.put_with("own file", &"f".repeat(100), &file).unwrap();
    expected.insert("own file".to_owned(), "f".repeat(100));
    drop(cache);
    let done = Admin::compact(dir.path(), &[], |_, _| {}).unwrap();
    assert_eq!(done.kept, expected.len());
    let files = || -> BTreeMap<PathBuf, u64> {
        (walk(dir.path()).into_iter())
            .map(|p| {
                let len = std::fs::metadata(&p).unwrap().len();
                (p, len)
            })
            .collect()
    };
    let before = files();
    let done = Admin::compact(dir.path(), &[], |_, _| {}).unwrap();
    assert_eq!((done.kept, done.freed), (0, 0), "{done:?}");
    assert_eq!(done.size_after, done.size_before);
    assert_eq!(files(), before);
    check(dir.path(), &expected);
    // An entry compacted, that expires after: its line is no longer
    // live, with the same files.
    let ttl = std::time::Duration::from_secs(1);
    let put_at = std::time::Instant::now();
    let cache = Cache::open(dir.path()).unwrap();
    let soon = PutOptions::default().ttl(ttl);
    cache.put_with("soon gone", &"g".to_owned(), &soon).unwrap();
    drop(cache);
    Admin::compact(dir.path(), &[], |_, _| {}).unwrap();
    // (On a machine too slow to compact within the second, it expired
    // before: that compaction dropped it already.)
    if put_at.elapsed() < ttl {
        std::thread::sleep(ttl.saturating_sub(put_at.elapsed()) + ttl / 10);
        let done = Admin::compact(dir.path(), &[], |_, _| {}).unwrap();
        assert_eq!(done.kept, expected.len(), "{done:?}");
    }
    check(dir.path(), &expected);
}

/// Stores payloads reversed in the shared file.
struct Reversed;

impl Handler for Reversed {
    fn name(&self) -> &str {
        "reversed"
    }

    fn dump(&self, payload: &[u8], ctx: &mut DumpContext<'_>) -> Result<Info, StoreError> {
        let bytes: Vec<u8> = payload.iter().rev().copied().collect();
        Ok([("bytes".to_owned(), ctx.dump_bytes(&bytes)?)]
            .into_iter()
            .collect())
    }

    fn load(&self, info: &Info, ctx: &LoadContext<'_>) -> Result<Vec<u8>, StoreError> {
        let mut bytes = ctx.load_bytes(&info["bytes"])?;
        bytes.reverse();
        Ok(bytes)
    }
}

#[test]
fn compaction_refuses_open_folders_and_copies_entries_of_handlers_it_lacks() {
    let dir = tempfile::tempdir().unwrap();
    let mut expected = fill(dir.path(), 50);
    {
        let cache = Cache::open(dir.path()).unwrap();
        cache.register_handler(Arc::new(Reversed));
        let options = PutOptions::default().handler("reversed");
        cache
            .put_with("custom", &"mine".to_string(), &options)
            .unwrap();
        // A sub-value past the inline limit: a range of the shared file.
        cache.put_with("long", &"x".repeat(4000), &options).unwrap();
        expected.insert("custom".into(), "mine".into());
        expected.insert("long".into(), "x".repeat(4000));
        let err = Admin::compact(dir.path(), &[], |_, _| {}).unwrap_err();
        assert!(matches!(err, StoreError::InUse { .. }), "{err}");
    }
    // Without `Reversed`: its entries are copied from the bytes they
    // recorded (`#parts`), the sub-value's token renamed to its copy.
    let done = Admin::compact(dir.path(), &[], |_, _| {}).unwrap();
    assert_eq!(done.kept, expected.len());
    let cache = Cache::open(dir.path()).unwrap();
    cache.register_handler(Arc::new(Reversed));
    assert_eq!(
        cache.get::<String>("custom").unwrap().as_deref(),
        Some("mine")
    );
    assert_eq!(cache.get::<String>("long").unwrap(), Some("x".repeat(4000)));
    // One more entry: the next compaction has something to give back (a
    // folder as the last one left it is left as it is).
    cache.put("one more", &"more".to_owned()).unwrap();
    expected.insert("one more".into(), "more".into());
    drop(cache);

    // With it, as always: through the handler.
    let handlers: Vec<Arc<dyn Handler>> = vec![Arc::new(Reversed)];
    let done = Admin::compact(dir.path(), &handlers, |_, _| {}).unwrap();
    assert_eq!(done.kept, expected.len());
    let cache = Cache::open(dir.path()).unwrap();
    cache.register_handler(Arc::new(Reversed));
    assert_eq!(cache.get::<String>("long").unwrap(), Some("x".repeat(4000)));
    drop(cache);
    expected.remove("custom");
    expected.remove("long");
    let plain = Cache::open(dir.path()).unwrap();
    for (key, value) in &expected {
        assert_eq!(plain.get::<String>(key).unwrap().as_ref(), Some(value));
    }
}

/// Stores payloads in the writer's shared data file; the first time, tries
/// to compact the folder before the put's line is written.
struct CompactingMeanwhile {
    dir: std::path::PathBuf,
    tried: std::sync::Mutex<Option<Result<usize, StoreError>>>,
}

impl Handler for CompactingMeanwhile {
    fn name(&self) -> &str {
        "compacting-meanwhile"
    }

    fn dump(&self, payload: &[u8], ctx: &mut DumpContext<'_>) -> Result<Info, StoreError> {
        let bytes = ctx.dump_bytes(payload)?;
        let mut tried = self.tried.lock().unwrap();
        if tried.is_none() {
            *tried = Some(Admin::compact(&self.dir, &[], |_, _| {}).map(|done| done.kept));
        }
        Ok([("bytes".to_owned(), bytes)].into_iter().collect())
    }

    fn load(&self, info: &Info, ctx: &LoadContext<'_>) -> Result<Vec<u8>, StoreError> {
        ctx.load_bytes(&info["bytes"])
    }
}

#[test]
fn a_compaction_never_runs_between_a_puts_data_and_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let handler = Arc::new(CompactingMeanwhile {
        dir: dir.path().to_owned(),
        tried: Default::default(),
    });
    let cache = Cache::open(dir.path()).unwrap();
    cache.put("before", &"b".repeat(3000)).unwrap();
    cache.register_handler(handler.clone());
    let options = PutOptions::default().handler("compacting-meanwhile");
    cache.put_with("k", &"v".repeat(3000), &options).unwrap();
    drop(cache);

    let handlers: Vec<Arc<dyn Handler>> = vec![handler.clone()];
    let done = Admin::compact(dir.path(), &handlers, |_, _| {}).unwrap();
    assert_eq!((done.kept, done.dropped.len()), (2, 0), "{done:?}");
    let cache = Cache::open(dir.path()).unwrap();
    cache.register_handler(handler.clone());
    assert_eq!(cache.get::<String>("k").unwrap(), Some("v".repeat(3000)));
    assert_eq!(
        cache.get::<String>("before").unwrap(),
        Some("b".repeat(3000))
    );
    // The handle writing held the folder: the compaction tried meanwhile
    // was refused.
    let tried = handler.tried.lock().unwrap();
    assert!(
        matches!(*tried, Some(Err(StoreError::InUse { .. }))),
        "{tried:?}"
    );
}

/// Compacts `CODEC_DIR`, saying how far it got, and waits for its kill
/// once it has copied `CODEC_PAUSE_AT` entries (at the start for 0), so
/// that it dies there however fast it runs.
#[test]
#[ignore = "a child process of a_compaction_killed_at_any_moment_leaves_every_value"]
fn child_compact() {
    let Some(dir) = child::var::<PathBuf>("CODEC_DIR") else {
        return;
    };
    let pause_at: usize = child::var("CODEC_PAUSE_AT").unwrap();
    let said = |line: String| {
        println!("{line}");
        std::io::stdout().flush().unwrap();
    };
    let pause = || std::thread::sleep(std::time::Duration::from_secs(600));
    said(String::new());
    if pause_at == 0 {
        pause();
    }
    Admin::compact(&dir, &[], |done, all| {
        said(format!("copied {done} of {all}"));
        if done == pause_at {
            pause();
        }
    })
    .unwrap();
    said("done".into());
}

#[test]
fn a_compaction_killed_at_any_moment_leaves_every_value() {
    let dir = tempfile::tempdir().unwrap();
    let mut expected = fill(dir.path(), 1500);
    for round in 0..16usize {
        let live = expected.len();
        // Killed while copying (after 0, 1/13, 2/13... of the entries),
        // right after the copy (syncing, marking, deleting), or not at all.
        let (after, wait_us) = match round {
            0..=12 => (live * round / 13, 0),
            13 | 14 => (live, (round as u64 - 12) * 500),
            _ => (usize::MAX, 0),
        };
        let pause_at = if round < 13 { after } else { usize::MAX };
        let mut child = child!(child_compact)
            .env("CODEC_DIR", dir.path())
            .env("CODEC_PAUSE_AT", pause_at.to_string())
            .spawn();
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let mut finished = false;
        for line in lines.by_ref() {
            let line = line.unwrap();
            finished |= line == "done";
            if line == format!("copied {after} of {live}") || (after == 0 && line.is_empty()) {
                break;
            }
        }
        std::thread::sleep(std::time::Duration::from_micros(wait_us));
        child.kill().unwrap(); // SIGKILL, or nothing if it has finished
        child.wait().unwrap();
        finished |= lines.any(|l| l.unwrap() == "done");
        if round != 13 && round != 14 {
            assert_eq!(finished, round == 15, "round {round}");
        }
        check(dir.path(), &expected);
        // The folder stays writable, and the next compaction completes.
        let cache = Cache::open(dir.path()).unwrap();
        let key = format!("after-{round}");
        cache.put(&key, &key).unwrap();
        expected.insert(key.clone(), key);
    }
    Admin::compact(dir.path(), &[], |_, _| {}).unwrap();
    assert_eq!(logs(dir.path()), 1);
    check(dir.path(), &expected);
}

#[test]
fn damaged_entries_are_dropped_and_listed() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    cache.put("small", &"kept".to_string()).unwrap();
    cache.put("large", &"l".repeat(5000)).unwrap();
    truncate_data_file(dir.path(), &cache, 10);
    drop(cache);
    let done = Admin::compact(dir.path(), &[], |_, _| {}).unwrap();
    assert_eq!(done.kept, 1);
    assert_eq!(done.dropped.len(), 1);
    assert_eq!(done.dropped[0].0, "large");
    assert!(matches!(done.dropped[0].1, StoreError::Corrupt { .. }));
    let cache = Cache::open(dir.path()).unwrap();
    assert_eq!(cache.keys().unwrap(), ["small"]);
    assert!(cache.warnings().is_empty());
}

#[cfg(feature = "ndarray")]
#[test]
fn compaction_keeps_arrays_mapped() {
    let dir = tempfile::tempdir().unwrap();
    let array = ndarray::Array2::<f32>::from_shape_fn((300, 100), |(i, j)| (i * j) as f32);
    {
        let cache = Cache::open(dir.path()).unwrap();
        cache.put_array("old", &array).unwrap();
        cache.put_array("a", &array).unwrap();
        cache.remove("old").unwrap();
    }
    Admin::compact(dir.path(), &[], |_, _| {}).unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    assert_eq!(cache.keys().unwrap(), ["a"]);
    let mapped = cache.get_array::<f32>("a").unwrap().unwrap();
    assert_eq!(mapped.to_owned::<ndarray::Ix2>().unwrap(), array);
}

#[test]
fn handles_opened_during_a_compaction_wait_for_it() {
    let dir = tempfile::tempdir().unwrap();
    let expected = fill(dir.path(), 30);
    let (started_tx, started) = std::sync::mpsc::channel();
    let (go, go_rx) = std::sync::mpsc::channel::<()>();
    // Set just before the compaction is let go on.
    let released = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let compaction = {
        let dir = dir.path().to_owned();
        std::thread::spawn(move || {
            let mut first = true;
            Admin::compact(&dir, &[], |_, _| {
                if std::mem::take(&mut first) {
                    started_tx.send(()).unwrap();
                    go_rx.recv().unwrap();
                }
            })
            .unwrap()
        })
    };
    started.recv().unwrap();
    let opener = {
        let dir = dir.path().to_owned();
        let released = released.clone();
        std::thread::spawn(move || {
            let cache = Cache::open(&dir).unwrap();
            assert!(released.load(std::sync::atomic::Ordering::SeqCst));
            cache
        })
    };
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert!(
        !opener.is_finished(),
        "a handle opened during the compaction"
    );
    released.store(true, std::sync::atomic::Ordering::SeqCst);
    go.send(()).unwrap();
    assert_eq!(compaction.join().unwrap().kept, expected.len());
    let cache = opener.join().unwrap();
    for (key, value) in &expected {
        assert_eq!(
            cache.get::<String>(key).unwrap().as_ref(),
            Some(value),
            "{key}"
        );
    }
}

/// A folder's compaction deletes the files no line names: an entry's file
/// whose line a power cut took (named after a writer's sequence past its
/// last line), a writer's whose log is gone, a shared data file of its own.
#[test]
fn a_compaction_deletes_the_files_no_line_names() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    let file = PutOptions::default().handler("file");
    cache.put_with("kept", &"k".repeat(100), &file).unwrap();
    let id = cache.writer_id().to_owned();
    drop(cache);
    let data = dir.path().join("data");
    let orphans = [
        data.join(format!("{id}-99.bin")),
        data.join("0000000000000-1-0-00000000-3.bin"),
        data.join("0000000000000-1-0-00000000.bin"),
    ];
    for orphan in &orphans {
        std::fs::write(orphan, b"no line names it").unwrap();
    }
    let done = Admin::compact(dir.path(), &[], |_, _| {}).unwrap();
    assert_eq!(done.kept, 1);
    for orphan in &orphans {
        assert!(!orphan.exists(), "{} stays", orphan.display());
    }
    let reader = Cache::open(dir.path()).unwrap();
    assert_eq!(reader.get::<String>("kept").unwrap(), Some("k".repeat(100)));
}
