//! A folder's online compaction stopped at each of its steps: its handle
//! crashed at every call it makes to the disk in turn (before the call
//! applies, and after), and then, the same way, a power cut at that point.
//! After each stop a fresh handle reads every key as the writes left it,
//! and a compaction that runs to its end afterwards changes nothing that
//! reads.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use codec::{Cache, CacheOptions, PutOptions};

use super::disk::{Disk, Rates};
use super::rng::Rng;
use super::trace::Trace;

/// What a key holds after the writes: its last value, whether that put
/// was made with `fsync`, and the last value put with `fsync` (or
/// `None` for a key last removed).
#[derive(Debug, Clone, Default)]
struct Key {
    last: Option<Vec<u8>>,
    last_synced: bool,
    durable: Option<Vec<u8>>,
}

fn value(key: &str, round: u32, len: usize) -> Vec<u8> {
    let mut bytes = format!("{key}|{round}|").into_bytes();
    bytes.resize(bytes.len() + len, round as u8);
    bytes
}

fn options() -> CacheOptions {
    CacheOptions::default()
        .checkpoint_bytes(0)
        .inline_limit(64)
        .segment_bytes(700)
}

/// Writes the store the compaction works on: two writers, one with
/// `fsync` (gone by the time the compaction runs: it takes up its last
/// segment) and one without (open, its segment active), over keys they
/// share, with inline values, values in the shared data and in files of
/// their own, overwrites and removals, across sealed segments.
fn write(disk: &Arc<Disk>) -> (Cache, BTreeMap<String, Key>) {
    let mut keys: BTreeMap<String, Key> = BTreeMap::new();
    let synced = Cache::open_backend(disk.view(true), options().fsync(true)).unwrap();
    let unsynced = Cache::open_backend(disk.view(true), options()).unwrap();
    let file = PutOptions::default().handler("file");
    for round in 0..3u32 {
        for i in 0..6u32 {
            let (cache, fsync) = match (i + round) % 3 {
                0 => (&unsynced, false),
                _ => (&synced, true),
            };
            let key = format!("k{i}");
            let len = [8, 200, 90][(i as usize + round as usize) % 3];
            let bytes = value(&key, round, len);
            if i == 5 && round == 1 {
                cache.put_with(&key, &bytes, &file).unwrap();
            } else if i == 4 && round == 2 {
                cache.remove(&key).unwrap();
                let k = keys.entry(key).or_default();
                (k.last, k.last_synced) = (None, fsync);
                if fsync {
                    k.durable = None;
                }
                continue;
            } else {
                cache.put(&key, &bytes).unwrap();
            }
            let k = keys.entry(key).or_default();
            (k.last, k.last_synced) = (Some(bytes.clone()), fsync);
            if fsync {
                k.durable = Some(bytes);
            }
        }
    }
    drop(synced);
    (unsynced, keys)
}

/// Every key reads as the writes left it (`cut`: after a power cut, as
/// what was durable left it, or later).
fn check(disk: &Arc<Disk>, keys: &BTreeMap<String, Key>, cut: bool, when: &str) {
    let cache = Cache::open_backend(disk.view(true), options())
        .unwrap_or_else(|e| panic!("{when}: the store does not open: {e}"));
    for (key, k) in keys {
        let found = cache.get::<Vec<u8>>(key);
        match (cut, found) {
            (false, Ok(found)) => assert_eq!(found, k.last, "{when}: {key}"),
            (false, Err(e)) => panic!("{when}: {key} does not read: {e}"),
            // After a power cut: the last value, or the last durable one.
            (true, Ok(found)) => assert!(
                found == k.last || found == k.durable,
                "{when}: {key} reads {:?}, neither the last value nor the last durable one",
                found.map(|b| String::from_utf8_lossy(&b[..b.len().min(12)]).into_owned())
            ),
            // The data of a put without `fsync` may be gone.
            (true, Err(e)) => assert!(!k.last_synced, "{when}: {key} does not read: {e}"),
        }
    }
    cache
        .admin()
        .verify_index()
        .unwrap_or_else(|e| panic!("{when}: the index does not verify: {e}"));
    for warning in cache.warnings() {
        let log_cut = cut && warning.contains("does not end as it did when covered");
        let damaged = warning.contains("checkpoint is damaged") && !log_cut;
        assert!(!damaged, "{when}: {warning}");
    }
}

/// How the compaction is stopped.
#[derive(Debug, Clone, Copy)]
enum Stop {
    /// Its handle crashes; the others go on.
    Crash,
    /// The power goes: every handle crashes, and the disk keeps what a
    /// file system may (drawn from the seed).
    PowerCut,
    /// The power goes and nothing not synced is kept.
    PowerCutEmptying,
}

/// Runs the compaction stopped at its call `call` (after the call
/// applies if `after`); `false` once it has fewer calls than that.
fn stopped_at(call: u64, after: bool, stop: Stop) -> bool {
    let seed = call * 2 + after as u64;
    codec::store::__ids::seed_on_this_thread(Some(seed));
    let disk = Disk::in_place(Rng::new(seed), Rates::default(), Trace::default());
    let (unsynced, keys) = write(&disk);
    let view = disk.view(false);
    let id = view.id();
    let compactor = Cache::open_backend(view, options()).unwrap();
    let opened = disk.calls(id);
    disk.crash_at(id, opened + call, after);
    let grace = Duration::ZERO;
    let done = compactor.admin().compact_online(grace, |_, _| {});
    if let Ok(done) = done {
        assert!(done.kept > 0, "{done:?}");
        codec::store::__ids::seed_on_this_thread(None);
        return false;
    }
    let when = format!("the compaction stopped at its call {call} ({stop:?}, after: {after})");
    drop(compactor);
    let cut = match stop {
        Stop::Crash => false,
        Stop::PowerCut => {
            drop(unsynced);
            disk.power_cut();
            true
        }
        Stop::PowerCutEmptying => {
            drop(unsynced);
            disk.power_cut_emptying();
            true
        }
    };
    check(&disk, &keys, cut, &when);
    // A compaction run to its end then changes nothing that reads.
    let again = Cache::open_backend(disk.view(true), options()).unwrap();
    again.admin().compact_online(grace, |_, _| {}).unwrap();
    drop(again);
    check(&disk, &keys, cut, &format!("{when}, then compacted"));
    codec::store::__ids::seed_on_this_thread(None);
    true
}

fn each_step(stop: Stop) {
    let mut steps = 0;
    for after in [false, true] {
        let mut call = 0;
        while stopped_at(call, after, stop) {
            call += 1;
        }
        steps = steps.max(call);
    }
    // The compaction makes its calls (reads, copies, syncs, the
    // retirement, the checkpoint): every one of them was a stop.
    assert!(steps > 30, "the compaction made {steps} calls");
}

#[test]
fn a_folder_compaction_crashed_at_each_step_loses_nothing() {
    each_step(Stop::Crash);
}

#[test]
fn a_folder_compaction_cut_by_a_power_loss_at_each_step_loses_nothing_durable() {
    each_step(Stop::PowerCut);
    each_step(Stop::PowerCutEmptying);
}
