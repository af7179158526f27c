//! The cache store at scale: one folder of small entries (a 4-field struct
//! with ~50 characters of text), 1M entries by default, or as many as
//! `CODEC_STORE_ENTRIES` says (10M for the figures in PERFORMANCE.md).
//!
//! Filling the folder prints the put rate at the start and at the end, the
//! disk per entry, and the fresh open: its time and the resident memory it
//! adds per entry. Criterion then measures a fresh open with its first get,
//! gets on an open handle and puts at the full size.
//!
//! `CODEC_STORE_WRITERS` fills it from that many handles at once (threads,
//! each a writer with its own log). `CODEC_STORE_DIR` puts the folder somewhere else than the temporary
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

/// Put rates of one writer putting entries `t, t + writers, ...` (`count`
/// of them): over its first and last `window` puts, and by tenths of the rest.
fn fill_part(cache: &Cache, t: u64, writers: u64, count: u64, window: u64) -> (f64, Vec<f64>, f64) {
    let rate = |from: u64, to: u64| {
        let start = Instant::now();
        for j in from..to {
            let i = j * writers + t;
            cache.put(&key(i), &chunk(i)).unwrap();
        }
        (to - from) as f64 / start.elapsed().as_secs_f64()
    };
    let first = rate(0, window);
    let step = ((count - 2 * window) / 10).max(1);
    let mut tenths = Vec::new();
    let mut at = window;
    while at < count - window {
        let to = (at + step).min(count - window);
        tenths.push(rate(at, to));
        at = to;
    }
    let last = rate(count - window, count);
    (first, tenths, last)
}

/// Fills the folder with `n` entries from `writers` handles (threads, each
/// a writer with its own log, as processes would be).
fn fill(dir: &Path, n: u64, writers: u64) {
    let count = n / writers;
    let window = (WINDOW / writers).min(count / 2);
    let started = Instant::now();
    let parts: Vec<(f64, Vec<f64>, f64)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..writers)
            .map(|t| {
                s.spawn(move || {
                    let cache = Cache::open(dir).unwrap();
                    fill_part(&cache, t, writers, count, window)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let elapsed = started.elapsed().as_secs_f64();
    // Writers run together: their rates add up.
    let first: f64 = parts.iter().map(|p| p.0).sum();
    let last: f64 = parts.iter().map(|p| p.2).sum();
    let tenths: Vec<String> = (0..parts[0].1.len())
        .map(|k| {
            let sum: f64 = parts.iter().filter_map(|p| p.1.get(k)).sum();
            format!("{:.0}k", sum / 1e3)
        })
        .collect();
    let cache = Cache::open(dir).unwrap();
    let start = Instant::now();
    cache.admin().checkpoint().unwrap();
    let checkpoint = start.elapsed().as_secs_f64();
    drop(cache);
    eprintln!("store_scale: puts/s by tenths: {}", tenths.join(" "));
    eprintln!(
        "store_scale: {} entries by {writers} writer(s): puts/s {first:.0} first {}, \
         {last:.0} last {}, {:.0} overall ({elapsed:.1} s); last checkpoint {checkpoint:.2} s",
        count * writers,
        window * writers,
        window * writers,
        (count * writers) as f64 / elapsed,
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
    let writers = std::env::var("CODEC_STORE_WRITERS")
        .ok()
        .and_then(|w| w.parse().ok())
        .unwrap_or(1u64)
        .max(1);
    let n = n / writers * writers;
    fill(&dir, n, writers);

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
