//! Checkpoints and compaction where logs are one object per append
//! (object storage, and the memory backend that behaves like it): what a
//! fresh open costs in requests, damaged checkpoints put aside and
//! rebuilt, handles racing to commit one, compactions while others write
//! and racing each other, what they delete and sync.

use std::sync::{Arc, Barrier, Mutex};
use std::time::Duration;

use codec::store::backend::memory::Memory;
use codec::store::backend::object::Objects;
use codec::store::backend::{
    Appended, Appender, Backend, BackendError, Created, Listed, Replaced, Version,
};
use codec::store::{Admin, Bounds};
use codec::store::{DumpContext, Handler, Info, InfoValue, LoadContext};
use codec::{Cache, CacheOptions, PutOptions, StoreError};

use crate::fixtures::counting::{counts, Counting};
use crate::fixtures::wrapped::{Hooks, Wrapped};
use crate::fixtures::{chunk, manual, Chunk};

fn open_counting(store: &Arc<Counting>, options: CacheOptions) -> Cache {
    Cache::open_store(store.clone(), "caches/one", options).unwrap()
}

/// Both backends without appends: memory, and object_store's in-memory
/// store through `Objects`.
fn backends() -> Vec<Arc<dyn Backend>> {
    let store = Arc::new(object_store::memory::InMemory::new());
    vec![
        Arc::new(Memory::new()),
        Arc::new(Objects::new(store, "p", "memory:///p").unwrap()),
    ]
}

fn open(backend: &Arc<dyn Backend>, options: CacheOptions) -> Cache {
    Cache::open_backend(backend.clone(), options).unwrap()
}

fn damage_warnings(cache: &Cache) -> Vec<String> {
    let warnings = cache.warnings();
    warnings
        .into_iter()
        .filter(|w| w.contains("damaged"))
        .collect()
}

#[test]
fn a_fresh_open_of_a_checkpointed_store_costs_four_requests() {
    let store = Counting::new();
    let writer = open_counting(&store, manual());
    for i in 0..1000 {
        writer.put(&format!("c/{i}"), &chunk(i)).unwrap();
    }
    for i in (0..1000).step_by(10) {
        writer.remove(&format!("c/{i}")).unwrap();
    }
    store.take();
    let reader = open_counting(&store, manual());
    let without = store.take();
    assert!(without["GET"] > 1000, "every segment read: {without:?}");
    drop(reader);

    writer.admin().checkpoint().unwrap();
    store.take();
    let reader = open_counting(&store, manual());
    assert_eq!(
        store.take(),
        counts(&[("GET", 3), ("LIST", 1)]),
        "the layout version, one listing, the manifest and its one table"
    );
    for i in 0..1000 {
        let expected = (i % 10 != 0).then(|| chunk(i));
        assert_eq!(reader.get(&format!("c/{i}")).unwrap(), expected, "c/{i}");
    }
    assert_eq!(
        store.take(),
        counts(&[]),
        "gets of inline entries and of removed keys read nothing"
    );
    assert!(reader.warnings().is_empty(), "{:?}", reader.warnings());

    // Segments written after the checkpoint are read, one request each.
    for i in 1000..1005 {
        writer.put(&format!("c/{i}"), &chunk(i)).unwrap();
    }
    store.take();
    let reader = open_counting(&store, manual());
    assert_eq!(store.take(), counts(&[("GET", 3 + 5), ("LIST", 1)]));
    assert_eq!(reader.keys().unwrap().len(), 900 + 5);
}

#[test]
fn checkpoints_build_by_themselves_past_the_threshold() {
    let store = Counting::new();
    let options = CacheOptions::default().checkpoint_bytes(4000);
    let writer = open_counting(&store, options.clone());
    for i in 0..400 {
        writer.put(&format!("c/{i}"), &chunk(i)).unwrap();
    }
    // Waits for a build in progress, and builds the one the puts asked
    // for meanwhile: on a busy machine the puts outrun the builds (which
    // yield to them), and the last puts found one running.
    drop(writer);
    store.take();
    let reader = open_counting(&store, options);
    let opened = store.take();
    // Past the threshold at the close, nothing is left uncovered: the
    // open reads the manifest and its tables, no segment (a store
    // without builds reads all 400).
    let view = Objects::new(store.clone(), "caches/one", "memory:///caches/one").unwrap();
    let tables = manifest(&view)["tables"].as_array().unwrap().len() as u64;
    assert_eq!(covered(&view), [400], "{opened:?}");
    assert!(
        opened["GET"] as u64 <= 2 + tables,
        "{opened:?}, {tables} tables"
    );
    for i in 0..400 {
        assert_eq!(reader.get(&format!("c/{i}")).unwrap(), Some(chunk(i)));
    }
    assert!(reader.warnings().is_empty(), "{:?}", reader.warnings());
}

#[test]
fn small_puts_bring_checkpoints_too_so_a_fresh_open_reads_few_segments() {
    let store = Counting::new();
    // The default threshold: 5,000 small lines are about 700 KB, under it.
    let options = CacheOptions::default().checkpoint_bytes(4 << 20);
    let writer = open_counting(&store, options.clone());
    for i in 0..5000 {
        writer.put(&format!("c/{i}"), &chunk(i)).unwrap();
    }
    drop(writer); // waits for a build in progress

    // The builds (a dozen or so) cover the segments the handle wrote
    // without reading them again: a GET of the manifest and of each
    // table, per build.
    let wrote = store.take();
    assert!(wrote["GET"] < 250, "{wrote:?}");
    let reader = open_counting(&store, options);
    let opened = store.take();
    // Each segment counts 8 KiB at least: a build every 512 segments. The
    // open reads the manifest, its tables and the segments it does not
    // cover, not 5,000: how many the last build left depends on how fast
    // it ran beside the puts (its thread yields to them), so they are
    // counted from the manifest.
    let view = Objects::new(store.clone(), "caches/one", "memory:///caches/one").unwrap();
    let covered: u64 = covered(&view).iter().sum();
    let tables = manifest(&view)["tables"].as_array().unwrap().len() as u64;
    assert!(
        covered >= 512,
        "no build covered the first 512 segments: {covered}"
    );
    let left = 5000 - covered;
    assert!(
        opened["GET"] as u64 <= 2 + tables + left,
        "{opened:?}: {left} segments not covered, {tables} tables"
    );
    assert_eq!(reader.len().unwrap(), 5000);
    for i in (0..5000).step_by(97) {
        assert_eq!(reader.get(&format!("c/{i}")).unwrap(), Some(chunk(i)));
    }
    assert!(reader.warnings().is_empty(), "{:?}", reader.warnings());
}

/// Flips a byte of object `name`, `at` bytes from its start (from its end
/// if negative).
fn flip(backend: &dyn Backend, name: &str, at: i64) {
    let mut bytes = backend.read(name).unwrap().unwrap();
    let i = if at < 0 {
        bytes.len() - (-at) as usize
    } else {
        at as usize
    };
    bytes[i] ^= 0x20;
    backend.write(name, &bytes, false).unwrap();
}

fn tables(backend: &dyn Backend) -> Vec<String> {
    backend
        .list("index/")
        .unwrap()
        .into_iter()
        .map(|l| l.name)
        .collect()
}

#[test]
fn a_damaged_checkpoint_is_never_trusted_and_is_rebuilt_with_a_warning() {
    for backend in backends() {
        // The manifest's text, a table's header, an entry, a line it holds.
        let damages: [(bool, i64); 4] = [(false, 12), (true, 10), (true, 70), (true, -30)];
        for (in_table, at) in damages {
            let writer = open(&backend, manual());
            for i in 0..300 {
                writer.put(&format!("c/{i}"), &chunk(i)).unwrap();
            }
            writer.admin().checkpoint().unwrap();
            let name = match in_table {
                true => tables(&*backend).pop().unwrap(),
                false => "checkpoint.json".to_owned(),
            };
            flip(&*backend, &name, at);

            let reader = open(&backend, manual());
            let mut keys = 0;
            for i in 0..300 {
                keys += usize::from(reader.get::<Chunk>(&format!("c/{i}")).unwrap().is_some());
            }
            assert_eq!(keys, 300, "{name} at {at}");
            let warned = damage_warnings(&reader);
            assert_eq!(warned.len(), 1, "{name} at {at}: {:?}", reader.warnings());
            assert!(warned[0].contains(&backend.location()), "{warned:?}");

            // The next checkpoint rebuilds it from the logs.
            reader.admin().checkpoint().unwrap();
            let after = open(&backend, manual());
            assert_eq!(after.keys().unwrap().len(), 300);
            assert_eq!(after.admin().verify_index().unwrap(), 300);
            assert!(after.warnings().is_empty(), "{:?}", after.warnings());
            assert_eq!(tables(&*backend).len(), 1, "the damaged table deleted");
        }
    }
}

#[test]
fn two_handles_checkpointing_at_once_lose_nothing() {
    for backend in backends() {
        let handles = [open(&backend, manual()), open(&backend, manual())];
        std::thread::scope(|s| {
            for (h, cache) in handles.iter().enumerate() {
                s.spawn(move || {
                    for i in 0..200u32 {
                        cache.put(&format!("{h}/{i}"), &chunk(i)).unwrap();
                        if i % 3 == 0 {
                            cache.remove(&format!("{h}/{}", i / 2)).unwrap();
                        }
                        if i % 10 == 9 {
                            cache.admin().checkpoint().unwrap();
                        }
                    }
                });
            }
        });
        let reader = open(&backend, manual());
        for h in 0..2 {
            let mut removed = std::collections::HashSet::new();
            for i in 0..200u32 {
                removed.remove(&i);
                if i % 3 == 0 {
                    removed.insert(i / 2);
                }
            }
            for i in 0..200u32 {
                let expected = (!removed.contains(&i)).then(|| chunk(i));
                assert_eq!(reader.get(&format!("{h}/{i}")).unwrap(), expected);
            }
        }
        assert!(reader.warnings().is_empty(), "{:?}", reader.warnings());
        reader.admin().verify_index().unwrap();
        // Of the tables the losers wrote and the ones merged away, none
        // is left: only those the manifest names.
        let left = tables(&*backend).len();
        let named = manifest_tables(&*backend);
        assert_eq!(left, named, "{:?}", tables(&*backend));
    }
}

/// How many tables the manifest names.
fn manifest_tables(backend: &dyn Backend) -> usize {
    let bytes = backend.read("checkpoint.json").unwrap().unwrap();
    let text = String::from_utf8(bytes).unwrap();
    let json = text.lines().next().unwrap();
    let manifest: serde_json::Value = serde_json::from_str(json).unwrap();
    manifest["tables"].as_array().unwrap().len()
}

#[test]
fn a_manifest_names_each_writer_once_however_many_segments() {
    for backend in backends() {
        let cache = open(&backend, manual());
        for i in 0..50 {
            cache.put(&format!("c/{i}"), &chunk(i)).unwrap();
        }
        cache.admin().checkpoint().unwrap();
        let bytes = backend.read("checkpoint.json").unwrap().unwrap();
        let text = String::from_utf8(bytes).unwrap();
        let manifest: serde_json::Value =
            serde_json::from_str(text.lines().next().unwrap()).unwrap();
        let writers = manifest["writers"].as_array().unwrap();
        assert_eq!(writers.len(), 1, "{writers:?}");
        assert_eq!(writers[0]["to"], 50, "segments covered");
    }
}

fn big(i: u32) -> Chunk {
    Chunk {
        text: format!("{i}").repeat(3000), // in a shared data segment
        ..chunk(i)
    }
}

fn logs(backend: &dyn Backend) -> Vec<String> {
    let listed = backend.list("").unwrap().into_iter().map(|l| l.name);
    listed.filter(|n| n.ends_with("-info.jsonl")).collect()
}

/// The writers' log segments and data objects, with their sizes.
fn segments(backend: &dyn Backend) -> Vec<(String, u64)> {
    let logs = backend.list("").unwrap().into_iter();
    let logs = logs.filter(|l| l.name.ends_with(".jsonl"));
    let data = backend.list("data/").unwrap();
    logs.chain(data).map(|l| (l.name, l.size)).collect()
}

#[test]
fn a_compaction_keeps_the_live_entries_and_frees_the_rest() {
    for backend in backends() {
        let writer = open(&backend, manual());
        for i in 0..100 {
            writer.put(&format!("c/{i}"), &chunk(i)).unwrap();
            writer.put(&format!("b/{i}"), &big(i)).unwrap();
        }
        for i in 0..50 {
            writer.put(&format!("c/{i}"), &chunk(i + 1000)).unwrap();
            writer.remove(&format!("b/{i}")).unwrap();
        }
        writer.admin().checkpoint().unwrap();
        drop(writer);
        // A second writer, of one log segment and one data segment.
        let other = open(&backend, manual());
        other.put("o/1", &big(1000)).unwrap();
        drop(other);
        let before = segments(&*backend);

        let done = Admin::compact_backend(backend.clone(), &[], Duration::ZERO, |_, _| {}).unwrap();
        assert_eq!((done.kept, done.dropped.len()), (151, 0));
        assert!(done.freed > 100 * 3000, "{done:?}");
        assert!(done.size_after < done.size_before, "{done:?}");
        let after = segments(&*backend);
        let deleted = before.iter().filter(|s| !after.contains(s));
        assert_eq!(done.freed, deleted.map(|(_, size)| size).sum::<u64>());
        let left = logs(&*backend);
        let compactor = left[0]
            .split(['.', '-'])
            .take(4)
            .collect::<Vec<_>>()
            .join("-");
        assert!(left.iter().all(|n| n.starts_with(&compactor)), "{left:?}");
        // The 151 copies' lines in one append: one segment, not one each.
        assert_eq!(left.len(), 1, "{left:?}");
        // Of the data too, only the copies' is left.
        let data = backend.list("data/").unwrap();
        assert!(data.iter().all(|d| d.name.contains(&compactor)), "{data:?}");

        let reader = open(&backend, manual());
        for i in 0..100 {
            let c = if i < 50 { chunk(i + 1000) } else { chunk(i) };
            assert_eq!(reader.get(&format!("c/{i}")).unwrap(), Some(c));
            let b = (i >= 50).then(|| big(i));
            assert_eq!(reader.get(&format!("b/{i}")).unwrap(), b);
        }
        assert_eq!(reader.get("o/1").unwrap(), Some(big(1000)));
        assert_eq!(reader.keys().unwrap().len(), 151);
        assert!(reader.warnings().is_empty(), "{:?}", reader.warnings());
        reader.admin().verify_index().unwrap();
    }
}

/// The objects of the `file` handler (one per entry) of entries written
/// again go with the segments of their lines, as in a folder; the live
/// ones are copied.
#[test]
fn the_files_of_entries_written_again_go_with_their_segments() {
    for backend in backends() {
        // `data/<writer>-<seq>[-<n>].bin`, not a shared `data/<writer>[.<n>].bin`
        // (a writer id holds three `-`).
        let entry_files = || -> Vec<String> {
            let data = backend.list("data/").unwrap().into_iter().map(|o| o.name);
            data.filter(|n| n.split('.').next().unwrap().matches('-').count() >= 4)
                .collect()
        };
        let file = PutOptions::default().handler("file");
        let writer = open(&backend, manual());
        for round in ["first", "second"] {
            for i in 0..10 {
                let value = format!("{round} {i}");
                writer.put_with(&format!("f/{i}"), &value, &file).unwrap();
            }
        }
        let written = entry_files();
        assert_eq!(written.len(), 20);
        // The writer is open, but wrote no line after the compaction's
        // snapshot: no line it writes names them.
        Admin::compact_backend(backend.clone(), &[], Duration::ZERO, |_, _| {}).unwrap();
        let left = entry_files();
        assert!(!written.iter().any(|f| left.contains(f)), "{left:?}");
        assert_eq!(left.len(), 10, "the copies' {left:?}");
        drop(writer);
        let reader = open(&backend, manual());
        for i in 0..10 {
            let value = reader.get::<String>(&format!("f/{i}")).unwrap();
            assert_eq!(value, Some(format!("second {i}")));
        }
        reader.admin().verify_index().unwrap();
        assert!(reader.warnings().is_empty(), "{:?}", reader.warnings());
    }
}

#[test]
fn writes_made_during_a_compaction_win_over_its_copies() {
    for backend in backends() {
        let writer = open(&backend, manual());
        for i in 0..40 {
            writer.put(&format!("k/{i:02}"), &chunk(i)).unwrap();
        }
        writer.admin().checkpoint().unwrap();
        let other = open(&backend, manual());
        let grace = Duration::from_secs(3600);
        Admin::compact_backend(backend.clone(), &[], grace, |done, _| {
            if done == 20 {
                // Keys copied already, and keys not copied yet; then a
                // checkpoint, which the compaction commits after.
                other.put("k/00", &chunk(500)).unwrap();
                other.remove("k/01").unwrap();
                other.put("k/30", &chunk(530)).unwrap();
                other.remove("k/31").unwrap();
                other.put("k/new", &chunk(999)).unwrap();
                other.admin().checkpoint().unwrap();
            }
        })
        .unwrap();
        writer.put("k/02", &chunk(502)).unwrap(); // a handle opened before

        for reader in [open(&backend, manual()), writer] {
            reader.refresh().unwrap();
            assert_eq!(reader.get("k/00").unwrap(), Some(chunk(500)));
            assert_eq!(reader.get::<Chunk>("k/01").unwrap(), None);
            assert_eq!(reader.get("k/02").unwrap(), Some(chunk(502)));
            assert_eq!(reader.get("k/03").unwrap(), Some(chunk(3)));
            assert_eq!(reader.get("k/30").unwrap(), Some(chunk(530)));
            assert_eq!(reader.get::<Chunk>("k/31").unwrap(), None);
            assert_eq!(reader.get("k/new").unwrap(), Some(chunk(999)));
            assert_eq!(reader.keys().unwrap().len(), 40 - 2 + 1);
            assert!(reader.warnings().is_empty(), "{:?}", reader.warnings());
        }
    }
}

#[test]
fn of_two_compactions_racing_to_commit_exactly_one_wins() {
    for backend in backends() {
        let writer = open(&backend, manual());
        for i in 0..60 {
            writer.put(&format!("c/{i}"), &chunk(i)).unwrap();
            writer.put(&format!("b/{i}"), &big(i)).unwrap();
        }
        for i in 0..20 {
            writer.remove(&format!("c/{i}")).unwrap();
        }
        drop(writer);
        // Both copy every entry before either commits.
        let copied = Barrier::new(2);
        let grace = Duration::from_secs(3600);
        let results: Vec<_> = std::thread::scope(|s| {
            let racers: Vec<_> = (0..2)
                .map(|_| {
                    let (backend, copied) = (backend.clone(), &copied);
                    s.spawn(move || {
                        Admin::compact_backend(backend, &[], grace, |done, all| {
                            if done == all {
                                copied.wait();
                            }
                        })
                    })
                })
                .collect();
            racers.into_iter().map(|r| r.join().unwrap()).collect()
        });
        let won = results.iter().filter(|r| r.is_ok()).count();
        assert_eq!(won, 1, "{results:?}");
        let lost = results.iter().find_map(|r| r.as_ref().err()).unwrap();
        assert!(
            lost.to_string().contains("another compaction committed"),
            "{lost}"
        );

        let reader = open(&backend, manual());
        for i in 0..60 {
            let c = (i >= 20).then(|| chunk(i));
            assert_eq!(reader.get(&format!("c/{i}")).unwrap(), c);
            assert_eq!(reader.get(&format!("b/{i}")).unwrap(), Some(big(i)));
        }
        assert_eq!(reader.keys().unwrap().len(), 100);
        assert!(reader.warnings().is_empty(), "{:?}", reader.warnings());

        // The next compaction, past the grace period, completes the work.
        let done = Admin::compact_backend(backend.clone(), &[], Duration::ZERO, |_, _| {});
        assert_eq!(done.unwrap().kept, 100);
        let reader = open(&backend, manual());
        assert_eq!(reader.keys().unwrap().len(), 100);
        for i in 0..60 {
            assert_eq!(reader.get(&format!("b/{i}")).unwrap(), Some(big(i)));
        }
    }
}

#[test]
fn a_writer_that_goes_on_after_a_compaction_keeps_its_new_data() {
    for backend in backends() {
        let writer = open(&backend, manual());
        for i in 0..10 {
            writer.put(&format!("b/{i}"), &big(i)).unwrap();
        }
        let grace = Duration::ZERO;
        Admin::compact_backend(backend.clone(), &[], grace, |_, _| {}).unwrap();
        // Data segments and lines after the compaction's snapshot.
        writer.put("b/new", &big(77)).unwrap();
        writer.put("b/3", &big(33)).unwrap();
        // This one deletes what the first replaced, but not those.
        let done = Admin::compact_backend(backend.clone(), &[], grace, |_, _| {}).unwrap();
        assert_eq!((done.kept, done.dropped.len()), (11, 0), "{done:?}");
        let reader = open(&backend, manual());
        assert_eq!(reader.get("b/new").unwrap(), Some(big(77)));
        assert_eq!(reader.get("b/3").unwrap(), Some(big(33)));
        assert_eq!(reader.get("b/4").unwrap(), Some(big(4)));
        assert!(reader.warnings().is_empty(), "{:?}", reader.warnings());
    }
}

#[test]
fn a_log_segment_ending_in_a_cut_line_reads_the_same_with_a_checkpoint_or_without() {
    for backend in backends() {
        let writer = open(&backend, manual());
        writer
            .put_many([("a", &chunk(1)), ("k", &chunk(3))])
            .unwrap();
        drop(writer);
        // Its one segment, the last line cut in the middle (a segment is
        // written whole: only another program leaves one so).
        let [segment] = logs(&*backend).try_into().unwrap();
        let lines = backend.read(&segment).unwrap().unwrap();
        let last = lines[..lines.len() - 1]
            .iter()
            .rposition(|&b| b == b'\n')
            .unwrap()
            + 1;
        let cut = &lines[..last + (lines.len() - last) / 2];
        backend.write(&segment, cut, false).unwrap();

        let reader = open(&backend, manual());
        assert_eq!(reader.get("a").unwrap(), Some(chunk(1)));
        assert_eq!(reader.get::<Chunk>("k").unwrap(), None);
        reader.admin().checkpoint().unwrap();
        let later = open(&backend, manual());
        later.put("later", &chunk(5)).unwrap();
        let fresh = open(&backend, manual());
        assert_eq!(fresh.get("a").unwrap(), Some(chunk(1)));
        assert_eq!(fresh.get::<Chunk>("k").unwrap(), None);
        assert_eq!(fresh.get("later").unwrap(), Some(chunk(5)));
        assert_eq!(fresh.keys().unwrap(), ["a", "later"]);
    }
}

/// Stores payloads in the writer's shared data (or, `"file-then-line"`,
/// in a file of their own), then runs `meanwhile` (once) before the put's
/// line is written.
struct DataThenLine {
    meanwhile: Mutex<Option<Box<dyn FnOnce() + Send>>>,
    own_file: bool,
}

impl DataThenLine {
    fn new(own_file: bool, meanwhile: impl FnOnce() + Send + 'static) -> DataThenLine {
        DataThenLine {
            meanwhile: Mutex::new(Some(Box::new(meanwhile))),
            own_file,
        }
    }
}

impl Handler for DataThenLine {
    fn name(&self) -> &str {
        match self.own_file {
            false => "data-then-line",
            true => "file-then-line",
        }
    }

    fn dump(&self, payload: &[u8], ctx: &mut DumpContext<'_>) -> Result<Info, StoreError> {
        let info = match self.own_file {
            false => Info::from([("bytes".to_owned(), ctx.dump_bytes(payload)?)]),
            true => Info::from([
                ("file".to_owned(), ctx.write_file("bin", payload)?.into()),
                ("len".to_owned(), (payload.len() as i64).into()),
            ]),
        };
        if let Some(meanwhile) = self.meanwhile.lock().unwrap().take() {
            meanwhile();
        }
        Ok(info)
    }

    fn load(&self, info: &Info, ctx: &LoadContext<'_>) -> Result<Vec<u8>, StoreError> {
        match (info.get("file"), info.get("len")) {
            (Some(InfoValue::Text(file)), Some(InfoValue::Int(len))) => {
                ctx.read_range(file, 0, *len as u64)
            }
            _ => ctx.load_bytes(&info["bytes"]),
        }
    }
}

#[test]
fn a_compaction_keeps_the_data_of_a_put_whose_line_came_after_its_snapshot() {
    for backend in backends() {
        let writer = open(&backend, manual());
        writer.put("before", &chunk(0)).unwrap(); // the writer's log is in the snapshot
        let compaction = {
            let backend = backend.clone();
            move || {
                let grace = Duration::from_secs(3600);
                Admin::compact_backend(backend, &[], grace, |_, _| {}).unwrap();
            }
        };
        let handler = Arc::new(DataThenLine::new(false, compaction));
        writer.register_handler(handler.clone());
        let options = PutOptions::default().handler("data-then-line");
        // Its data goes in before the compaction's snapshot, its line after.
        writer.put_with("slow", &big(1), &options).unwrap();

        // With no grace period, the next compaction deletes what the first
        // replaced.
        let handlers: Vec<Arc<dyn Handler>> = vec![handler];
        let done = Admin::compact_backend(backend.clone(), &handlers, Duration::ZERO, |_, _| {});
        let done = done.unwrap();
        assert_eq!((done.kept, done.dropped.len()), (2, 0), "{done:?}");
        let reader = open(&backend, manual());
        reader.register_handler(handlers[0].clone());
        assert_eq!(reader.get("slow").unwrap(), Some(big(1)));
        assert_eq!(reader.get("before").unwrap(), Some(chunk(0)));
        assert!(reader.warnings().is_empty(), "{:?}", reader.warnings());
    }
}

/// A file is named by the sequence its put's line will have at least: a
/// put of another thread may take that sequence first, and be in a
/// compaction's snapshot while the line naming the file comes after. The
/// file stays until a compaction copied every live line.
#[test]
fn a_compaction_keeps_the_file_of_a_put_whose_line_came_after_its_snapshot() {
    for backend in backends() {
        let writer = Arc::new(open(&backend, manual()));
        writer.put("before", &chunk(0)).unwrap();
        let meanwhile = {
            let (backend, writer) = (backend.clone(), writer.clone());
            move || {
                let other = writer.clone();
                let put = std::thread::spawn(move || other.put("other", &chunk(1)));
                put.join().unwrap().unwrap();
                let grace = Duration::from_secs(3600);
                Admin::compact_backend(backend, &[], grace, |_, _| {}).unwrap();
            }
        };
        let handler = Arc::new(DataThenLine::new(true, meanwhile));
        writer.register_handler(handler.clone());
        let options = PutOptions::default().handler("file-then-line");
        writer.put_with("slow", &big(1), &options).unwrap();

        let handlers: Vec<Arc<dyn Handler>> = vec![handler];
        let done = Admin::compact_backend(backend.clone(), &handlers, Duration::ZERO, |_, _| {});
        let done = done.unwrap();
        assert_eq!((done.kept, done.dropped.len()), (3, 0), "{done:?}");
        let reader = open(&backend, manual());
        reader.register_handler(handlers[0].clone());
        assert_eq!(reader.get("slow").unwrap(), Some(big(1)));
        assert_eq!(reader.get("other").unwrap(), Some(chunk(1)));
        assert!(reader.warnings().is_empty(), "{:?}", reader.warnings());
    }
}

#[test]
fn a_compaction_with_no_grace_keeps_the_data_of_a_put_written_after_its_snapshot() {
    for backend in backends() {
        let writer = open(&backend, manual());
        writer.put("before", &big(0)).unwrap(); // a data segment in the snapshot
        let (written, data_written) = std::sync::mpsc::channel();
        let (go, wait) = std::sync::mpsc::channel();
        let handler = Arc::new(DataThenLine::new(false, move || {
            written.send(()).unwrap();
            wait.recv().unwrap();
        }));
        writer.register_handler(handler.clone());
        std::thread::scope(|s| {
            let mut slow = None;
            Admin::compact_backend(backend.clone(), &[], Duration::ZERO, |_, _| {
                if slow.is_none() {
                    // After the snapshot: the put's data in a segment of
                    // its own, and its line once the compaction is over.
                    let writer = &writer;
                    slow = Some(s.spawn(move || {
                        let options = PutOptions::default().handler("data-then-line");
                        writer.put_with("slow", &big(1), &options)
                    }));
                    data_written.recv().unwrap();
                }
            })
            .unwrap();
            go.send(()).unwrap();
            slow.unwrap().join().unwrap().unwrap();
        });
        let reader = open(&backend, manual());
        reader.register_handler(handler);
        assert_eq!(reader.get("slow").unwrap(), Some(big(1)));
        assert_eq!(reader.get("before").unwrap(), Some(big(0)));
        assert!(reader.warnings().is_empty(), "{:?}", reader.warnings());
    }
}

#[test]
fn a_reader_open_across_a_compaction_reads_right_after_a_refresh() {
    for backend in backends() {
        let writer = open(&backend, manual());
        for i in 0..10 {
            writer.put(&format!("b/{i}"), &big(i)).unwrap();
        }
        writer.admin().checkpoint().unwrap();
        let reader = open(&backend, manual());
        assert_eq!(reader.get("b/1").unwrap(), Some(big(1)));
        drop(writer);
        // Deletes the data the reader's view points at.
        Admin::compact_backend(backend.clone(), &[], Duration::ZERO, |_, _| {}).unwrap();
        reader.refresh().unwrap();
        for i in 0..10 {
            assert_eq!(reader.get(&format!("b/{i}")).unwrap(), Some(big(i)));
        }
        assert!(reader.warnings().is_empty(), "{:?}", reader.warnings());
    }
}

/// A checkpoint's table names a line by its writer alone (the manifest
/// covers a number of its segments): a compaction retiring the segments
/// of a writer whose first segment an earlier one deleted still takes
/// the table's lines of that writer for lines it retires, and copies them.
#[test]
fn a_compaction_copies_the_lines_a_checkpoint_holds_of_a_writer_compacted_before() {
    for backend in backends() {
        let writer = open(&backend, manual());
        writer.put("first", &big(1)).unwrap();
        // Its first segments retired, and deleted at once.
        writer
            .admin()
            .compact_online(Duration::ZERO, |_, _| {})
            .unwrap();
        writer.put("second", &big(2)).unwrap();
        writer.put("third", &big(3)).unwrap();
        // The writer's later segments in a table, by its id.
        writer.admin().checkpoint().unwrap();
        let done = writer.admin().compact_online(Duration::ZERO, |_, _| {});
        assert_eq!(done.unwrap().kept, 3);
        for handle in [&writer, &open(&backend, manual())] {
            handle.refresh().unwrap();
            assert_eq!(handle.keys().unwrap(), ["first", "second", "third"]);
            assert_eq!(handle.get("second").unwrap(), Some(big(2)));
            assert!(handle.warnings().is_empty(), "{:?}", handle.warnings());
        }
    }
}

/// The bytes of a store's objects.
fn store_size(backend: &Arc<dyn Backend>) -> u64 {
    ["", "data/", "index/", "schemas/", "used/"]
        .iter()
        .flat_map(|prefix| backend.list(prefix).unwrap())
        .map(|listed| listed.size)
        .sum()
}

/// With bounds, the store compacts by itself on object storage too, with
/// the handle open all along: what the bounds removed gives its space
/// back, the data of the writer that goes on writing too.
#[test]
fn a_store_with_bounds_gives_its_space_back_by_itself() {
    for backend in backends() {
        let options = CacheOptions::default()
            .bounds(Bounds::default().max_entries(500))
            .compact_grace(Duration::ZERO);
        let cache = open(&backend, options);
        let (mut largest, mut written) = (0, 0);
        for i in 0..24_000u32 {
            let value = big(i);
            written += value.text.len() as u64;
            cache.put(&format!("k{i}"), &value).unwrap();
            if i % 500 == 0 {
                largest = largest.max(store_size(&backend));
            }
        }
        // The pass of the bounds under way ends, and one more runs, with
        // the compaction it asks for.
        cache.admin().checkpoint().unwrap();
        // About 300 MB written, 7 MB of it kept. A pass of the bounds every
        // 1,024 puts (12 MB); a compaction after a pass once the store
        // holds 8 MiB more than the payload the bounds keep, the data of
        // the writer that goes on deleted by the next one (a put under way
        // may name it). How far it grows depends on how fast the
        // compactions run beside the puts (about 90 MB at most in a debug
        // build), but a write waits for the compaction once a pass asked
        // for the next one meanwhile: never as far as half of what was
        // written.
        assert!(
            largest < written / 2,
            "{largest} bytes at most of {written}"
        );
        assert!(cache.warnings().is_empty(), "{:?}", cache.warnings());
        assert_eq!(cache.keys().unwrap().len(), 500);
        // Compacted once more: what the last one retired goes.
        let live = store_size(&backend);
        cache
            .admin()
            .compact_online(Duration::ZERO, |_, _| {})
            .unwrap();
        let size = store_size(&backend);
        assert!(size < 16 << 20, "{size} bytes left, {live} before");
        let fresh = open(&backend, manual());
        assert_eq!(fresh.keys().unwrap().len(), 500);
        assert_eq!(fresh.get("k23999").unwrap(), Some(big(23_999)));
    }
}

/// A handle that read the store between two compactions takes up the
/// second one's manifest, whatever its size and however many segments
/// are listed then: the key a line it never read (an expired put) made
/// dead, and that compaction dropped, does not come back from the first
/// one's copy it read.
#[test]
fn a_handle_reads_after_a_compaction_what_a_fresh_one_reads() {
    for backend in backends() {
        let handles: Vec<Cache> = (0..3).map(|_| open(&backend, manual())).collect();
        let compact = || {
            let done = handles[0].admin().compact_online(Duration::ZERO, |_, _| {});
            done.unwrap();
        };
        handles[0].put("k0", &chunk(0)).unwrap();
        compact();
        handles[1].put("k0", &chunk(1)).unwrap();
        handles[2].put("k4", &chunk(2)).unwrap();
        handles[0].put("k0", &chunk(3)).unwrap();
        compact();
        for handle in &handles {
            assert_eq!(handle.keys().unwrap(), ["k0", "k4"]);
        }
        let expired = PutOptions::default().ttl(Duration::from_nanos(1));
        handles[1].put_with("k4", &chunk(4), &expired).unwrap();
        handles[2].put("k0", &chunk(5)).unwrap();
        handles[0].put("k0", &chunk(6)).unwrap();
        compact();
        for handle in handles.iter().chain([&open(&backend, manual())]) {
            assert_eq!(handle.keys().unwrap(), ["k0"]);
            assert_eq!(handle.get("k0").unwrap(), Some(chunk(6)));
        }
    }
}

/// A handle's own compaction with no grace period deletes the data it
/// wrote before at once, though it goes on writing: every line naming it
/// was read, and copied. (Another writer's that went on writing waits for
/// the next compaction: a put of it under way may name it.)
#[test]
fn a_handle_s_own_compaction_deletes_its_data_at_once_while_it_writes_on() {
    for backend in backends() {
        let writer = open(&backend, manual());
        for i in 0..10 {
            writer.put(&format!("k{i}"), &big(i)).unwrap();
        }
        for i in 0..10 {
            writer.put(&format!("k{i}"), &big(i + 100)).unwrap();
        }
        let own = |backend: &Arc<dyn Backend>| {
            let prefix = format!("data/{}", writer.writer_id());
            let data = backend.list("data/").unwrap();
            data.into_iter()
                .filter(|d| d.name.starts_with(&prefix))
                .count()
        };
        assert_eq!(own(&backend), 20);
        let done = writer.admin().compact_online(Duration::ZERO, |done, _| {
            if done == 1 {
                // A line after the compaction's snapshot.
                writer.put("after", &chunk(0)).unwrap();
            }
        });
        assert_eq!(done.unwrap().kept, 10);
        assert_eq!(own(&backend), 0);
        let reader = open(&backend, manual());
        for i in 0..10 {
            assert_eq!(reader.get(&format!("k{i}")).unwrap(), Some(big(i + 100)));
        }
        assert_eq!(reader.get("after").unwrap(), Some(chunk(0)));
    }
}

#[test]
fn the_grace_period_runs_from_a_compactions_commit_not_its_start() {
    for backend in backends() {
        let writer = open(&backend, manual());
        for i in 0..10 {
            writer.put(&format!("b/{i}"), &big(i)).unwrap();
        }
        drop(writer);
        let grace = Duration::from_millis(300);
        // Its copies' data is what the next one replaces.
        Admin::compact_backend(backend.clone(), &[], grace, |_, _| {}).unwrap();
        let reader = open(&backend, manual());
        // A compaction that takes longer than the grace period; the reader
        // refreshes just before it commits.
        Admin::compact_backend(backend.clone(), &[], grace, |done, all| {
            if done == all {
                std::thread::sleep(grace * 2);
                reader.refresh().unwrap();
            }
        })
        .unwrap();
        // One right after: what the one before replaced is not old enough.
        Admin::compact_backend(backend.clone(), &[], grace, |_, _| {}).unwrap();
        for i in 0..10 {
            assert_eq!(reader.get(&format!("b/{i}")).unwrap(), Some(big(i)));
        }
        assert!(reader.warnings().is_empty(), "{:?}", reader.warnings());
    }
}

#[test]
fn a_fresh_open_after_a_compaction_reads_its_copies_not_the_segments_they_retire() {
    let store = Counting::new();
    let writer = open_counting(&store, manual());
    for i in 0..20 {
        writer.put(&format!("c/{i}"), &chunk(i)).unwrap();
    }
    let grace = Duration::from_secs(3600);
    store.take();
    writer.admin().compact_online(grace, |_, _| {}).unwrap();
    // The handle that copies reads each segment; the commit covers them
    // without reading them again.
    let compaction = store.take();
    assert!(compaction["GET"] < 2 * 20, "{compaction:?}");
    // The retired segments are still there (for the grace period), but
    // the manifest covers them.
    let reader = open_counting(&store, manual());
    assert_eq!(
        store.take(),
        counts(&[("GET", 3), ("LIST", 1)]),
        "the layout version, one listing, the manifest and the copies' segment"
    );
    assert_eq!(reader.keys().unwrap().len(), 20);
}

/// Notes each sync of an append and each write of the manifest.
#[derive(Default)]
struct Syncs {
    events: Arc<Mutex<Vec<String>>>,
}

impl Syncs {
    fn note(&self, name: &str) {
        if name == "checkpoint.json" {
            self.events.lock().unwrap().push("manifest".into());
        }
    }

    /// What happened since the last call.
    fn take(&self) -> Vec<String> {
        std::mem::take(&mut *self.events.lock().unwrap())
    }
}

/// An appender of [`Syncs`].
struct SyncsAppender {
    inner: Box<dyn Appender>,
    name: String,
    events: Arc<Mutex<Vec<String>>>,
}

impl Appender for SyncsAppender {
    fn append(&mut self, bytes: &[u8], align: u64) -> Result<Appended, BackendError> {
        self.inner.append(bytes, align)
    }
    fn sync(&mut self) -> Result<(), BackendError> {
        let event = format!("sync {}", self.name);
        self.events.lock().unwrap().push(event);
        self.inner.sync()
    }
    fn end(&self) -> (String, u64) {
        self.inner.end()
    }
}

impl Hooks for Syncs {
    fn write(
        &self,
        inner: &dyn Backend,
        name: &str,
        bytes: &[u8],
        sync: bool,
    ) -> Result<(), BackendError> {
        self.note(name);
        inner.write(name, bytes, sync)
    }
    fn create(
        &self,
        inner: &dyn Backend,
        name: &str,
        bytes: &[u8],
        sync: bool,
    ) -> Result<Created, BackendError> {
        self.note(name);
        inner.create(name, bytes, sync)
    }
    fn replace(
        &self,
        inner: &dyn Backend,
        name: &str,
        bytes: &[u8],
        v: &Version,
    ) -> Result<Replaced, BackendError> {
        self.note(name);
        inner.replace(name, bytes, v)
    }
    fn sync(&self, inner: &dyn Backend, names: &[String]) -> Result<(), BackendError> {
        let mut events = self.events.lock().unwrap();
        events.extend(names.iter().map(|name| format!("sync {name}")));
        drop(events);
        inner.sync(names)
    }
    fn append_to(
        &self,
        inner: &dyn Backend,
        name: &str,
    ) -> Result<Box<dyn Appender>, BackendError> {
        Ok(Box::new(SyncsAppender {
            inner: inner.append_to(name)?,
            name: name.to_owned(),
            events: self.events.clone(),
        }))
    }
}

#[test]
fn a_compaction_syncs_its_copies_before_it_commits_its_manifest() {
    let backend = Arc::new(Wrapped::new(Arc::new(Memory::new()), Syncs::default()));
    let writer = Cache::open_backend(backend.clone(), manual()).unwrap();
    for i in 0..10 {
        writer.put(&format!("c/{i}"), &chunk(i)).unwrap();
        writer.put(&format!("b/{i}"), &big(i)).unwrap();
    }
    drop(writer);
    backend.take();
    let grace = Duration::from_secs(3600);
    Admin::compact_backend(backend.clone(), &[], grace, |_, _| {}).unwrap();
    let events = backend.take();
    let manifest = events.iter().position(|e| e == "manifest");
    let before = &events[..manifest.expect("the manifest committed")];
    // Where a write is not durable once done, a power cut could else keep
    // the manifest that retires the originals and lose the copies.
    let synced = |suffix: &str| {
        before
            .iter()
            .any(|e| e.starts_with("sync ") && e.ends_with(suffix))
    };
    assert!(synced("-info.jsonl"), "the copies' lines: {events:?}");
    assert!(synced(".bin"), "the copies' shared data: {events:?}");
}

/// Reads of the manifest that find the manifest held before, `stale`
/// times: as a handle that read it just before a build replaced it sees
/// it.
#[derive(Default)]
struct StaleManifest {
    before: Mutex<Option<(Vec<u8>, Version)>>,
    stale: Mutex<usize>,
}

impl StaleManifest {
    fn read_stale(&self, times: usize) {
        *self.stale.lock().unwrap() = times;
    }
}

impl Wrapped<StaleManifest> {
    /// Keeps the manifest as it is now, to be read `stale` times later.
    fn keep(&self) {
        *self.before.lock().unwrap() = self.inner().read_versioned("checkpoint.json").unwrap();
    }
}

impl Hooks for StaleManifest {
    fn read_versioned(
        &self,
        inner: &dyn Backend,
        name: &str,
    ) -> Result<Option<(Vec<u8>, Version)>, BackendError> {
        let mut stale = self.stale.lock().unwrap();
        if name == "checkpoint.json" && *stale > 0 {
            *stale -= 1;
            return Ok(self.before.lock().unwrap().clone());
        }
        inner.read_versioned(name)
    }
}

#[test]
fn an_open_that_read_a_manifest_just_replaced_reads_it_again_five_times_at_most() {
    let backend = Arc::new(Wrapped::new(
        Arc::new(Memory::new()),
        StaleManifest::default(),
    ));
    let writer = Cache::open_backend(backend.clone(), manual()).unwrap();
    for i in 0..10 {
        writer.put(&format!("c/{i}"), &chunk(i)).unwrap();
    }
    writer.admin().checkpoint().unwrap();
    backend.keep();
    // The next build merges the two tables and deletes the first, which
    // the manifest kept names.
    for i in 10..20 {
        writer.put(&format!("c/{i}"), &chunk(i)).unwrap();
    }
    writer.admin().checkpoint().unwrap();
    for (stale, damaged) in [(1, false), (5, false), (6, true)] {
        backend.read_stale(stale);
        let reader = Cache::open_backend(backend.clone(), manual()).unwrap();
        assert_eq!(reader.len().unwrap(), 20, "{stale} stale reads");
        let warned = !damage_warnings(&reader).is_empty();
        assert_eq!(
            warned,
            damaged,
            "{stale} stale reads: {:?}",
            reader.warnings()
        );
    }
}

#[test]
fn each_log_segment_counts_8_kib_at_least_towards_a_checkpoint() {
    let backend: Arc<dyn Backend> = Arc::new(Memory::new());
    // Room for 20 segments: 100 small puts (a line of 200 bytes or so
    // each, 20 KB in all) bring a build.
    let writer = open(
        &backend,
        CacheOptions::default().checkpoint_bytes(20 * 8 * 1024),
    );
    for i in 0..100 {
        writer.put(&format!("c/{i}"), &chunk(i)).unwrap();
    }
    drop(writer); // waits for a build in progress
    assert!(backend.read("checkpoint.json").unwrap().is_some());
}

/// Races a build on demand: hides objects from listings (as a segment
/// still being written is not listed yet), moves the manifest on under a
/// build about to commit, and runs another handle's step just before a
/// build lists the tables it may delete.
#[derive(Default)]
struct Racing {
    hidden: Mutex<Vec<String>>,
    /// How many of the next commits find the manifest written again since
    /// their build read it.
    moved: Mutex<usize>,
    /// Whether the next commit is answered "changed" once done: its
    /// response lost, the client's retry finds the manifest it wrote.
    lost_answer: Mutex<bool>,
    /// Runs once, at the next listing of `index/`.
    before_tables_listed: Mutex<Option<Box<dyn FnOnce() + Send>>>,
    /// Runs each time the manifest is moved on under a commit.
    while_moving: Mutex<Option<Box<dyn FnMut() + Send>>>,
    manifest_reads: Mutex<usize>,
    /// The log segments read, in order.
    segment_reads: Mutex<Vec<String>>,
}

impl Racing {
    fn hide(&self, names: &[String]) {
        *self.hidden.lock().unwrap() = names.to_vec();
    }

    fn move_manifest_under_commits(&self, times: usize) {
        *self.moved.lock().unwrap() = times;
    }

    fn lose_the_next_answer(&self) {
        *self.lost_answer.lock().unwrap() = true;
    }

    fn before_tables_listed(&self, step: impl FnOnce() + Send + 'static) {
        *self.before_tables_listed.lock().unwrap() = Some(Box::new(step));
    }

    fn while_moving(&self, step: impl FnMut() + Send + 'static) {
        *self.while_moving.lock().unwrap() = Some(Box::new(step));
    }

    /// The reads of the manifest since the last call.
    fn take_manifest_reads(&self) -> usize {
        std::mem::take(&mut *self.manifest_reads.lock().unwrap())
    }

    /// The log segments read since the last call, in order.
    fn take_segment_reads(&self) -> Vec<String> {
        std::mem::take(&mut *self.segment_reads.lock().unwrap())
    }

    fn note_read(&self, name: &str) {
        if name == "checkpoint.json" {
            *self.manifest_reads.lock().unwrap() += 1;
        }
        if name.ends_with("-info.jsonl") {
            self.segment_reads.lock().unwrap().push(name.to_owned());
        }
    }
}

/// Memory that races as [`Racing`] says.
fn racing() -> Arc<Wrapped<Racing>> {
    Arc::new(Wrapped::new(Arc::new(Memory::new()), Racing::default()))
}

/// A store on a [`Racing`] backend with one entry, `c/0`, and a checkpoint
/// over it, and the handle that wrote them (checkpoints by hand).
fn racing_with_a_checkpoint() -> (Arc<Wrapped<Racing>>, Cache) {
    let backend = racing();
    let writer = Cache::open_backend(backend.clone(), manual()).unwrap();
    writer.put("c/0", &chunk(0)).unwrap();
    writer.admin().checkpoint().unwrap();
    (backend, writer)
}

impl Hooks for Racing {
    fn read(&self, inner: &dyn Backend, name: &str) -> Result<Option<Vec<u8>>, BackendError> {
        self.note_read(name);
        inner.read(name)
    }
    fn list(&self, inner: &dyn Backend, prefix: &str) -> Result<Vec<Listed>, BackendError> {
        if prefix == "index/" {
            let step = self.before_tables_listed.lock().unwrap().take();
            if let Some(step) = step {
                step();
            }
        }
        let hidden = self.hidden.lock().unwrap().clone();
        let listed = inner.list(prefix)?.into_iter();
        Ok(listed.filter(|l| !hidden.contains(&l.name)).collect())
    }
    fn replace(
        &self,
        inner: &dyn Backend,
        name: &str,
        bytes: &[u8],
        v: &Version,
    ) -> Result<Replaced, BackendError> {
        let mut moved = self.moved.lock().unwrap();
        if name == "checkpoint.json" && *moved > 0 {
            *moved -= 1;
            if let Some(step) = self.while_moving.lock().unwrap().as_mut() {
                step();
            }
            let now = inner.read(name)?.unwrap();
            inner.write(name, &now, false)?;
        }
        drop(moved);
        let replaced = inner.replace(name, bytes, v)?;
        match std::mem::take(&mut *self.lost_answer.lock().unwrap()) {
            true => Ok(Replaced::Changed),
            false => Ok(replaced),
        }
    }
}

/// The manifest as JSON.
fn manifest(backend: &dyn Backend) -> serde_json::Value {
    let bytes = backend.read("checkpoint.json").unwrap().unwrap();
    let text = String::from_utf8(bytes).unwrap();
    serde_json::from_str(text.lines().next().unwrap()).unwrap()
}

/// The segments the manifest covers, by writer, in its order.
fn covered(backend: &dyn Backend) -> Vec<u64> {
    let manifest = manifest(backend);
    let writers = manifest["writers"].as_array().unwrap();
    writers.iter().map(|w| w["to"].as_u64().unwrap()).collect()
}

#[test]
fn a_checkpoint_with_nothing_new_to_cover_writes_nothing() {
    let store = Counting::new();
    let writer = open_counting(&store, manual());
    for i in 0..20 {
        writer.put(&format!("c/{i}"), &chunk(i)).unwrap();
    }
    writer.admin().checkpoint().unwrap();
    store.take();
    writer.admin().checkpoint().unwrap();
    let again = store.take();
    assert_eq!(again.get("PUT"), None, "{again:?}");
    assert_eq!(again.get("DELETE"), None, "{again:?}");
}

#[test]
fn a_build_reads_the_manifest_once_and_again_only_if_its_commit_failed() {
    let (backend, writer) = racing_with_a_checkpoint();
    writer.put("c/1", &chunk(1)).unwrap();
    backend.take_manifest_reads();
    writer.admin().checkpoint().unwrap();
    assert_eq!(backend.take_manifest_reads(), 0);
}

#[test]
fn a_build_that_finds_the_manifest_moved_on_tries_again_eight_times_at_most() {
    for moved in [1, 7, 8] {
        let (backend, writer) = racing_with_a_checkpoint();
        for i in 1..10 {
            writer.put(&format!("c/{i}"), &chunk(i)).unwrap();
        }
        backend.move_manifest_under_commits(moved);
        let done = writer.admin().checkpoint();
        let tables = tables(&*backend);
        if moved < 8 {
            done.unwrap();
            assert_eq!(covered(&*backend), [10], "{moved} times moved");
            assert_eq!(tables.len(), 1, "{moved} times moved: {tables:?}");
        } else {
            let e = done.unwrap_err().to_string();
            assert!(e.contains("committed a checkpoint 8 times"), "{e}");
            assert_eq!(covered(&*backend), [1], "the manifest as it was");
            assert_eq!(tables.len(), 1, "the losers' tables deleted: {tables:?}");
        }
    }
}

#[test]
fn a_build_keeps_the_table_of_a_build_that_began_after_its_commit() {
    let backend = racing();
    let first = Cache::open_backend(backend.clone(), manual()).unwrap();
    let second = Arc::new(Cache::open_backend(backend.clone(), manual()).unwrap());
    for i in 0..10 {
        first.put(&format!("c/{i}"), &chunk(i)).unwrap();
    }
    first.admin().checkpoint().unwrap();
    for i in 10..20 {
        first.put(&format!("c/{i}"), &chunk(i)).unwrap();
    }
    // Between the first's commit and its deletion of the tables no
    // manifest names, the second writes and builds on what it committed.
    let other = second.clone();
    backend.before_tables_listed(move || {
        other.put("s", &chunk(99)).unwrap();
        other.admin().checkpoint().unwrap();
    });
    first.admin().checkpoint().unwrap();
    let reader = Cache::open_backend(backend.clone(), manual()).unwrap();
    assert_eq!(reader.len().unwrap(), 21);
    assert!(reader.warnings().is_empty(), "{:?}", reader.warnings());
    assert_eq!(manifest_tables(&*backend), tables(&*backend).len());
}

#[test]
fn small_builds_keep_a_table_of_their_own_until_they_add_up() {
    for backend in backends() {
        let writer = open(&backend, manual());
        for i in 0..100 {
            writer.put(&format!("c/{i}"), &chunk(i)).unwrap();
        }
        writer.admin().checkpoint().unwrap();
        // 5 entries beside 100: a table of their own.
        for i in 100..105 {
            writer.put(&format!("c/{i}"), &chunk(i)).unwrap();
        }
        writer.admin().checkpoint().unwrap();
        assert_eq!(manifest_tables(&*backend), 2);
        // 30 more: 5 and 35 merge, then 100 and 35 (100 is under 4 times 35).
        for i in 105..135 {
            writer.put(&format!("c/{i}"), &chunk(i)).unwrap();
        }
        writer.admin().checkpoint().unwrap();
        assert_eq!(manifest_tables(&*backend), 1);
        let reader = open(&backend, manual());
        assert_eq!(reader.len().unwrap(), 135);
    }
}

/// The log segments of the store, oldest first.
fn log_segments(backend: &dyn Backend) -> Vec<String> {
    let mut names = logs(backend);
    names.sort_by_key(|n| (n.len(), n.clone()));
    names
}

#[test]
fn a_background_build_covers_a_writers_segments_only_up_to_one_it_has_not_seen() {
    let backend = racing();
    let writer = Cache::open_backend(backend.clone(), manual()).unwrap();
    for i in 0..5 {
        writer.put(&format!("c/{i}"), &chunk(i)).unwrap();
    }
    // Segment 3 is not listed yet (written on another thread, say) when
    // a handle that builds in the background opens: it holds 0, 1, 2 and 4.
    let segments = log_segments(&*backend);
    backend.hide(&segments[3..4]);
    let builder = Cache::open_backend(backend.clone(), CacheOptions::default().checkpoint_bytes(1));
    let builder = builder.unwrap();
    builder.put("b", &chunk(9)).unwrap();
    drop(builder); // waits for its build
    backend.hide(&[]);
    let mut covered = covered(&*backend);
    covered.sort();
    assert_eq!(covered, [1, 3], "the first writer's up to segment 3");
    let reader = Cache::open_backend(backend.clone(), manual()).unwrap();
    assert_eq!(reader.get("c/3").unwrap(), Some(chunk(3)));
    assert_eq!(reader.len().unwrap(), 6);
}

#[test]
fn a_build_in_the_background_after_damage_reads_the_segments_its_handle_has_not() {
    let backend: Arc<dyn Backend> = Arc::new(Memory::new());
    let writer = open(&backend, manual());
    for i in 0..20 {
        writer.put(&format!("c/{i}"), &chunk(i)).unwrap();
    }
    writer.admin().checkpoint().unwrap();
    flip(&*backend, &tables(&*backend)[0], 10);
    let builder = open(&backend, CacheOptions::default().checkpoint_bytes(1));
    assert_eq!(damage_warnings(&builder).len(), 1);
    // Written after the builder listed the logs: it does not hold them.
    for i in 20..25 {
        writer.put(&format!("c/{i}"), &chunk(i)).unwrap();
    }
    builder.put("b", &chunk(9)).unwrap();
    drop(builder); // waits for its build, from scratch
    let mut covered = covered(&*backend);
    covered.sort();
    assert_eq!(covered, [1, 25]);
    let reader = open(&backend, manual());
    assert_eq!(reader.len().unwrap(), 26);
    assert!(reader.warnings().is_empty(), "{:?}", reader.warnings());
}

#[test]
fn a_commit_whose_answer_was_lost_keeps_its_table() {
    let (backend, writer) = racing_with_a_checkpoint();
    writer.put("c/1", &chunk(1)).unwrap();
    backend.lose_the_next_answer();
    writer.admin().checkpoint().unwrap();
    assert_eq!(covered(&*backend), [2]);
    let reader = Cache::open_backend(backend.clone(), manual()).unwrap();
    assert_eq!(reader.len().unwrap(), 2);
    assert!(reader.warnings().is_empty(), "{:?}", reader.warnings());
    assert_eq!(manifest_tables(&*backend), tables(&*backend).len());
}

#[test]
fn a_compaction_overtaken_by_checkpoints_reads_again_only_the_segments_written_since() {
    let (backend, writer) = racing_with_a_checkpoint();
    for i in 1..20 {
        writer.put(&format!("c/{i}"), &chunk(i)).unwrap();
    }
    writer.admin().checkpoint().unwrap();
    // Each time another checkpoint commits under the compaction's commit,
    // a put is made first: a segment of the log the next try must cover.
    let writer = Arc::new(writer);
    let late = writer.clone();
    let mut n = 100;
    backend.while_moving(move || {
        late.put(&format!("late/{n}"), &chunk(n)).unwrap();
        n += 1;
    });
    backend.move_manifest_under_commits(3);
    let progress = backend.clone();
    Admin::compact_backend(
        backend.clone(),
        &[],
        Duration::from_secs(3600),
        |done, all| {
            if done == all {
                progress.take_segment_reads();
            }
        },
    )
    .unwrap();
    // The first try read the segments after the compaction's snapshot
    // (its copies); each try after it, the one put since.
    let reads = backend.take_segment_reads();
    let mut once = reads.clone();
    once.sort();
    once.dedup();
    assert_eq!(reads.len(), once.len(), "a segment read twice: {reads:?}");
    assert!(reads.len() >= 4, "{reads:?}");
    let fresh = Cache::open_backend(backend.clone(), manual()).unwrap();
    assert_eq!(fresh.admin().verify_index().unwrap(), 23);
    for i in 0..20 {
        assert_eq!(
            fresh.get::<Chunk>(&format!("c/{i}")).unwrap(),
            Some(chunk(i))
        );
    }
    for n in 100..103 {
        assert_eq!(
            fresh.get::<Chunk>(&format!("late/{n}")).unwrap(),
            Some(chunk(n))
        );
    }
    assert!(fresh.warnings().is_empty(), "{:?}", fresh.warnings());
}
