//! The cache store at scale: one folder of small entries (a 4-field struct
//! with ~50 characters of text), 1M entries by default, or as many as
//! `CODEC_STORE_ENTRIES` says (10M for the figures in PERFORMANCE.md).
//!
//! Filling the folder prints the put rate at the start and at the end, the
//! disk per entry, and the fresh open: its time and the resident memory it
//! adds per entry. Criterion then measures a fresh open with its first get,
//! gets on an open handle and puts at the full size.
//!
//! `CODEC_STORE_DIR` puts the folder somewhere else than the temporary
//! folder (it is deleted at the end either way).

use std::hint::black_box;
use std::path::Path;
use std::time::{Duration, Instant};

use codec::{Cache, Codec};
use criterion::{criterion_group, criterion_main, Criterion};

#[derive(Codec, Clone)]
struct Chunk {
    id: u64,
    start: u32,
    end: u32,
    text: String,
}

fn chunk(i: u64) -> Chunk {
    Chunk {
        id: i,
        start: (i % 1000) as u32,
        end: (i % 1000) as u32 + 50,
        text: format!("chunk {i:>12} of the corpus, some fifty chars"),
    }
}

fn key(i: u64) -> String {
    format!("chunk/{i}")
}

/// Puts measured at each end of the fill.
const WINDOW: u64 = 20_000;

fn entries() -> u64 {
    std::env::var("CODEC_STORE_ENTRIES")
        .ok()
        .and_then(|n| n.replace('_', "").parse().ok())
        .unwrap_or(1_000_000)
}

/// Resident memory of this process, in bytes.
fn rss() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: u64 = statm
        .split_whitespace()
        .nth(1)
        .and_then(|p| p.parse().ok())
        .unwrap_or(0);
    pages * 4096
}

fn folder_size(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .map(|listing| {
            listing
                .flatten()
                .map(|e| match e.metadata() {
                    Ok(m) if m.is_dir() => folder_size(&e.path()),
                    Ok(m) => m.len(),
                    Err(_) => 0,
                })
                .sum()
        })
        .unwrap_or(0)
}

fn fill(dir: &Path, n: u64) {
    let cache = Cache::open(dir).unwrap();
    let rate = |from: u64, to: u64| {
        let start = Instant::now();
        for i in from..to {
            cache.put(&key(i), &chunk(i)).unwrap();
        }
        (to - from) as f64 / start.elapsed().as_secs_f64()
    };
    let window = WINDOW.min(n / 2);
    let first = rate(0, window);
    let started = Instant::now();
    // The rate by tenths of the fill, to see it hold.
    let mut tenths = Vec::new();
    let step = ((n - 2 * window) / 10).max(1);
    let mut at = window;
    while at < n - window {
        let to = (at + step).min(n - window);
        tenths.push(format!("{:.0}k", rate(at, to) / 1e3));
        at = to;
    }
    let middle = (n - 2 * window) as f64 / started.elapsed().as_secs_f64();
    let last = rate(n - window, n);
    eprintln!("store_scale: puts/s by tenths: {}", tenths.join(" "));
    cache.checkpoint().unwrap();
    drop(cache);
    eprintln!(
        "store_scale: {n} entries: puts/s {first:.0} first {window}, {last:.0} last {window}, \
         {middle:.0} between ({:.1} s)",
        started.elapsed().as_secs_f64()
    );
    eprintln!(
        "store_scale: disk {:.0} B/entry",
        folder_size(dir) as f64 / n as f64
    );
}

fn bench(c: &mut Criterion) {
    let n = entries();
    let parent = std::env::var_os("CODEC_STORE_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(std::env::temp_dir);
    let tmp = tempfile::tempdir_in(parent).unwrap();
    let dir = tmp.path().join("cache");
    fill(&dir, n);

    let before = rss();
    let start = Instant::now();
    let cache = Cache::open(&dir).unwrap();
    let first = cache.get::<Chunk>(&key(n / 2)).unwrap();
    let open = start.elapsed();
    assert!(first.is_some());
    let added = rss().saturating_sub(before);
    eprintln!(
        "store_scale: fresh open + first get {:.1} ms, RSS after it +{:.1} B/entry",
        open.as_secs_f64() * 1e3,
        added as f64 / n as f64
    );

    // Percentiles of single gets, which criterion's means do not give:
    // first on the fresh handle, then again with the pages it read cached.
    for pass in ["fresh handle", "warm"] {
        let mut times: Vec<Duration> = (0..100_000u64)
            .map(|i| {
                let k = key(i.wrapping_mul(2_654_435_761) % n);
                let start = Instant::now();
                black_box(cache.get::<Chunk>(&k).unwrap().unwrap());
                start.elapsed()
            })
            .collect();
        times.sort();
        let at = |p: f64| times[((times.len() - 1) as f64 * p) as usize].as_secs_f64() * 1e6;
        eprintln!(
            "store_scale: get ({pass}) p50 {:.2} us, p99 {:.2} us",
            at(0.5),
            at(0.99)
        );
    }

    let mut g = c.benchmark_group("store_scale");
    g.sample_size(10);
    g.bench_function("open_and_first_get", |b| {
        b.iter(|| {
            let cache = Cache::open(&dir).unwrap();
            black_box(cache.get::<Chunk>(&key(n / 3)).unwrap().unwrap());
        })
    });
    let mut i = 0u64;
    g.bench_function("get", |b| {
        b.iter(|| {
            i = i.wrapping_add(7_919);
            black_box(cache.get::<Chunk>(&key(i % n)).unwrap().unwrap());
        })
    });
    let mut next = n;
    g.bench_function("put_new_key", |b| {
        b.iter(|| {
            cache.put(&key(next), &chunk(next)).unwrap();
            next += 1;
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
