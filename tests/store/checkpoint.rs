//! Checkpoints of the cache store's index: built online, taken up by other
//! handles, never trusted when damaged, safe under kill -9; and the logs of
//! writers that are gone taken up by the next ones. The child processes
//! of the kill -9 test are `child_writer` and `child_checkpointer`.

use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use codec::store::backend::folder::Folder;
use codec::store::backend::{Backend, BackendError, Mapped, Version};
use codec::store::Admin;
use codec::{Cache, CacheOptions};

use crate::fixtures::wrapped::{Hooks, Wrapped};
use crate::fixtures::{child, chunk, manual, Chunk};

fn tables(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out: Vec<_> = std::fs::read_dir(dir.join("index"))
        .map(|l| l.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    out.sort();
    out
}

/// A folder store whose checkpoints are built by hand, with `n` entries
/// (`k0`, `k1`, ...) put and a checkpoint built over them.
fn checkpointed(n: u32) -> (tempfile::TempDir, Cache) {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open_with(dir.path(), manual()).unwrap();
    for i in 0..n {
        cache.put(&format!("k{i}"), &chunk(i)).unwrap();
    }
    cache.admin().checkpoint().unwrap();
    (dir, cache)
}

#[test]
fn a_checkpoint_covers_the_logs_and_later_lines_are_read_after_it() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open_with(dir.path(), manual()).unwrap();
    for i in 0..300 {
        cache.put(&format!("k{i}"), &chunk(i)).unwrap();
    }
    cache.remove("k7").unwrap();
    cache.admin().checkpoint().unwrap();
    assert!(dir.path().join("checkpoint.json").exists());
    assert_eq!(tables(dir.path()).len(), 1);
    // After it: overwrites, a removal, a key put back.
    cache.put("k1", &chunk(1001)).unwrap();
    cache.remove("k2").unwrap();
    cache.put("k7", &chunk(7007)).unwrap();
    let reader = Cache::open_with(dir.path(), manual()).unwrap();
    assert_eq!(reader.admin().verify_index().unwrap(), 300);
    assert_eq!(reader.get::<Chunk>("k1").unwrap(), Some(chunk(1001)));
    assert_eq!(reader.get::<Chunk>("k2").unwrap(), None);
    assert_eq!(reader.get::<Chunk>("k7").unwrap(), Some(chunk(7007)));
    assert_eq!(reader.get::<Chunk>("k299").unwrap(), Some(chunk(299)));
    assert_eq!(reader.len().unwrap(), 299);
    assert!(reader.warnings().is_empty(), "{:?}", reader.warnings());

    // Later checkpoints merge small tables into the one before.
    for round in 0..5u64 {
        for i in 0..50 {
            cache.put(&format!("r{round}/{i}"), &chunk(i)).unwrap();
        }
        cache.admin().checkpoint().unwrap();
    }
    assert!(tables(dir.path()).len() <= 3, "{:?}", tables(dir.path()));
    let reader = Cache::open_with(dir.path(), manual()).unwrap();
    assert_eq!(reader.len().unwrap(), 299 + 250);
    assert_eq!(reader.get::<Chunk>("k1").unwrap(), Some(chunk(1001)));
    assert_eq!(reader.get::<Chunk>("r4/49").unwrap(), Some(chunk(49)));
}

#[test]
fn checkpoints_build_by_themselves_past_the_threshold() {
    let dir = tempfile::tempdir().unwrap();
    let options = CacheOptions::default().checkpoint_bytes(4096);
    let cache = Cache::open_with(dir.path(), options).unwrap();
    for i in 0..2000 {
        cache.put(&format!("k{i}"), &chunk(i)).unwrap();
    }
    drop(cache); // waits for a build in progress
    assert!(dir.path().join("checkpoint.json").exists());
    let reader = Cache::open_with(dir.path(), manual()).unwrap();
    // Builds run while the puts go on: the last one covers some of them.
    assert!(reader.admin().verify_index().unwrap() > 0);
    for i in 0..2000 {
        assert_eq!(
            reader.get::<Chunk>(&format!("k{i}")).unwrap(),
            Some(chunk(i))
        );
    }
    assert!(reader.warnings().is_empty(), "{:?}", reader.warnings());
}

/// Flips one byte of `path` at `at` (from the end if negative).
fn flip(path: &Path, at: i64) {
    let mut bytes = std::fs::read(path).unwrap();
    let at = if at < 0 {
        bytes.len() - at.unsigned_abs() as usize
    } else {
        at as usize
    };
    bytes[at] ^= 0x20;
    std::fs::write(path, bytes).unwrap();
}

#[test]
fn a_damaged_checkpoint_is_never_trusted_and_is_rebuilt_with_a_warning() {
    // Damage in a table's entries (found at a lookup), its header, its
    // checksums, the manifest; a table or a log line gone.
    type Damage = fn(&Path);
    let damages: [(&str, Damage); 5] = [
        ("entries", |dir| flip(&tables(dir)[0], 64 + 32 * 500 + 3)),
        ("header", |dir| flip(&tables(dir)[0], 20)),
        ("block checksums", |dir| flip(&tables(dir)[0], -2)),
        ("manifest", |dir| flip(&dir.join("checkpoint.json"), 12)),
        ("table gone", |dir| {
            std::fs::remove_file(&tables(dir)[0]).unwrap()
        }),
    ];
    for (what, damage) in damages {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::open_with(dir.path(), manual()).unwrap();
        for i in 0..1000 {
            cache.put(&format!("k{i}"), &chunk(i)).unwrap();
        }
        cache.admin().checkpoint().unwrap();
        drop(cache);
        damage(dir.path());

        let reader = Cache::open_with(dir.path(), manual()).unwrap();
        for i in 0..1000 {
            let got = reader.get::<Chunk>(&format!("k{i}")).unwrap();
            assert_eq!(got, Some(chunk(i)), "{what}: k{i}");
        }
        let warnings = reader.warnings();
        assert!(
            warnings.iter().any(|w| w.contains("checkpoint is damaged")),
            "{what}: {warnings:?}"
        );
        // The next checkpoint is built from the logs alone.
        reader.admin().checkpoint().unwrap();
        let fresh = Cache::open_with(dir.path(), manual()).unwrap();
        assert_eq!(fresh.admin().verify_index().unwrap(), 1000, "{what}");
        assert_eq!(fresh.get::<Chunk>("k500").unwrap(), Some(chunk(500)));
        assert!(
            fresh.warnings().is_empty(),
            "{what}: {:?}",
            fresh.warnings()
        );
    }
}

#[test]
fn a_checkpoint_built_while_a_line_is_half_written_covers_it_once_whole() {
    // Another writer's log, as it appends "a" then "k": its last line cut
    // in the middle, then completed.
    let source_dir = tempfile::tempdir().unwrap();
    let source = Cache::open_with(source_dir.path(), manual()).unwrap();
    source.put("a", &chunk(1)).unwrap();
    source.put("k", &chunk(3)).unwrap();
    let source_log = source_dir
        .path()
        .join(format!("{}-info.jsonl", source.writer_id()));
    let lines = std::fs::read(source_log).unwrap();
    drop(source);
    let dir = tempfile::tempdir().unwrap();
    let reader = Cache::open_with(dir.path(), manual()).unwrap();
    for schema in std::fs::read_dir(source_dir.path().join("schemas")).unwrap() {
        let schema = schema.unwrap();
        let to = dir.path().join("schemas").join(schema.file_name());
        std::fs::copy(schema.path(), to).unwrap();
    }
    let last = lines[..lines.len() - 1]
        .iter()
        .rposition(|&b| b == b'\n')
        .unwrap()
        + 1;
    let (first, rest) = lines.split_at(last + (lines.len() - last) / 2);
    let log = dir.path().join("other-info.jsonl");
    std::fs::write(&log, first).unwrap();
    reader.refresh().unwrap();
    assert_eq!(reader.get::<Chunk>("a").unwrap(), Some(chunk(1)));
    assert_eq!(reader.get::<Chunk>("k").unwrap(), None);
    reader.admin().checkpoint().unwrap();
    let mut file = std::fs::OpenOptions::new().append(true).open(&log).unwrap();
    std::io::Write::write_all(&mut file, rest).unwrap();

    let fresh = Cache::open_with(dir.path(), manual()).unwrap();
    assert_eq!(fresh.get::<Chunk>("a").unwrap(), Some(chunk(1)));
    assert_eq!(fresh.get::<Chunk>("k").unwrap(), Some(chunk(3)));
    assert!(fresh.warnings().is_empty(), "{:?}", fresh.warnings());
    reader.refresh().unwrap();
    assert_eq!(reader.get::<Chunk>("k").unwrap(), Some(chunk(3)));
}

#[test]
fn rebuild_index_starts_again_from_the_logs() {
    let (dir, cache) = checkpointed(100);
    drop(cache);
    let table = &tables(dir.path())[0];
    flip(table, 64 + 5);
    let reader = Cache::open_with(dir.path(), manual()).unwrap();
    // The damage is named by its table, and so is the fix.
    let err = reader.admin().verify_index().unwrap_err().to_string();
    let name = table.file_name().unwrap().to_string_lossy();
    assert!(
        err.contains(&format!("index/{name}: block 0 checksum mismatch")),
        "{err}"
    );
    assert!(err.contains("codec verify --rebuild-index"), "{err}");
    // A handle that meets it reading keys puts it aside, naming it too.
    assert_eq!(reader.keys().unwrap().len(), 100);
    let warnings = reader.warnings();
    assert!(
        (warnings.iter()).any(|w| w.contains(&format!("index/{name}: block 0 checksum mismatch"))),
        "{warnings:?}"
    );
    drop(reader);
    assert_eq!(Admin::rebuild_index(dir.path()).unwrap(), 100);
    let reader = Cache::open_with(dir.path(), manual()).unwrap();
    assert_eq!(reader.admin().verify_index().unwrap(), 100);
    assert!(Admin::rebuild_index(dir.path().join("nothing")).is_err());
}

/// Puts entries (with overwrites) at a few thousand a second, printing
/// `ack <n>` after each; its own checkpoints are left to the checkpointer.
#[test]
#[ignore = "a child process of the tests below"]
fn child_writer() {
    let Some(dir) = child::var::<PathBuf>("CODEC_DIR") else {
        return;
    };
    let writer: u32 = child::var("CODEC_WRITER").unwrap();
    let cache = Cache::open_with(&dir, manual()).unwrap();
    for n in 0u32..6000 {
        if n % 4 == 0 {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        cache.put(&format!("w{writer}/{n}"), &chunk(n)).unwrap();
        if n % 7 == 6 {
            cache
                .put(&format!("w{writer}/{}", n - 1), &chunk(n + 1_000_000))
                .unwrap();
        }
        println!("ack {n}");
    }
}

/// Builds checkpoints one after the other, printing `ack` after each.
#[test]
#[ignore = "a child process of the tests below"]
fn child_checkpointer() {
    let Some(dir) = child::var::<PathBuf>("CODEC_DIR") else {
        return;
    };
    let cache = Cache::open_with(&dir, manual()).unwrap();
    loop {
        cache.admin().checkpoint().unwrap();
        println!("ack");
    }
}

fn ack(line: &str) -> Option<u32> {
    line.rfind("ack ")
        .and_then(|i| line[i + 4..].trim().parse().ok())
}

/// Whether `got` is what key `n` of a writer may hold once `done` entries
/// were acknowledged: every 7th step overwrote the entry before it (the
/// last one perhaps unacknowledged yet).
fn as_expected(got: &Chunk, n: u32, done: u32) -> bool {
    let overwritten = chunk(n + 1 + 1_000_000);
    match n % 7 {
        5 if n + 1 < done => *got == overwritten,
        5 => *got == chunk(n) || *got == overwritten,
        _ => *got == chunk(n),
    }
}

#[test]
fn kill_9_during_checkpoints_loses_no_acknowledged_entry() {
    let dir = tempfile::tempdir().unwrap();
    let acked: Vec<Arc<Mutex<u32>>> = (0..2).map(|_| Arc::new(Mutex::new(0))).collect();
    let mut writers = Vec::new();
    let mut readers = Vec::new();
    for w in 0..2u32 {
        let mut c = child!(child_writer)
            .env("CODEC_DIR", dir.path())
            .env("CODEC_WRITER", w.to_string())
            .spawn();
        let out = c.stdout.take().unwrap();
        let count = acked[w as usize].clone();
        readers.push(std::thread::spawn(move || {
            for line in BufReader::new(out).lines().map_while(Result::ok) {
                if let Some(n) = ack(&line) {
                    *count.lock().unwrap() = n + 1;
                }
            }
        }));
        writers.push(c);
    }
    for point in 0..20u64 {
        let mut c = child!(child_checkpointer)
            .env("CODEC_DIR", dir.path())
            .spawn();
        let out = c.stdout.take().unwrap();
        let mut lines = BufReader::new(out).lines();
        // Let it finish a few checkpoints, then kill it somewhere in the
        // next one: after a varying pause.
        for _ in 0..1 + point % 3 {
            (lines.next().and_then(Result::ok)).unwrap_or_else(|| c.ended_before("a checkpoint"));
        }
        std::thread::sleep(std::time::Duration::from_micros(point * 397 % 5000));
        c.kill().unwrap(); // SIGKILL
        c.wait().unwrap();
        // What was acknowledged before the reader opened (it sees later
        // overwrites of keys it knows only after a refresh).
        let acknowledged: Vec<u32> = acked.iter().map(|c| *c.lock().unwrap()).collect();
        let reader = Cache::open_with(dir.path(), manual()).unwrap();
        for (w, &done) in acknowledged.iter().enumerate() {
            for n in (0..done).step_by(13).chain(done.checked_sub(1)) {
                let key = format!("w{w}/{n}");
                let got = reader.get::<Chunk>(&key).unwrap();
                let got = got.unwrap_or_else(|| panic!("point {point}: {key} lost"));
                assert!(as_expected(&got, n, done), "{key}: {got:?}");
            }
        }
        assert!(reader.warnings().is_empty(), "{:?}", reader.warnings());
    }
    for mut c in writers {
        c.kill().unwrap();
        c.wait().unwrap();
    }
    for r in readers {
        r.join().unwrap();
    }
    // Every acknowledged entry, read with and without a last checkpoint.
    for rebuilt in [false, true] {
        if rebuilt {
            Cache::open_with(dir.path(), manual())
                .unwrap()
                .admin()
                .checkpoint()
                .unwrap();
        }
        let reader = Cache::open_with(dir.path(), manual()).unwrap();
        for (w, count) in acked.iter().enumerate() {
            let done = *count.lock().unwrap();
            assert!(done > 0);
            for n in 0..done {
                let got = reader.get::<Chunk>(&format!("w{w}/{n}")).unwrap();
                let got = got.unwrap_or_else(|| panic!("w{w}/{n} lost"));
                assert!(as_expected(&got, n, done), "w{w}/{n}: {got:?}");
            }
        }
        assert!(reader.warnings().is_empty(), "{:?}", reader.warnings());
    }
}

#[test]
fn a_log_that_lost_its_end_and_was_written_again_is_read_whole() {
    // What a power loss may leave when writers do not sync: the end of a
    // log the checkpoint covers is gone, and a new handle writes there.
    let (dir, cache) = checkpointed(200);
    let log = dir.path().join(format!("{}-info.jsonl", cache.writer_id()));
    drop(cache);
    let text = std::fs::read(&log).unwrap();
    let half = text[..text.len() / 2]
        .iter()
        .rposition(|&b| b == b'\n')
        .unwrap()
        + 1;
    std::fs::write(&log, &text[..half]).unwrap();
    let writer = Cache::open_with(dir.path(), manual()).unwrap();
    for i in 0..200 {
        writer.put(&format!("new{i}"), &chunk(i)).unwrap();
    }
    drop(writer);
    let reader = Cache::open_with(dir.path(), manual()).unwrap();
    for i in 0..200 {
        assert_eq!(
            reader.get::<Chunk>(&format!("new{i}")).unwrap(),
            Some(chunk(i))
        );
    }
    assert_eq!(reader.get::<Chunk>("k0").unwrap(), Some(chunk(0)));
    assert!(
        reader
            .warnings()
            .iter()
            .any(|w| w.contains("does not end as it did")),
        "{:?}",
        reader.warnings()
    );
}

/// The writer's log in folder `dir`.
fn the_log(dir: &Path) -> PathBuf {
    let logs: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with("-info.jsonl"))
        .collect();
    let [log] = logs.try_into().unwrap();
    log
}

#[test]
fn a_log_cut_short_under_an_open_handle_loses_the_entries_cut_off_not_the_process() {
    let dir = tempfile::tempdir().unwrap();
    let writer = Cache::open_with(dir.path(), manual()).unwrap();
    for i in 0..10 {
        writer.put(&format!("c/{i}"), &chunk(i)).unwrap();
    }
    writer.admin().checkpoint().unwrap();
    drop(writer);
    // It reads the checkpoint, and no line of the log yet.
    let reader = Cache::open_with(dir.path(), manual()).unwrap();
    // Another program cuts the log in half.
    let log = std::fs::File::options()
        .write(true)
        .open(the_log(dir.path()))
        .unwrap();
    let len = log.metadata().unwrap().len();
    log.set_len(len / 2).unwrap();
    // The lines cut off are gone with their entries; those left read.
    assert_eq!(reader.get::<Chunk>("c/9").unwrap(), None);
    assert_eq!(reader.get("c/0").unwrap(), Some(chunk(0)));
    let warnings = reader.warnings();
    assert!(
        warnings.iter().any(|w| w.contains("points past the end")),
        "{warnings:?}"
    );
}

/// Counts the maps of objects made, by object.
#[derive(Default)]
struct CountedMaps {
    maps: Mutex<HashMap<String, usize>>,
}

impl CountedMaps {
    /// The maps made since the last call, by object.
    fn take(&self) -> HashMap<String, usize> {
        std::mem::take(&mut *self.maps.lock().unwrap())
    }
}

impl Hooks for CountedMaps {
    fn map(&self, inner: &dyn Backend, name: &str) -> Result<Mapped, BackendError> {
        *self
            .maps
            .lock()
            .unwrap()
            .entry(name.to_owned())
            .or_default() += 1;
        inner.maps().expect("a folder maps").map(name)
    }
}

#[test]
fn lines_a_checkpoint_points_at_are_read_from_one_map_of_their_log() {
    let dir = tempfile::tempdir().unwrap();
    let folder = Arc::new(Folder::new(dir.path().to_owned()));
    let backend = Arc::new(Wrapped::new(folder, CountedMaps::default()));
    let writer = Cache::open_backend(backend.clone(), manual()).unwrap();
    for i in 0..50 {
        writer.put(&format!("c/{i}"), &chunk(i)).unwrap();
    }
    writer.admin().checkpoint().unwrap();
    drop(writer);
    let reader = Cache::open_backend(backend.clone(), manual()).unwrap();
    backend.take();
    for i in 0..50 {
        assert_eq!(reader.get(&format!("c/{i}")).unwrap(), Some(chunk(i)));
    }
    let maps = backend.take();
    let log = the_log(dir.path());
    let log = log.file_name().unwrap().to_str().unwrap();
    assert_eq!(maps.get(log), Some(&1), "{maps:?}");
}

#[test]
fn a_compaction_copies_the_newest_line_of_each_key_across_checkpoint_tables() {
    let dir = tempfile::tempdir().unwrap();
    let writer = Cache::open_with(dir.path(), manual()).unwrap();
    for i in 0..100 {
        writer.put(&format!("c/{i}"), &chunk(i)).unwrap();
    }
    writer.admin().checkpoint().unwrap();
    // A table of two lines, far smaller than the first: kept beside it.
    writer.remove("c/0").unwrap();
    writer.put("c/1", &chunk(1001)).unwrap();
    writer.admin().checkpoint().unwrap();
    drop(writer);
    Admin::compact(dir.path(), &[], |_, _| {}).unwrap();
    let reader = Cache::open(dir.path()).unwrap();
    assert_eq!(reader.get::<Chunk>("c/0").unwrap(), None);
    assert_eq!(reader.get("c/1").unwrap(), Some(chunk(1001)));
    assert_eq!(reader.len().unwrap(), 99);
}

/// The manifest of the checkpoint in folder `dir`, as JSON.
fn manifest(dir: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(dir.join("checkpoint.json")).unwrap();
    serde_json::from_str(text.lines().next().unwrap()).unwrap()
}

#[test]
fn a_checkpoint_covers_each_log_to_its_end_and_the_next_reads_on_from_there() {
    let (dir, cache) = checkpointed(20);
    let log = the_log(dir.path());
    let covered = |dir: &Path| manifest(dir)["writers"][0]["to"].as_u64().unwrap();
    assert_eq!(covered(dir.path()), std::fs::metadata(&log).unwrap().len());
    for i in 20..30 {
        cache.put(&format!("k{i}"), &chunk(i)).unwrap();
    }
    cache.admin().checkpoint().unwrap();
    assert_eq!(covered(dir.path()), std::fs::metadata(&log).unwrap().len());
    let reader = Cache::open_with(dir.path(), manual()).unwrap();
    assert_eq!(reader.admin().verify_index().unwrap(), 30);
}

#[test]
fn small_checkpoints_keep_a_table_of_their_own_until_they_add_up() {
    let (dir, cache) = checkpointed(100);
    // 5 entries beside 100: a table of their own.
    for i in 100..105 {
        cache.put(&format!("k{i}"), &chunk(i)).unwrap();
    }
    cache.admin().checkpoint().unwrap();
    assert_eq!(tables(dir.path()).len(), 2);
    // 30 more, 10 of them overwrites of the first table's: 5 and 30
    // merge, then 100 and 35 (100 is under 4 times 35), one entry a key.
    for i in 105..125 {
        cache.put(&format!("k{i}"), &chunk(i)).unwrap();
    }
    for i in 0..10 {
        cache.put(&format!("k{i}"), &chunk(i + 1000)).unwrap();
    }
    cache.admin().checkpoint().unwrap();
    assert_eq!(tables(dir.path()).len(), 1);
    let reader = Cache::open_with(dir.path(), manual()).unwrap();
    assert_eq!(reader.admin().verify_index().unwrap(), 125);
    assert_eq!(reader.get("k3").unwrap(), Some(chunk(1003)));
    // One entry a key, as in a table built from the logs alone.
    drop((cache, reader));
    let merged = std::fs::read(&tables(dir.path())[0]).unwrap();
    Admin::rebuild_index(dir.path()).unwrap();
    let rebuilt = std::fs::read(&tables(dir.path())[0]).unwrap();
    assert_eq!(merged.len(), rebuilt.len());
}

#[test]
fn a_checkpoint_deletes_the_tables_a_stopped_build_left_in_the_index_folder() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open_with(dir.path(), manual()).unwrap();
    cache.put("k", &chunk(1)).unwrap();
    cache.admin().checkpoint().unwrap();
    // A table written, its manifest not; a table being written aside.
    let index = dir.path().join("index");
    std::fs::write(index.join("00000000000000ff.idx"), b"left").unwrap();
    std::fs::write(index.join("0000000000000100.idx.tmp"), b"left").unwrap();
    cache.put("l", &chunk(2)).unwrap();
    cache.admin().checkpoint().unwrap();
    assert_eq!(tables(dir.path()).len(), 1, "{:?}", tables(dir.path()));
    let reader = Cache::open_with(dir.path(), manual()).unwrap();
    assert_eq!(reader.admin().verify_index().unwrap(), 2);
}

/// The checkpoint a compaction leaves covers its copies: none of the
/// logs it replaced, and none of their tables.
#[test]
fn a_compaction_replaces_the_checkpoint_that_points_into_the_logs_it_replaces() {
    let (dir, cache) = checkpointed(10);
    let old_writer = cache.writer_id().to_owned();
    let old_tables = tables(dir.path());
    drop(cache);
    Admin::compact(dir.path(), &[], |_, _| {}).unwrap();
    let manifest = std::fs::read_to_string(dir.path().join("checkpoint.json")).unwrap();
    assert!(!manifest.contains(&old_writer), "{manifest}");
    let new_tables = tables(dir.path());
    assert_eq!(new_tables.len(), 1, "{new_tables:?}");
    assert!(!old_tables.contains(&new_tables[0]), "{new_tables:?}");
    let reader = Cache::open_with(dir.path(), manual()).unwrap();
    assert_eq!(reader.get("k3").unwrap(), Some(chunk(3)));
    assert!(reader.warnings().is_empty(), "{:?}", reader.warnings());
}

#[test]
fn a_table_that_fails_to_map_for_another_reason_than_its_absence_fails_the_open() {
    // A failed read is not damage: the checkpoint may hold lines no log
    // holds any more, so the open fails (try again), where a table gone
    // missing is looked for again and then read around, with a warning.
    let (dir, cache) = checkpointed(10);
    drop(cache);
    let [table] = tables(dir.path()).try_into().unwrap();
    // Opened as a file, a folder cannot be mapped (ENODEV), even by root.
    std::fs::remove_file(&table).unwrap();
    std::fs::create_dir(&table).unwrap();
    let error = Cache::open_with(dir.path(), manual())
        .unwrap_err()
        .to_string();
    let name = table.file_name().unwrap().to_string_lossy().into_owned();
    assert!(error.contains(&name), "{error}");
}

/// A build from the logs (the checkpoint found damaged) replaces the
/// tables of the manifest in place. Its read of that manifest failing
/// (an I/O error) made them look named by no manifest: they were deleted
/// under it, and the build then failed, leaving a manifest that names
/// missing tables.
#[test]
fn a_rebuild_whose_read_of_the_manifest_fails_deletes_no_table() {
    struct FailsManifestReads(std::sync::atomic::AtomicBool);
    impl Hooks for FailsManifestReads {
        fn read(&self, inner: &dyn Backend, name: &str) -> Result<Option<Vec<u8>>, BackendError> {
            if name == "checkpoint.json" && self.0.load(std::sync::atomic::Ordering::SeqCst) {
                let e = std::io::Error::other("I/O error (test)");
                return Err(BackendError::new("read", inner.address(name), e));
            }
            inner.read(name)
        }
        fn read_versioned(
            &self,
            inner: &dyn Backend,
            name: &str,
        ) -> Result<Option<(Vec<u8>, Version)>, BackendError> {
            if name == "checkpoint.json" && self.0.load(std::sync::atomic::Ordering::SeqCst) {
                let e = std::io::Error::other("I/O error (test)");
                return Err(BackendError::new("read", inner.address(name), e));
            }
            inner.read_versioned(name)
        }
    }
    let (dir, cache) = checkpointed(20);
    drop(cache);
    let before = tables(dir.path());
    assert_eq!(before.len(), 1);
    // A log the checkpoint covers, changed where it covers it: the
    // checkpoint no longer matches it, and a handle reads the logs.
    let log = (std::fs::read_dir(dir.path()).unwrap().flatten())
        .map(|e| e.path())
        .find(|p| p.to_string_lossy().ends_with("-info.jsonl"))
        .unwrap();
    let mut bytes = std::fs::read(&log).unwrap();
    let end = bytes.len();
    bytes[end - 5] ^= 1;
    std::fs::write(&log, bytes).unwrap();
    let hooks = FailsManifestReads(std::sync::atomic::AtomicBool::new(false));
    let backend = Arc::new(Wrapped::new(Arc::new(Folder::new(dir.path())), hooks));
    let cache = Cache::open_backend(backend.clone(), manual()).unwrap();
    let warnings = cache.warnings();
    assert!(
        warnings.iter().any(|w| w.contains("checkpoint is damaged")),
        "{warnings:?}"
    );
    backend.0.store(true, std::sync::atomic::Ordering::SeqCst);
    assert!(cache.admin().checkpoint().is_err());
    assert_eq!(
        tables(dir.path()),
        before,
        "a table the manifest names went"
    );
    backend.0.store(false, std::sync::atomic::Ordering::SeqCst);
    cache.admin().checkpoint().unwrap();
    let fresh = Cache::open_with(dir.path(), manual()).unwrap();
    assert_eq!(fresh.get::<Chunk>("k3").unwrap(), Some(chunk(3)));
}

/// A power loss took the end of a log a checkpoint covers, and the log
/// was taken up and written again: its new lines lie where the checkpoint
/// covers others. A build that did not check the logs' ends went on from
/// where the checkpoint left off, past the new lines: once it committed,
/// no handle read them (an entry written with `fsync` was missing). A
/// log the checkpoint covers nothing of, gone, hid the change from the
/// handles too.
#[test]
fn a_log_written_again_after_a_power_loss_is_read_again_by_the_next_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    let small = manual().segment_bytes(300);
    let first = Cache::open_with(dir.path(), small.clone()).unwrap();
    // Two lines seal its segment: the next one exists, empty.
    first.put("a1", &1u32).unwrap();
    first.put("a2", &2u32).unwrap();
    let other = Cache::open_with(dir.path(), small.clone()).unwrap();
    other.put("x", &3u32).unwrap();
    let other_log = dir.path().join(format!("{}-info.jsonl", other.writer_id()));
    first.admin().checkpoint().unwrap();
    let empty_log = dir
        .path()
        .join(format!("{}.1-info.jsonl", first.writer_id()));
    assert_eq!(std::fs::metadata(&empty_log).unwrap().len(), 0);
    drop((first, other));
    // The power loss: the empty log, created but not synced, is gone, and
    // the other log keeps its first two bytes.
    std::fs::remove_file(&empty_log).unwrap();
    let bytes = std::fs::read(&other_log).unwrap();
    std::fs::write(&other_log, &bytes[..2]).unwrap();
    // Two handles take up the two logs; the second writes again where the
    // checkpoint covered the lost line.
    let takes_first = Cache::open_with(dir.path(), small.clone()).unwrap();
    let writer = Cache::open_with(dir.path(), small.clone().fsync(true)).unwrap();
    assert_eq!(
        writer.writer_id(),
        other_log
            .file_name()
            .unwrap()
            .to_string_lossy()
            .trim_end_matches("-info.jsonl")
    );
    writer
        .put("f1", &"a value longer than the line lost".to_owned())
        .unwrap();
    assert!(std::fs::metadata(&other_log).unwrap().len() > bytes.len() as u64);
    let builder = Cache::open_with(dir.path(), small.clone()).unwrap();
    // It reads the logs, warned: the checkpoint covers lines they lost.
    let warnings = builder.warnings();
    assert!(
        (warnings.iter()).any(|w| w.contains("does not end as it did when covered")),
        "{warnings:?}"
    );
    builder.admin().checkpoint().unwrap();
    drop((takes_first, writer, builder));
    let fresh = Cache::open_with(dir.path(), small).unwrap();
    assert_eq!(
        fresh.get::<String>("f1").unwrap().as_deref(),
        Some("a value longer than the line lost")
    );
    assert_eq!(fresh.get::<u32>("a2").unwrap(), Some(2));
    assert_eq!(fresh.admin().verify_index().unwrap(), 3);
}
