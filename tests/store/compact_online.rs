//! Compacting a folder while handles have it open: writers seal segments,
//! the live entries of sealed segments are copied, the segments retired
//! and deleted after a grace period, and what an active segment still
//! holds never comes back.

use std::path::Path;
use std::time::Duration;

use codec::store::Bounds;
use codec::{Cache, CacheOptions, PutOptions};

/// The bytes of the files under `dir`, as they are listed (a file a
/// compaction deletes meanwhile counts for nothing).
fn folder_size(dir: &Path) -> u64 {
    let mut total = 0;
    let Ok(listing) = std::fs::read_dir(dir) else {
        return 0;
    };
    for entry in listing.map_while(Result::ok) {
        let Ok(meta) = entry.metadata() else {
            continue;
        };
        total += match meta.is_dir() {
            true => folder_size(&entry.path()),
            false => meta.len(),
        };
    }
    total
}

fn value(i: u32) -> String {
    format!("{i:06}-").repeat(140) // about 1 KB
}

#[test]
fn a_folder_gives_its_space_back_while_its_handle_is_open() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    for i in 0..20_000 {
        cache.put(&format!("k{i}"), &value(i)).unwrap();
    }
    let grace = Duration::ZERO;
    let reduced = cache
        .admin()
        .reduce_size(&Bounds::default().max_entries(1000), grace)
        .unwrap();
    assert_eq!(reduced.kept, 1000);
    let compacted = reduced.compacted.expect("a folder compacts online");
    assert_eq!(compacted.kept, 1000);
    let size = folder_size(dir.path());
    assert!(size < 3 << 20, "{size} bytes left");
    assert!(
        compacted.size_after < compacted.size_before / 8,
        "{compacted:?}"
    );
    // The handle and a fresh one read the kept entries, and only those.
    let fresh = Cache::open(dir.path()).unwrap();
    for handle in [&cache, &fresh] {
        assert_eq!(handle.keys().unwrap().len(), 1000);
        for i in 19_000..20_000 {
            let got = handle.get::<String>(&format!("k{i}")).unwrap();
            assert_eq!(got, Some(value(i)), "k{i}");
        }
        assert_eq!(handle.get::<String>("k0").unwrap(), None);
        assert!(handle.warnings().is_empty(), "{:?}", handle.warnings());
    }
    // The handle writes on.
    cache.put("after", &value(1)).unwrap();
    assert_eq!(fresh.get::<String>("after").unwrap(), Some(value(1)));
}

#[test]
fn a_removal_in_a_sealed_segment_keeps_an_older_put_of_an_active_one_gone() {
    let dir = tempfile::tempdir().unwrap();
    let other = Cache::open(dir.path()).unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    other.put("removed", &1u32).unwrap();
    other.put("expired", &2u32).unwrap();
    other.put("kept", &3u32).unwrap();
    assert!(cache.remove("removed").unwrap());
    let ttl = PutOptions::default().ttl(Duration::from_nanos(1));
    cache.put_with("expired", &4u32, &ttl).unwrap();
    // `other` never seals its segment: its lines stay, and only the
    // compaction's lines can keep them dead once `cache`'s are deleted.
    let done = cache
        .admin()
        .compact_online(Duration::ZERO, |_, _| {})
        .unwrap();
    // `kept` is in the active segment: nothing to copy.
    assert_eq!(done.kept, 0);
    for handle in [&cache, &other, &Cache::open(dir.path()).unwrap()] {
        assert_eq!(handle.keys().unwrap(), ["kept"]);
        assert_eq!(handle.get::<u32>("removed").unwrap(), None);
        assert_eq!(handle.get::<u32>("expired").unwrap(), None);
        assert_eq!(handle.get::<u32>("kept").unwrap(), Some(3));
    }
}

#[test]
fn a_handle_that_read_an_entry_before_it_was_moved_reads_the_copy() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    let reader = Cache::open(dir.path()).unwrap();
    // In the shared data file, not in the line.
    cache.put("big", &value(7).repeat(4)).unwrap();
    cache.put("small", &7u32).unwrap();
    // Its line read, not its data (which a handle keeps mapped once read).
    assert_eq!(reader.get::<u32>("small").unwrap(), Some(7));
    cache
        .admin()
        .compact_online(Duration::ZERO, |_, _| {})
        .unwrap();
    // The reader's index still points into the data file now deleted.
    assert_eq!(
        reader.get::<String>("big").unwrap(),
        Some(value(7).repeat(4))
    );
    assert_eq!(reader.get::<u32>("small").unwrap(), Some(7));
}

#[test]
fn segments_retired_within_the_grace_period_are_ignored_then_deleted() {
    let dir = tempfile::tempdir().unwrap();
    let options = CacheOptions::default().segment_bytes(4096);
    let cache = Cache::open_with(dir.path(), options).unwrap();
    for i in 0..200 {
        cache.put(&format!("k{}", i % 20), &value(i)).unwrap();
    }
    let logs = |dir: &Path| {
        std::fs::read_dir(dir)
            .unwrap()
            .filter(|e| {
                let name = e.as_ref().unwrap().file_name();
                name.to_string_lossy().ends_with("-info.jsonl")
            })
            .count()
    };
    let sealed = logs(dir.path());
    assert!(sealed > 10, "{sealed} logs");
    let hour = Duration::from_secs(3600);
    let done = cache.admin().compact_online(hour, |_, _| {}).unwrap();
    assert_eq!(done.kept, 20);
    assert_eq!(done.freed, 0);
    // Still there, and ignored: the copies are read.
    assert!(logs(dir.path()) > sealed);
    let fresh = Cache::open(dir.path()).unwrap();
    assert_eq!(fresh.keys().unwrap().len(), 20);
    for i in 180..200 {
        let got = fresh.get::<String>(&format!("k{}", i % 20)).unwrap();
        assert_eq!(got, Some(value(i)));
    }
    // A later compaction past the grace period deletes them.
    let done = cache
        .admin()
        .compact_online(Duration::ZERO, |_, _| {})
        .unwrap();
    assert!(done.freed > 200 * 1000, "{done:?}");
    assert!(logs(dir.path()) <= 3, "{} logs", logs(dir.path()));
    let fresh = Cache::open(dir.path()).unwrap();
    assert_eq!(fresh.keys().unwrap().len(), 20);
    for i in 180..200 {
        let got = fresh.get::<String>(&format!("k{}", i % 20)).unwrap();
        assert_eq!(got, Some(value(i)));
    }
}

#[test]
fn a_compaction_of_a_folder_needing_it_alone_waits_for_none_online() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    cache.put("k", &1u32).unwrap();
    cache.put("k", &2u32).unwrap();
    cache
        .admin()
        .compact_online(Duration::ZERO, |_, _| {})
        .unwrap();
    drop(cache);
    // The folder alone: what online compactions left is completed.
    let done = codec::store::Admin::compact(dir.path(), &[], |_, _| {}).unwrap();
    assert_eq!(done.kept, 1);
    let fresh = Cache::open(dir.path()).unwrap();
    assert_eq!(fresh.get::<u32>("k").unwrap(), Some(2));
}

/// What a handle does in [`online_compaction_changes_nothing_that_reads`].
#[derive(Debug, Clone)]
enum Op {
    Put {
        handle: usize,
        key: u8,
        big: bool,
    },
    Expiring {
        handle: usize,
        key: u8,
    },
    Remove {
        handle: usize,
        key: u8,
    },
    Compact {
        handle: usize,
        at_once: bool,
    },
    Checkpoint {
        handle: usize,
    },
    /// Puts keys `f0` to `f7`: a checkpoint's table of them is left as
    /// it is by the next builds (four times larger).
    Fill {
        handle: usize,
    },
}

fn op() -> impl proptest::strategy::Strategy<Value = Op> {
    use proptest::prelude::*;
    let handle = 0..3usize;
    let key = 0..10u8;
    prop_oneof![
        6 => (handle.clone(), key.clone(), any::<bool>())
            .prop_map(|(handle, key, big)| Op::Put { handle, key, big }),
        1 => (handle.clone(), key.clone()).prop_map(|(handle, key)| Op::Expiring { handle, key }),
        2 => (handle.clone(), key).prop_map(|(handle, key)| Op::Remove { handle, key }),
        1 => (handle.clone(), any::<bool>())
            .prop_map(|(handle, at_once)| Op::Compact { handle, at_once }),
        2 => handle.clone().prop_map(|handle| Op::Checkpoint { handle }),
        1 => handle.prop_map(|handle| Op::Fill { handle }),
    ]
}

/// Every handle, and a fresh one, reads what `model` holds.
fn reads_as(dir: &Path, handles: &[Cache], model: &std::collections::BTreeMap<String, String>) {
    let fresh = Cache::open(dir).unwrap();
    for handle in handles.iter().chain([&fresh]) {
        let keys: Vec<String> = model.keys().cloned().collect();
        assert_eq!(handle.keys().unwrap(), keys);
        for k in 0..10u8 {
            let key = format!("k{k}");
            assert_eq!(
                handle.get::<String>(&key).unwrap().as_ref(),
                model.get(&key)
            );
        }
    }
}

proptest::proptest! {
    #![proptest_config(proptest::test_runner::Config { cases: 40, ..Default::default() })]

    /// Writes, removals and expiries by three handles on small segments,
    /// checkpoints (of tables the compactions build again without the
    /// segments retired), and online compactions among them (their segments deleted at once
    /// or kept for a grace period): every handle and a fresh one read
    /// what was written last, before and after each compaction.
    #[test]
    fn online_compaction_changes_nothing_that_reads(
        ops in proptest::collection::vec(op(), 1..40),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let options = CacheOptions::default().segment_bytes(2048);
        let handles: Vec<Cache> = (0..3)
            .map(|_| Cache::open_with(dir.path(), options.clone()).unwrap())
            .collect();
        let mut model = std::collections::BTreeMap::new();
        for (i, op) in ops.iter().enumerate() {
            match *op {
                Op::Put { handle, key, big } => {
                    let text = match big {
                        true => value(i as u32).repeat(2),
                        false => format!("small {i}"),
                    };
                    handles[handle].put(&format!("k{key}"), &text).unwrap();
                    model.insert(format!("k{key}"), text);
                }
                Op::Expiring { handle, key } => {
                    let ttl = PutOptions::default().ttl(Duration::from_nanos(1));
                    handles[handle].put_with(&format!("k{key}"), &"gone".to_owned(), &ttl).unwrap();
                    model.remove(&format!("k{key}"));
                }
                Op::Remove { handle, key } => {
                    // A handle removes what it knows of: one that knows
                    // of a removal already reads no further.
                    handles[handle].refresh().unwrap();
                    handles[handle].remove(&format!("k{key}")).unwrap();
                    model.remove(&format!("k{key}"));
                }
                Op::Compact { handle, at_once } => {
                    let grace = if at_once { Duration::ZERO } else { Duration::from_secs(3600) };
                    handles[handle].admin().compact_online(grace, |_, _| {}).unwrap();
                    reads_as(dir.path(), &handles, &model);
                }
                Op::Checkpoint { handle } => {
                    handles[handle].admin().checkpoint().unwrap();
                }
                Op::Fill { handle } => {
                    for f in 0..8 {
                        let text = format!("fill {i}");
                        handles[handle].put(&format!("f{f}"), &text).unwrap();
                        model.insert(format!("f{f}"), text);
                    }
                }
            }
        }
        handles[0].admin().compact_online(Duration::ZERO, |_, _| {}).unwrap();
        reads_as(dir.path(), &handles, &model);
    }
}

#[test]
fn a_folder_with_bounds_gives_its_space_back_by_itself() {
    let dir = tempfile::tempdir().unwrap();
    let options = CacheOptions::default()
        .bounds(Bounds::default().max_entries(1000))
        .compact_grace(Duration::ZERO);
    let cache = Cache::open_with(dir.path(), options).unwrap();
    let mut largest = 0;
    for i in 0..20_000 {
        cache.put(&format!("k{i}"), &value(i)).unwrap();
        if i % 500 == 0 {
            largest = largest.max(folder_size(dir.path()));
        }
    }
    // The pass of the bounds under way ends, and one more runs.
    cache.admin().checkpoint().unwrap();
    // How far the folder grows depends on how fast the background passes
    // are beside the puts (about 11 MiB in a release build on a quiet
    // machine, of the 28 MiB written); a write two passes ahead of the one
    // under way, or two segments ahead of the compaction, waits for it, so
    // never as far as what was written.
    assert!(largest < 24 << 20, "{largest} bytes at most");
    // Past the bounds, and past twice what they keep and 8 MiB more, the
    // folder compacted by itself: at most that, the puts of one pass and
    // the checkpoint are left.
    assert!(cache.warnings().is_empty(), "{:?}", cache.warnings());
    let size = folder_size(dir.path());
    assert!(size < 16 << 20, "{size} bytes left");
    assert!(cache.warnings().is_empty(), "{:?}", cache.warnings());
    assert_eq!(cache.keys().unwrap().len(), 1000);
    {
        // A handle that opens takes up the log of a writer that is gone:
        // the last compaction's copies, which it then holds as its own
        // active segment (not compacted while it is open). Dropped before
        // the compaction below.
        let fresh = Cache::open(dir.path()).unwrap();
        assert_eq!(fresh.keys().unwrap().len(), 1000);
        assert_eq!(fresh.get::<String>("k19999").unwrap(), Some(value(19_999)));
    }
    // Without this handle closed.
    let done = cache
        .admin()
        .compact_online(Duration::ZERO, |_, _| {})
        .unwrap();
    assert!(
        done.size_after < 3 << 20,
        "{done:?}\n{}",
        crate::fixtures::listing(dir.path())
    );
}

/// Puts entries (every 7th overwriting the one before) on small segments,
/// printing `ack <n>` after each.
#[test]
#[ignore = "a child process of the test below"]
fn child_sealing_writer() {
    let Some(dir) = crate::fixtures::child::var::<std::path::PathBuf>("CODEC_DIR") else {
        return;
    };
    let writer: u32 = crate::fixtures::child::var("CODEC_WRITER").unwrap();
    let options = CacheOptions::default().segment_bytes(16 << 10);
    let cache = Cache::open_with(&dir, options).unwrap();
    for n in 0u32..4000 {
        if n % 4 == 0 {
            std::thread::sleep(Duration::from_millis(1));
        }
        cache
            .put(&format!("w{writer}/{n}"), &soak_value(n))
            .unwrap();
        if n % 7 == 6 {
            let overwrite = soak_value(n + 1_000_000);
            cache
                .put(&format!("w{writer}/{}", n - 1), &overwrite)
                .unwrap();
        }
        println!("ack {n}");
    }
}

/// Compacts online one compaction after the other (what each retires
/// deleted by the next), printing `ack` after each.
#[test]
#[ignore = "a child process of the test below"]
fn child_compactor() {
    let Some(dir) = crate::fixtures::child::var::<std::path::PathBuf>("CODEC_DIR") else {
        return;
    };
    let cache = Cache::open(&dir).unwrap();
    loop {
        cache
            .admin()
            .compact_online(Duration::ZERO, |_, _| {})
            .unwrap();
        println!("ack");
    }
}

/// Inline for some, in the shared data file for the others.
fn soak_value(n: u32) -> String {
    match n % 3 {
        0 => format!("{n}-").repeat(400),
        _ => format!("value {n}"),
    }
}

/// What key `n` of a writer may hold once `done` entries were
/// acknowledged: every 7th step overwrote the entry before it (the last
/// one perhaps unacknowledged yet).
fn soak_expected(got: &str, n: u32, done: u32) -> bool {
    let overwritten = soak_value(n + 1 + 1_000_000);
    match n % 7 {
        5 if n + 1 < done => got == overwritten,
        5 => got == soak_value(n) || got == overwritten,
        _ => got == soak_value(n),
    }
}

#[test]
fn kill_9_during_online_compactions_loses_no_acknowledged_entry() {
    use std::io::{BufRead, BufReader};
    use std::sync::{Arc, Mutex};
    let dir = tempfile::tempdir().unwrap();
    let acked: Vec<Arc<Mutex<u32>>> = (0..2).map(|_| Arc::new(Mutex::new(0))).collect();
    let mut writers = Vec::new();
    let mut readers = Vec::new();
    let ack = |line: &str| -> Option<u32> { line.strip_prefix("ack ")?.trim().parse().ok() };
    for w in 0..2u32 {
        let mut c = child!(child_sealing_writer)
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
    let mut compactions = 0;
    for point in 0..20u64 {
        let mut c = child!(child_compactor).env("CODEC_DIR", dir.path()).spawn();
        let out = c.stdout.take().unwrap();
        let mut lines = BufReader::new(out).lines();
        // A few compactions, then a kill somewhere in the next one.
        for _ in 0..1 + point % 4 {
            (lines.next().and_then(Result::ok)).unwrap_or_else(|| c.ended_before("a compaction"));
            compactions += 1;
        }
        std::thread::sleep(Duration::from_micros(point * 397 % 5000));
        c.kill().unwrap(); // SIGKILL
        c.wait().unwrap();
        let acknowledged: Vec<u32> = acked.iter().map(|c| *c.lock().unwrap()).collect();
        let reader = Cache::open(dir.path()).unwrap();
        for (w, &done) in acknowledged.iter().enumerate() {
            for n in (0..done).step_by(11).chain(done.checked_sub(1)) {
                let key = format!("w{w}/{n}");
                let got = reader.get::<String>(&key).unwrap();
                let got = got.unwrap_or_else(|| panic!("point {point}: {key} lost"));
                assert!(soak_expected(&got, n, done), "{key}: {got:?}");
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
    assert!(compactions >= 20);
    let counts: Vec<u32> = acked.iter().map(|c| *c.lock().unwrap()).collect();
    println!("{compactions} compactions ended, 20 killed; acknowledged per writer: {counts:?}");
    // Every acknowledged entry, and the folder compacted once more.
    for compacted in [false, true] {
        let reader = Cache::open(dir.path()).unwrap();
        if compacted {
            let done = reader.admin().compact_online(Duration::ZERO, |_, _| {});
            assert!(done.unwrap().kept > 0);
        }
        for (w, count) in acked.iter().enumerate() {
            let done = *count.lock().unwrap();
            assert!(done > 0);
            for n in 0..done {
                let got = reader.get::<String>(&format!("w{w}/{n}")).unwrap();
                let got = got.unwrap_or_else(|| panic!("w{w}/{n} lost"));
                assert!(soak_expected(&got, n, done), "w{w}/{n}: {got:?}");
            }
        }
        assert!(reader.warnings().is_empty(), "{:?}", reader.warnings());
    }
}

#[test]
fn a_handle_on_the_checkpoint_before_a_compaction_takes_up_the_next() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    for i in 0..50 {
        cache.put(&format!("k{i}"), &value(i)).unwrap();
    }
    cache.admin().checkpoint().unwrap();
    // Reads the checkpoint, not yet the log its lines are in.
    let reader = Cache::open(dir.path()).unwrap();
    cache
        .admin()
        .compact_online(Duration::ZERO, |_, _| {})
        .unwrap();
    assert_eq!(reader.get::<String>("k7").unwrap(), Some(value(7)));
    assert!(reader.warnings().is_empty(), "{:?}", reader.warnings());
    // And a listing of every entry, from a handle of the same age.
    let lister = Cache::open(dir.path()).unwrap();
    cache
        .admin()
        .compact_online(Duration::ZERO, |_, _| {})
        .unwrap();
    assert_eq!(lister.keys().unwrap().len(), 50);
    assert!(lister.warnings().is_empty(), "{:?}", lister.warnings());
}

#[test]
fn the_files_of_entries_in_sealed_segments_go_and_those_of_active_ones_stay() {
    let dir = tempfile::tempdir().unwrap();
    let options = CacheOptions::default().segment_bytes(1000);
    let writer = Cache::open_with(dir.path(), options).unwrap();
    let file = PutOptions::default().handler("file");
    // Segment 0: lines, then a file of its own, whose line fills the
    // segment (the last entry of the segment, not the first).
    writer.put("small", &1u32).unwrap();
    writer.put("pad", &"p".repeat(300)).unwrap();
    writer.put_with("g", &"first".to_owned(), &file).unwrap();
    // Segment 1, active: `g` again, its first entry.
    writer.put_with("g", &"second".to_owned(), &file).unwrap();
    let files = |dir: &Path| -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir.join("data"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            // `<writer>-<seq>.<ext>`, not a shared `<writer>[.<n>].bin`
            // (a writer id holds three `-`).
            .filter(|name| name.split('.').next().unwrap().matches('-').count() == 4)
            .collect();
        names.sort();
        names
    };
    assert_eq!(files(dir.path()).len(), 2);
    let other = Cache::open(dir.path()).unwrap();
    let done = other
        .admin()
        .compact_online(Duration::ZERO, |_, _| {})
        .unwrap();
    assert_eq!(done.kept, 2, "{done:?}"); // `small`, `pad`; `g` is in the active segment
                                          // The overwritten file is gone with its segment; the live one stays.
    let left = files(dir.path());
    assert_eq!(left.len(), 1, "{left:?}");
    for handle in [&writer, &other, &Cache::open(dir.path()).unwrap()] {
        assert_eq!(handle.get::<String>("g").unwrap().unwrap(), "second");
        assert_eq!(handle.get::<String>("pad").unwrap(), Some("p".repeat(300)));
    }
}

#[test]
fn what_is_still_in_its_grace_period_stays_listed_while_the_rest_goes() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    let hour = Duration::from_secs(3600);
    for round in 0..2 {
        for i in 0..20 {
            cache.put(&format!("k{i}"), &value(i + round)).unwrap();
        }
        cache.admin().compact_online(hour, |_, _| {}).unwrap();
    }
    // Two retirements: the first made as if two hours ago.
    let marker = dir.path().join("compacting.json");
    let text = std::fs::read_to_string(&marker).unwrap();
    let mut json: serde_json::Value = serde_json::from_str(&text).unwrap();
    let retired = json["retired"].as_array_mut().unwrap();
    assert_eq!(retired.len(), 2, "{text}");
    let now = retired[1]["at"].as_u64().unwrap();
    retired[0]["at"] = (now - 2 * 3600 * 1_000_000_000).into();
    let young: Vec<String> = serde_json::from_value(retired[1]["files"].clone()).unwrap();
    std::fs::write(&marker, serde_json::to_vec(&json).unwrap()).unwrap();
    let done = cache.admin().compact_online(hour, |_, _| {}).unwrap();
    assert!(done.freed > 0, "{done:?}");
    // The young ones are still listed (readers ignore them) and there.
    let text = std::fs::read_to_string(&marker).unwrap();
    for file in &young {
        assert!(text.contains(file.as_str()), "{file} in {text}");
        assert!(
            dir.path().join(file).exists() || !file.ends_with(".jsonl"),
            "{file}"
        );
    }
    let fresh = Cache::open(dir.path()).unwrap();
    assert_eq!(fresh.get::<String>("k3").unwrap(), Some(value(4)));
}

#[test]
fn a_compaction_deletes_the_lock_files_of_memo_lock_no_one_holds() {
    let dir = tempfile::tempdir().unwrap();
    let options = CacheOptions::default().memo_lock(true);
    let cache = Cache::open_with(dir.path(), options.clone()).unwrap();
    let other = Cache::open_with(dir.path(), options).unwrap();
    for i in 0..20u32 {
        cache
            .get_or_insert_with(&format!("done/{i}"), || i)
            .unwrap();
    }
    let locks = dir.path().join("locks");
    let count = || std::fs::read_dir(&locks).unwrap().count();
    assert_eq!(count(), 20);
    let (started, wait_started) = std::sync::mpsc::channel();
    let (release, wait_release) = std::sync::mpsc::channel::<()>();
    std::thread::scope(|s| {
        let cache = &cache;
        let computing = s.spawn(move || {
            cache.get_or_insert_with("computing", || {
                started.send(()).unwrap();
                wait_release.recv().unwrap();
                7u32
            })
        });
        wait_started.recv().unwrap();
        let compacted = cache.admin().compact_online(Duration::ZERO, |_, _| {});
        let left = count();
        // The lock held holds: another caller of its key waits for the
        // value rather than computing it.
        let waiting = s.spawn(|| other.get_or_insert_with("computing", || 8u32));
        std::thread::sleep(Duration::from_millis(100));
        release.send(()).unwrap();
        compacted.unwrap();
        assert_eq!(left, 1, "the lock held stays, the others go");
        assert_eq!(computing.join().unwrap().unwrap(), 7);
        assert_eq!(waiting.join().unwrap().unwrap(), 7);
    });
    cache
        .admin()
        .compact_online(Duration::ZERO, |_, _| {})
        .unwrap();
    assert_eq!(count(), 0);
    assert_eq!(other.get_or_insert_with("done/3", || 0u32).unwrap(), 3);
}

#[test]
fn an_admin_opened_from_a_location_compacts_a_store_a_program_has_open() {
    let dir = tempfile::tempdir().unwrap();
    // A program that keeps writing: what it sealed is compacted, its
    // active segment is its own.
    let options = CacheOptions::default().segment_bytes(8 << 10);
    let cache = Cache::open_with(dir.path(), options).unwrap();
    let url = format!("file://{}", dir.path().display());
    for location in [dir.path().to_str().unwrap(), url.as_str()] {
        for i in 0..200u32 {
            cache.put("counter", &value(i)).unwrap();
        }
        let admin = codec::store::Admin::open(location).unwrap();
        let done = admin.compact_online(Duration::ZERO, |_, _| {}).unwrap();
        assert!(
            done.size_after < done.size_before / 4,
            "{location}: {done:?}"
        );
        assert_eq!(admin.verify_index().unwrap(), 1);
    }
    assert_eq!(cache.get::<String>("counter").unwrap(), Some(value(199)));
    // A location with no store is refused, never made one.
    let empty = tempfile::tempdir().unwrap();
    let err = codec::store::Admin::open(empty.path().to_str().unwrap()).unwrap_err();
    assert!(err.to_string().contains("not a codec cache"), "{err}");
    assert_eq!(std::fs::read_dir(empty.path()).unwrap().count(), 0);
    let err = codec::store::Admin::open("memory://").unwrap_err();
    assert!(err.to_string().contains("not a codec cache"), "{err}");
}

/// A writer taken up at an empty segment after a compaction retired the
/// segments before it names its files after no retired entry: going on
/// at sequence 0, its new file took the retired file's name, and a handle
/// still reading the retired line read the new value as the old key's.
#[test]
fn a_writer_taken_up_after_its_segments_were_retired_reuses_no_file_name() {
    let dir = tempfile::tempdir().unwrap();
    let small = CacheOptions::default().segment_bytes(300);
    let file = PutOptions::default().handler("file");
    let cache = Cache::open_with(dir.path(), small.clone()).unwrap();
    cache.put_with("old", &value(1), &file).unwrap();
    // A handle of its own (the first is alive: nothing to take up), whose
    // index names the old entry where it was written.
    let reader = Cache::open_with(dir.path(), small.clone()).unwrap();
    assert_eq!(reader.get::<String>("old").unwrap(), Some(value(1)));
    let id = cache.writer_id().to_owned();
    let grace = Duration::ZERO;
    cache.admin().compact_online(grace, |_, _| {}).unwrap();
    drop(cache);
    let next = Cache::open_with(dir.path(), small).unwrap();
    assert_eq!(next.writer_id(), id, "the gone writer's segment taken up");
    next.put_with("new", &value(2), &file).unwrap();
    assert_eq!(next.get::<String>("new").unwrap(), Some(value(2)));
    assert_eq!(reader.get::<String>("old").unwrap(), Some(value(1)));
}

/// A key removed in a segment kept, then written and removed again in a
/// segment retired, stays removed. The checkpoint built after the
/// retirement keeps its tables' entries of the segments kept: the older
/// table holds the key's first put, and the newer one only the retired
/// removal (which hid the kept one); without a removal among the copies,
/// the put came back.
#[test]
fn a_key_removed_in_a_segment_kept_and_again_in_one_retired_stays_removed() {
    let dir = tempfile::tempdir().unwrap();
    let manual = CacheOptions::default().checkpoint_bytes(0);
    let kept = Cache::open_with(dir.path(), manual.clone()).unwrap();
    kept.put("k", &1u32).unwrap();
    for i in 0..20u32 {
        kept.put(&format!("other {i}"), &i).unwrap();
    }
    // A table of 21 entries, left as it is by the next build (one entry).
    kept.admin().checkpoint().unwrap();
    assert!(kept.remove("k").unwrap());
    let gone = Cache::open_with(dir.path(), manual).unwrap();
    gone.put("k", &3u32).unwrap();
    assert!(gone.remove("k").unwrap());
    kept.admin().checkpoint().unwrap();
    // Its writer gone, its segment is sealed, and retired.
    drop(gone);
    let admin = codec::store::Admin::open(dir.path().to_str().unwrap()).unwrap();
    admin.compact_online(Duration::ZERO, |_, _| {}).unwrap();
    admin.verify_index().unwrap();
    for handle in [&kept, &Cache::open(dir.path()).unwrap()] {
        assert_eq!(handle.get::<u32>("k").unwrap(), None);
        assert_eq!(handle.keys().unwrap().len(), 20);
    }
}
