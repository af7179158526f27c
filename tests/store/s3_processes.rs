//! The store on S3 (a moto server, `tests/common/moto.rs`) under several
//! processes and kill -9: the child processes are the `child_*` tests.

use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use codec::store::backend::object::Objects;
use codec::store::Admin;
use codec::{Cache, CacheOptions};

use crate::fixtures::child::{self, ChildTest};
use crate::fixtures::moto::{moto, store_at};
use crate::fixtures::shared;
use crate::fixtures::stop_at::{Point, StopAt};
use crate::fixtures::{entry, Entry};

fn open(port: u16, bucket: &str) -> Cache {
    Cache::open_store(store_at(port, bucket, 3), "p", CacheOptions::default()).unwrap()
}

/// `child` on `bucket` of this binary's moto server, as writer `writer`
/// writing `count` entries.
fn on(child: ChildTest, bucket: &str, writer: u32, count: u32) -> ChildTest {
    child
        .env("CODEC_PORT", moto().port.to_string())
        .env("CODEC_BUCKET", bucket)
        .env("CODEC_WRITER", writer.to_string())
        .env("CODEC_COUNT", count.to_string())
}

/// The server's port, bucket, writer and count a child's parent gave it.
fn child_env() -> Option<(u16, String, u32, u32)> {
    let port = child::var("CODEC_PORT")?;
    let bucket = child::var("CODEC_BUCKET").unwrap();
    let writer = child::var("CODEC_WRITER").unwrap();
    let count = child::var("CODEC_COUNT").unwrap();
    Some((port, bucket, writer, count))
}

/// Puts `count` entries on the shared keys ([`shared::put_acknowledged`]).
#[test]
#[ignore = "a child process of the tests below"]
fn child_shared_writer() {
    let Some((port, bucket, w, count)) = child_env() else {
        return;
    };
    // A checkpoint every 128 segments (a quarter of the default's), so
    // each writer builds a few among the others' puts.
    let options = CacheOptions::default().checkpoint_bytes(128 * 8 * 1024);
    let cache = Cache::open_store(store_at(port, &bucket, 3), "p", options).unwrap();
    shared::put_acknowledged(&cache, w, count);
}

/// Puts entries of keys of its own forever, printing `ack <n>` after each.
#[test]
#[ignore = "a child process of the tests below"]
fn child_writer() {
    let Some((port, bucket, w, _)) = child_env() else {
        return;
    };
    let cache = open(port, &bucket);
    for n in 0.. {
        cache.put(&format!("w{w}/{n}"), &entry(w, n)).unwrap();
        println!("ack {n}");
    }
}

#[test]
fn four_processes_put_500_entries_each_and_the_latest_write_wins() {
    let bucket = moto().bucket("four");
    // About 15 s of moto's time to write (150 PUTs/s here); each writer's
    // checkpoints (every 128 segments) leave the reader to GET the
    // segments put since the last one only.
    let count = 500;
    let children = (0..4)
        .map(|w| on(child!(child_shared_writer), &bucket, w, count).spawn())
        .collect();
    let puts = shared::acknowledged(children);
    let acked: usize = puts.values().map(Vec::len).sum();
    assert_eq!(acked, 4 * count as usize);
    shared::check_latest_won(&open(moto().port, &bucket), &puts);
}

/// Sets its flag when dropped, so a thread waiting on it ends even if the
/// test fails.
struct Stop<'a>(&'a AtomicBool);

impl Drop for Stop<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

#[test]
fn a_writer_killed_at_20_points_loses_no_acknowledged_entry() {
    let bucket = moto().bucket("kill");
    let acked: Mutex<Vec<(u32, u32)>> = Mutex::default();
    let done = AtomicBool::new(false);
    std::thread::scope(|s| {
        let _stop = Stop(&done);
        // A reader all along: no error, whatever it meets.
        let reader = s.spawn(|| {
            let cache = open(moto().port, &bucket);
            while !done.load(Ordering::SeqCst) {
                cache.refresh().unwrap();
                let known = acked.lock().unwrap().clone();
                for &(w, n) in known.iter().rev().take(20) {
                    let got = cache.get::<Entry>(&format!("w{w}/{n}")).unwrap();
                    assert_eq!(got, Some(entry(w, n)));
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        });
        for w in 0..20 {
            let mut writer = on(child!(child_writer), &bucket, w, 0).spawn();
            let mut acks = BufReader::new(writer.stdout.take().unwrap())
                .lines()
                .map_while(Result::ok)
                .filter_map(|line| Some(line[line.rfind("ack ")? + 4..].parse().unwrap()));
            // Killed after a few acknowledgements, and a moment into the
            // next put: between its data and its line, or within a request.
            for _ in 0..1 + w % 5 * 3 {
                let n = (acks.next()).unwrap_or_else(|| writer.ended_before("an acknowledgement"));
                acked.lock().unwrap().push((w, n));
            }
            std::thread::sleep(Duration::from_micros(700 * w as u64));
            writer.kill().unwrap();
            writer.wait().unwrap();
            // Acknowledged before the kill, and not read yet.
            for n in acks {
                acked.lock().unwrap().push((w, n));
            }
        }
        done.store(true, Ordering::SeqCst);
        reader.join().unwrap();
    });
    let reader = open(moto().port, &bucket);
    assert!(reader.warnings().is_empty(), "{:?}", reader.warnings());
    let acked = acked.into_inner().unwrap();
    for &(w, n) in &acked {
        let got = reader.get::<Entry>(&format!("w{w}/{n}")).unwrap();
        assert_eq!(got, Some(entry(w, n)), "w{w}/{n}");
    }
    // At most the put being written when killed, once per writer.
    assert!(reader.len().unwrap() <= acked.len() + 20);
    reader.put("after", &entry(99, 0)).unwrap();
}

/// The grace period of the compactions below: what one retires is deleted
/// by the first to start that long after its commit.
const GRACE: Duration = Duration::from_millis(600);

/// Where the compactions below are killed (`fixtures/stop_at.rs`), through
/// each phase of one on a store compacted before: its snapshot, the
/// deletion of what the one before retired, reading the store, the
/// copies, the commit of its checkpoint, the end.
const KILL_POINTS: [&str; 20] = [
    // The snapshot: the store's size, the manifest, the segments.
    "LIST p$ 1 before",
    "GET p/checkpoint.json$ 1 after",
    "LIST p$ 2 after",
    // Deleting the log segments and data the compaction before replaced.
    "DELETE -info.jsonl$ 1 before",
    "DELETE -info.jsonl$ 3 after",
    "DELETE p/data/ 1 before",
    "DELETE p/data/ 2 after",
    // Reading the store: its checkpoint and the segments after it.
    "GET p/codec-store.json$ 1 after",
    "GET p/index/ 1 after",
    "GET -info.jsonl$ 2 after",
    // The copies: their data, then their lines.
    "PUT p/data/ 1 before",
    "PUT p/data/ 4 after",
    "PUT -info.jsonl$ 1 before",
    "PUT -info.jsonl$ 1 after",
    // The commit: its table, then the manifest (done but not answered).
    "PUT p/index/ 1 before",
    "PUT p/index/ 1 after",
    "PUT p/checkpoint.json$ 1 before",
    "PUT p/checkpoint.json$ 1 after",
    // After it: the tables it replaced deleted, the store's size.
    "DELETE p/index/ 1 after",
    "LIST p/schemas$ 2 before",
];

/// Compacts the store, stopping at the point `CODEC_POINT` names; prints
/// `done` if it never got there.
#[test]
#[ignore = "a child process of the tests below"]
fn child_compactor() {
    let Some((port, bucket, _, _)) = child_env() else {
        return;
    };
    let point = Point::parse(&std::env::var("CODEC_POINT").unwrap());
    let store = StopAt::new(store_at(port, &bucket, 3), point);
    let backend = Objects::new(store, "p", format!("s3://{bucket}/p")).unwrap();
    Admin::compact_backend(Arc::new(backend), &[], GRACE, |_, _| {}).unwrap();
    println!("done");
}

/// Runs a compaction in a child process and kills it at `point`.
fn kill_a_compaction_at(bucket: &str, point: &str) {
    let mut compactor = on(child!(child_compactor), bucket, 0, 0)
        .env("CODEC_POINT", point)
        .spawn();
    let lines = BufReader::new(compactor.stdout.take().unwrap()).lines();
    let last = lines
        .map_while(Result::ok)
        .find(|l| l.starts_with("stopped ") || l.starts_with("done"));
    compactor.kill().unwrap();
    compactor.wait().unwrap();
    match last {
        Some(line) if line.starts_with("stopped ") => {}
        other => panic!("the compaction never reached {point}: {other:?}"),
    }
}

#[test]
fn a_compaction_killed_at_20_points_loses_no_acknowledged_entry() {
    const KEYS: u32 = 48;
    let bucket = moto().bucket("compact-kill");
    // The last acknowledged put of each key.
    let acked: Mutex<HashMap<u32, u32>> = Mutex::default();
    let done = AtomicBool::new(false);
    std::thread::scope(|s| {
        let _stop = Stop(&done);
        // A writer all along, overwriting its keys.
        let writer = s.spawn(|| {
            let cache = open(moto().port, &bucket);
            for n in 0.. {
                if done.load(Ordering::SeqCst) {
                    return;
                }
                cache.put(&format!("k/{}", n % KEYS), &entry(0, n)).unwrap();
                acked.lock().unwrap().insert(n % KEYS, n);
                std::thread::sleep(Duration::from_millis(100));
            }
        });
        // A reader all along: no error, and no acknowledged put lost. Its
        // gets go on for a while after each refresh, well within the
        // grace period, and leave moto (which answers one request at a
        // time) a moment for the compactions between rounds.
        let reader = s.spawn(|| {
            let cache = open(moto().port, &bucket);
            for i in 0usize.. {
                if done.load(Ordering::SeqCst) {
                    break;
                }
                let known: Vec<(u32, u32)> = acked.lock().unwrap().clone().into_iter().collect();
                cache.refresh().unwrap();
                let refreshed = Instant::now();
                for j in 0..known.len() {
                    if refreshed.elapsed() > GRACE / 2 {
                        break;
                    }
                    let (key, n) = known[(i * known.len() + j) * 7919 % known.len()];
                    let got: Entry = cache.get(&format!("k/{key}")).unwrap().unwrap();
                    assert!(got.n >= n, "k/{key}: put {n} acknowledged, {} read", got.n);
                    assert_eq!(got, entry(0, got.n), "k/{key}");
                }
                std::thread::sleep(Duration::from_millis(30));
            }
            assert!(cache.warnings().is_empty(), "{:?}", cache.warnings());
        });
        let backend = Arc::new(Objects::new(moto().store(&bucket), "p", "s3://kill").unwrap());
        while acked.lock().unwrap().len() < KEYS as usize {
            std::thread::sleep(Duration::from_millis(20));
        }
        for point in KILL_POINTS {
            // A compaction that completes; one killed while it deletes
            // what that one retired starts past the grace period.
            Admin::compact_backend(backend.clone(), &[], GRACE, |_, _| {}).unwrap();
            if point.starts_with("DELETE -info") || point.starts_with("DELETE p/data") {
                std::thread::sleep(GRACE + Duration::from_millis(100));
            }
            kill_a_compaction_at(&bucket, point);
        }
        Admin::compact_backend(backend.clone(), &[], GRACE, |_, _| {}).unwrap();
        done.store(true, Ordering::SeqCst);
        writer.join().unwrap();
        reader.join().unwrap();
    });
    let reader = open(moto().port, &bucket);
    assert!(reader.warnings().is_empty(), "{:?}", reader.warnings());
    let acked = acked.into_inner().unwrap();
    assert_eq!(reader.len().unwrap(), acked.len());
    for (key, n) in acked {
        let got = reader.get::<Entry>(&format!("k/{key}")).unwrap();
        assert_eq!(got, Some(entry(0, n)), "k/{key}");
    }
}
