//! A store bounded in bytes under a firehose: one handle open for the
//! whole run (a `static` memo cache's) puts 1 KiB values under new keys as
//! fast as it can, 1,000,000 by default (`CODEC_STORE_PUTS`), with
//! `max_bytes = 10 MiB`; then the same puts without bounds, in the same
//! run. It prints the folder's size sampled every 10,000 puts and the
//! live entries every 50,000 (largest, median, at the end), and for both
//! runs the put rate, p99.9, the slowest put and how many took over 100 µs,
//! 1 ms and 10 ms (`CODEC_STORE_SERIES=1`:
//! the sizes one by one). `CODEC_STORE_RATE=20000` puts 20,000 a second
//! rather than as fast as they go (the put rate printed is then that of
//! the puts' own time): a service's steady load, under what the upkeep
//! of the bounds keeps up with.
//!
//! `cargo bench -p codec-benches --bench store_bounds`; figures in
//! PERFORMANCE.md.

use std::path::Path;
use std::time::{Duration, Instant};

use codec::store::Bounds;
use codec::{Cache, CacheOptions, Codec};

#[derive(Codec)]
struct Page {
    id: u32,
    text: String,
}

fn page(id: u32) -> Page {
    Page {
        id,
        text: format!("{id:08}").repeat(125),
    }
}

fn folder_size(dir: &Path) -> u64 {
    let Ok(listing) = std::fs::read_dir(dir) else {
        return 0;
    };
    let mut total = 0;
    for entry in listing.map_while(Result::ok) {
        let Ok(meta) = entry.metadata() else { continue };
        total += if meta.is_dir() {
            folder_size(&entry.path())
        } else {
            meta.len()
        };
    }
    total
}

struct Run {
    puts_per_sec: f64,
    p999: Duration,
    slowest: Duration,
    /// Puts over 100 µs, 1 ms and 10 ms.
    over: [usize; 3],
    sizes: Vec<u64>,
    live: Vec<usize>,
}

/// Waits until `due`: asleep while far from it, then on the processor.
fn wait_until(due: Instant) {
    loop {
        let now = Instant::now();
        if now >= due {
            return;
        }
        if due - now > Duration::from_micros(300) {
            std::thread::sleep(due - now - Duration::from_micros(200));
        } else {
            std::hint::spin_loop();
        }
    }
}

fn run(puts: u32, bounds: Option<Bounds>, rate: Option<f64>) -> Run {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("cache");
    let mut options = CacheOptions::default();
    if let Some(bounds) = bounds {
        options = options.bounds(bounds);
    }
    let cache = Cache::open_with(&dir, options).unwrap();
    let (mut times, mut sizes, mut live) = (Vec::with_capacity(puts as usize), vec![], vec![]);
    let mut writing = Duration::ZERO;
    let began = Instant::now();
    for i in 0..puts {
        let value = page(i);
        if let Some(rate) = rate {
            wait_until(began + Duration::from_secs_f64(f64::from(i) / rate));
        }
        let start = Instant::now();
        cache.put(&format!("page/{i}"), &value).unwrap();
        let took = start.elapsed();
        writing += took;
        times.push(took);
        if (i + 1) % 10_000 == 0 {
            sizes.push(folder_size(&dir));
        }
        // Counting the live entries reads the whole store: less often.
        if (i + 1) % 50_000 == 0 {
            live.push(cache.len().unwrap());
        }
    }
    assert!(cache.warnings().is_empty(), "{:?}", cache.warnings());
    times.sort_unstable();
    let over = |us: u64| {
        times
            .iter()
            .filter(|t| **t > Duration::from_micros(us))
            .count()
    };
    let over = [over(100), over(1_000), over(10_000)];
    Run {
        puts_per_sec: f64::from(puts) / writing.as_secs_f64(),
        p999: times[times.len() * 999 / 1000],
        slowest: times[times.len() - 1],
        over,
        sizes,
        live,
    }
}

fn median<T: Ord + Copy>(values: &[T]) -> T {
    let mut sorted = values.to_vec();
    sorted.sort_unstable();
    sorted[sorted.len() / 2]
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` would run it
    // with no such flag: nothing to measure then.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let puts: u32 = std::env::var("CODEC_STORE_PUTS").map_or(1_000_000, |n| n.parse().unwrap());
    let mib = |bytes: u64| bytes as f64 / f64::from(1 << 20);
    // Puts at a steady rate rather than as fast as they go.
    let rate: Option<f64> = std::env::var("CODEC_STORE_RATE")
        .ok()
        .map(|n| n.parse().unwrap());
    let bounded = run(puts, Some(Bounds::default().max_bytes(10 << 20)), rate);
    let how = rate.map_or("as fast as they go".to_owned(), |rate| {
        format!("{rate} a second")
    });
    println!("max_bytes = 10 MiB, {puts} puts of 1 KiB ({how}), one handle open throughout:");
    println!(
        "  folder: largest {:.1} MiB, median {:.1} MiB, at the end {:.1} MiB ({} samples)",
        mib(*bounded.sizes.iter().max().unwrap()),
        mib(median(&bounded.sizes)),
        mib(*bounded.sizes.last().unwrap()),
        bounded.sizes.len(),
    );
    println!(
        "  live entries: largest {}, median {} (10 MiB holds about 10,300)",
        bounded.live.iter().max().unwrap(),
        median(&bounded.live),
    );
    let unbounded = run(puts, None, rate);
    println!(
        "  unbounded: the folder at the end {:.1} MiB",
        mib(*unbounded.sizes.last().unwrap())
    );
    for (name, r) in [("bounded", &bounded), ("unbounded", &unbounded)] {
        println!(
            "  {name}: {:.0} puts/s, p99.9 {:?}, slowest {:?}; puts over 100 µs {}, 1 ms {}, 10 ms {}",
            r.puts_per_sec, r.p999, r.slowest, r.over[0], r.over[1], r.over[2]
        );
    }
    println!(
        "  bounded/unbounded: put rate {:.2}, p99.9 {:.1}x",
        bounded.puts_per_sec / unbounded.puts_per_sec,
        bounded.p999.as_secs_f64() / unbounded.p999.as_secs_f64()
    );
    if std::env::var("CODEC_STORE_SERIES").is_ok() {
        for (n, size) in bounded.sizes.iter().enumerate() {
            let live = bounded.live.get(n / 5).filter(|_| n % 5 == 4);
            let live = live
                .map(|live| format!(", {live} live"))
                .unwrap_or_default();
            println!(
                "  {:>8} puts: {:>6.1} MiB{live}",
                (n + 1) * 10_000,
                mib(*size)
            );
        }
    }
}
