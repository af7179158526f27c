//! Deterministic simulation: the store on a simulated disk that loses
//! power, cuts appends short, fails calls, crashes handles and has other
//! handles' commits of the manifest come first, every fault drawn from a
//! seed, so that a failing seed replays the same run. One seed in 8 runs
//! on a disk whose logs grow in place, with a folder's maps, locks and
//! take-up of a gone writer's log: its checkpoints and online compaction.
//!
//! - `disk`: the simulated backend (over the in-memory store) and its
//!   faults;
//! - `run`: the workload (handles writing, reading, building checkpoints,
//!   compacting, in an order drawn from the seed) and the checks after
//!   each fault;
//! - `rng`: splitmix64; `trace`: what a failing seed prints.
//!
//! `CODEC_SIM_SEEDS` sets how many seeds [`seeds_keep_the_stores_promises`]
//! runs (from `CODEC_SIM_FIRST_SEED`, 0 by default; with
//! `CODEC_SIM_IN_PLACE` set, only those whose logs grow in place); `CODEC_SIM_SEED`
//! replays one in [`replay`], printing its whole trace.

mod disk;
mod rng;
mod run;
mod steps;
mod trace;

use codec::store::backend::Backend as _;
use codec::{Cache, CacheOptions, PutOptions};
use disk::{Disk, Rates};
use rng::Rng;
use run::{checks, run, Failure, STEPS};
use trace::Trace;

/// Seeds run by default: a few hundred, in seconds.
const SEEDS: u64 = 300;

/// Seeds beyond the first [`SEEDS`] that found a defect of the store,
/// replayed by [`seeds_that_found_defects_keep_the_promises`]: a table
/// whose read failed (an error, a timeout) was taken for damaged, and
/// the handle read the logs without it, or a build started from scratch,
/// losing lines only the table held after a power cut took their segments
/// (TESTING.md), and a compaction copying the live lines of the segments
/// it listed only, which lost such a line with the tables (1496); and,
/// on disks whose logs grow in place (a seed 7 modulo 8), data appended
/// at a power cut's cut of a gone writer's data file (55), a compaction
/// retiring the only durable line of a key (303, 415, 767, 1223, 1231,
/// 1463, 2023, 2615, 3463), a rebuild deleting the tables of the manifest
/// it failed to read (487, 1127), a log written again after a power loss
/// whose new lines no checkpoint read (10607, 32791, 35831, 57199, 57799,
/// 63879, 72215, 106167, 123087, 166071), a writer taken up after a
/// compaction retired its segments naming a new file after a retired
/// entry (291415). A seed's trace follows the store's code: a change of
/// the store can take one off the path it found, so they guard the
/// defect only as long as they still meet it.
const FOUND: &[u64] = &[
    313, 525, 626, 641, 675, 820, 874, 892, 1010, 1258, 1421, 1621, 1768, 1812, 1918, 1932, 2148,
    2168, 1496, 55, 303, 415, 487, 767, 1127, 1223, 1231, 1463, 2023, 2615, 3463, 10607, 32791,
    35831, 57199, 57799, 63879, 72215, 106167, 123087, 166071, 291415,
];

fn env_u64(name: &str) -> Option<u64> {
    let text = std::env::var(name).ok()?;
    Some(
        text.parse()
            .unwrap_or_else(|_| panic!("{name}={text} is not a number")),
    )
}

fn report(f: &Failure) -> String {
    format!(
        "seed {} failed at step {}: {}\n\nthe last lines of its trace:\n{}\n\nreplay it with:\n  \
         CODEC_SIM_SEED={} cargo test -p codec --all-features --test store sim::replay -- --nocapture",
        f.seed,
        f.step,
        f.what,
        f.trace.tail(30),
        f.seed
    )
}

#[test]
fn seeds_keep_the_stores_promises() {
    let first = env_u64("CODEC_SIM_FIRST_SEED").unwrap_or(0);
    let count = env_u64("CODEC_SIM_SEEDS").unwrap_or(SEEDS);
    // Only the seeds whose logs grow in place, as a folder's do.
    let in_place = std::env::var_os("CODEC_SIM_IN_PLACE").is_some();
    let mut failures = Vec::new();
    for seed in (first..first + count).filter(|s| !in_place || s % 8 == 7) {
        if let Err(failure) = run(seed, STEPS) {
            failures.push(failure);
        }
    }
    if let Some(f) = failures.first() {
        let seeds: Vec<String> = failures.iter().map(|f| f.seed.to_string()).collect();
        for f in &failures {
            eprintln!("seed {}: step {}: {}", f.seed, f.step, f.what);
        }
        panic!(
            "{} of {count} seeds failed ({}); the first:\n{}",
            failures.len(),
            seeds.join(", "),
            report(f)
        );
    }
}

/// Replays the seed `CODEC_SIM_SEED` names, printing its trace; does
/// nothing without it.
#[test]
fn replay() {
    let Some(seed) = env_u64("CODEC_SIM_SEED") else {
        return;
    };
    match run(seed, STEPS) {
        Ok(trace) => {
            println!("{}", trace.lines().join("\n"));
            println!("seed {seed} passes");
        }
        Err(f) => {
            println!("{}", f.trace.lines().join("\n"));
            panic!("{}", report(&f));
        }
    }
}

#[test]
fn seeds_that_found_defects_keep_the_promises() {
    for &seed in FOUND {
        if let Err(f) = run(seed, STEPS) {
            panic!("{}", report(&f));
        }
    }
}

#[test]
fn one_seed_gives_one_trace() {
    for seed in [1, 2, 3, 7] {
        let first = run(seed, STEPS).map_or_else(|f| f.trace.lines(), |t| t.lines());
        let again = run(seed, STEPS).map_or_else(|f| f.trace.lines(), |t| t.lines());
        assert!(
            first.len() > STEPS,
            "seed {seed}: a trace of {} lines",
            first.len()
        );
        if let Some(i) = (0..first.len().min(again.len())).find(|&i| first[i] != again[i]) {
            panic!(
                "seed {seed}: the traces part at line {i}:\n{}\n{}",
                first[i], again[i]
            );
        }
        assert_eq!(first.len(), again.len(), "seed {seed}");
    }
}

/// The layout file is synced when a store is made: a power cut that left
/// it empty kept the store from opening, and with it every entry written
/// with `fsync`.
#[test]
fn a_power_cut_that_empties_what_was_not_synced_keeps_fsynced_entries() {
    let disk = Disk::new(Rng::new(0), Rates::default(), Trace::default());
    let fsync = CacheOptions::default().fsync(true);
    let cache = Cache::open_backend(disk.view(true), fsync).unwrap();
    cache.put("a", &1u32).unwrap();
    cache.put("b", &vec![7u8; 5000]).unwrap();
    drop(cache);
    disk.power_cut_emptying();
    let cache = Cache::open_backend(disk.view(true), CacheOptions::default()).unwrap();
    assert_eq!(cache.get::<u32>("a").unwrap(), Some(1));
    assert_eq!(cache.get::<Vec<u8>>("b").unwrap(), Some(vec![7u8; 5000]));
}

/// A handle that read the store before a compaction builds its next
/// checkpoint from the segments the compaction retired: the entries the
/// compaction dropped (removed ones, whose removal it dropped too) must
/// not come back.
#[test]
fn a_checkpoint_by_a_handle_older_than_a_compaction_brings_back_nothing_it_dropped() {
    use codec::store::backend::memory::Memory;
    use std::sync::Arc;
    let backend = Arc::new(Memory::new());
    let options = CacheOptions::default().checkpoint_bytes(0);
    let writer = Cache::open_backend(backend.clone(), options.clone()).unwrap();
    writer.put("kept", &1u32).unwrap();
    writer.put("removed", &2u32).unwrap();
    writer.remove("removed").unwrap();
    let damaged = PutOptions::default().handler("file");
    writer
        .put_with("damaged", &vec![3u8; 500], &damaged)
        .unwrap();
    for listed in backend.list("data/").unwrap() {
        backend.delete(&listed.name).unwrap();
    }
    let stale = Cache::open_backend(backend.clone(), options.clone()).unwrap();
    assert_eq!(stale.get::<u32>("removed").unwrap(), None);
    let compactor = Cache::open_backend(backend.clone(), options.clone()).unwrap();
    let grace = std::time::Duration::from_secs(3600);
    assert_eq!(
        compactor
            .admin()
            .compact_online(grace, |_, _| {})
            .unwrap()
            .kept,
        1
    );
    stale.admin().checkpoint().unwrap();
    let fresh = Cache::open_backend(backend, options).unwrap();
    assert_eq!(fresh.get::<u32>("kept").unwrap(), Some(1));
    assert_eq!(fresh.get::<u32>("removed").unwrap(), None);
    assert_eq!(fresh.get::<Vec<u8>>("damaged").unwrap(), None);
}

/// A conditional write whose response is lost, retried by the client,
/// finds the object its first try wrote (taken, or changed): a checkpoint
/// whose commit came back so is committed all the same, and keeps its
/// table. It deleted it, leaving a manifest that names a missing table.
#[test]
fn a_checkpoint_whose_commit_is_retried_after_a_lost_response_keeps_its_table() {
    use crate::fixtures::wrapped::{Hooks, Wrapped};
    use codec::store::backend::memory::Memory;
    use codec::store::backend::{Backend, BackendError, Created, Replaced, Version};
    use std::sync::Arc;

    /// Commits of the manifest that apply, then answer as their retry
    /// would.
    struct Retried;
    impl Hooks for Retried {
        fn create(
            &self,
            inner: &dyn Backend,
            name: &str,
            bytes: &[u8],
            sync: bool,
        ) -> Result<Created, BackendError> {
            let created = inner.create(name, bytes, sync)?;
            Ok(if name == "checkpoint.json" {
                Created::Exists
            } else {
                created
            })
        }
        fn replace(
            &self,
            inner: &dyn Backend,
            name: &str,
            bytes: &[u8],
            v: &Version,
        ) -> Result<Replaced, BackendError> {
            inner.replace(name, bytes, v)?;
            Ok(Replaced::Changed)
        }
    }

    let backend = Arc::new(Wrapped::new(Arc::new(Memory::new()), Retried));
    let options = CacheOptions::default().checkpoint_bytes(0);
    let cache = Cache::open_backend(backend.clone(), options.clone()).unwrap();
    for round in 0..3u32 {
        cache.put(&format!("k{round}"), &round).unwrap();
        cache.admin().checkpoint().unwrap();
    }
    let fresh = Cache::open_backend(backend, options).unwrap();
    assert_eq!(fresh.get::<u32>("k2").unwrap(), Some(2));
    assert_eq!(fresh.admin().verify_index().unwrap(), 3);
    let warnings = fresh.warnings();
    assert!(warnings.is_empty(), "{warnings:?}");
}

/// A folder's compaction retires a sealed segment while the newest line
/// of one of its keys is in another writer's active segment, kept: that
/// line was live, so it was not copied. Written without `fsync`, it was
/// not durable, and a power cut after the retirement took it and left
/// the key with no line at all, though an older value was durable.
#[test]
fn a_folder_compaction_keeps_a_key_whose_newest_line_is_in_a_segment_kept() {
    let disk = Disk::in_place(Rng::new(0), Rates::default(), Trace::default());
    let small = CacheOptions::default()
        .checkpoint_bytes(0)
        .segment_bytes(600);
    let durable = Cache::open_backend(disk.view(true), small.clone().fsync(true)).unwrap();
    durable.put("k", &1u32).unwrap();
    for i in 0..20u32 {
        durable.put(&format!("filler{i}"), &i).unwrap();
    }
    let later = Cache::open_backend(disk.view(true), small.clone()).unwrap();
    later.put("k", &2u32).unwrap();
    let compactor = Cache::open_backend(disk.view(true), small.clone()).unwrap();
    let grace = std::time::Duration::from_secs(3600);
    let done = compactor.admin().compact_online(grace, |_, _| {}).unwrap();
    assert!(done.kept > 0, "the compaction copied nothing: {done:?}");
    drop((durable, later, compactor));
    disk.power_cut_emptying();
    let fresh = Cache::open_backend(disk.view(true), small).unwrap();
    assert!(
        matches!(fresh.get::<u32>("k").unwrap(), Some(1 | 2)),
        "k is lost"
    );
    assert_eq!(fresh.get::<u32>("filler19").unwrap(), Some(19));
}

/// The check that every line is in a log once reads lines whose checksum
/// holds, and no start of one.
#[test]
fn the_lines_checked_once_are_those_whose_checksum_holds() {
    let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/store-v1");
    let log = std::fs::read_dir(&fixture)
        .unwrap()
        .flatten()
        .find(|e| e.file_name().to_string_lossy().ends_with("-info.jsonl"))
        .unwrap();
    let bytes = std::fs::read(log.path()).unwrap();
    let lines: Vec<&[u8]> = bytes
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .collect();
    assert!(lines.len() > 10);
    for line in &lines {
        assert!(checks(line), "{}", String::from_utf8_lossy(line));
        assert!(!checks(&line[..37]));
        assert!(!checks(&line[..line.len() - 1]));
    }
}
