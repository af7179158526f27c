//! Cache store throughput: ~100-byte values, 1 MiB arrays, and the first load
//! of a 1 GiB array (memory-mapped: constant time). Durability off, as in
//! the figures of exca's CacheDict it is compared with (see PERFORMANCE.md).

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use codec::{Cache, Codec};
use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};

#[derive(Codec, Clone)]
struct Small {
    id: u64,
    text: String,
    values: Vec<u32>,
}

fn small(i: u64) -> Small {
    Small {
        id: i,
        text: format!("value number {i} of the benchmark"),
        values: (0..12).collect(),
    }
}

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let mut g = c.benchmark_group("store_small");
    g.throughput(Throughput::Elements(1000));
    g.bench_function("put_1000", |b| {
        let cache = Cache::open(dir.path().join("puts")).unwrap();
        let mut n = 0u64;
        b.iter(|| {
            for _ in 0..1000 {
                cache.put(&format!("k{n}"), &small(n)).unwrap();
                n += 1;
            }
        })
    });
    let filled = dir.path().join("gets");
    {
        let cache = Cache::open(&filled).unwrap();
        for i in 0..1000 {
            cache.put(&format!("k{i}"), &small(i)).unwrap();
        }
    }
    g.bench_function("get_1000", |b| {
        let cache = Cache::open(&filled).unwrap();
        b.iter(|| {
            for i in 0..1000 {
                black_box(cache.get::<Small>(&format!("k{i}")).unwrap().unwrap());
            }
        })
    });
    g.bench_function("get_1000_fresh_reader", |b| {
        b.iter_batched(
            || (),
            |()| {
                let cache = Cache::open(&filled).unwrap();
                for i in 0..1000 {
                    black_box(cache.get::<Small>(&format!("k{i}")).unwrap().unwrap());
                }
            },
            BatchSize::PerIteration,
        )
    });
    g.finish();

    let array = ndarray::Array1::<f64>::from_shape_fn(131_072, |i| i as f64); // 1 MiB
    let mut g = c.benchmark_group("store_array_1mib");
    g.throughput(Throughput::Elements(1));
    // The put and its floor each write into files opened once, which grow
    // for the whole run (criterion calls each closure once per sample: a
    // file created there would be truncated, its dirty pages dropped
    // unwritten), and every `SYNC_EVERY_MIB` MiB wait outside the timer for
    // their bytes to reach the disk and drop their pages: so neither pays
    // for gigabytes of writeback, its own or the other's, nor for memory
    // the host took back (see `sync_files_under`), and the figures compare
    // the put's work with one write(2), not two moments of the machine.
    let paced = dir.path().join("array-1mib");
    let puts = paced.join("puts");
    let cache = Cache::open(&puts).unwrap();
    let mut pace = Pace::new(&paced);
    let mut n = 0;
    g.bench_function("put", |b| {
        b.iter_custom(|iters| {
            pace.time(iters, || {
                cache.put_array(&format!("a{n}"), &array).unwrap();
                n += 1;
            })
        })
    });
    drop(cache);
    std::fs::remove_dir_all(&puts).unwrap();
    // The floor: the same bytes with one write(2) at the end of an open
    // file, which grows as the store's data files do.
    let bytes: Vec<u8> = array.iter().flat_map(|v| v.to_le_bytes()).collect();
    let mut file = std::fs::File::create(paced.join("raw.bin")).unwrap();
    g.bench_function("write_into_an_open_file", |b| {
        use std::io::Write;
        b.iter_custom(|iters| pace.time(iters, || file.write_all(black_box(&bytes)).unwrap()))
    });
    drop(file);
    std::fs::remove_dir_all(&paced).unwrap();
    let cache = Cache::open(dir.path().join("arrays")).unwrap();
    cache.put_array("one", &array).unwrap();
    g.bench_function("get", |b| {
        b.iter(|| black_box(cache.get_array::<f64>("one").unwrap().unwrap().view()[1000]))
    });
    g.finish();

    // A value holding a 1 MiB array: its data kept apart (the default) or
    // encoded in the payload with the rest.
    #[derive(Codec, Clone)]
    struct WithArray {
        name: String,
        ids: Vec<u32>,
        vectors: ndarray::Array1<f64>,
    }
    let value = WithArray {
        name: "embeddings".into(),
        ids: (0..64).collect(),
        vectors: array.clone(),
    };
    let mut g = c.benchmark_group("store_value_with_1mib_array");
    g.throughput(Throughput::Elements(1));
    for (name, apart_min) in [("apart", 64 * 1024), ("in_payload", usize::MAX)] {
        let options = codec::CacheOptions::default().apart_min(apart_min);
        let folder = dir.path().join(format!("with-array-{name}"));
        let cache = Cache::open_with(&folder, options).unwrap();
        let mut n = 0;
        g.bench_function(format!("put_{name}"), |b| {
            b.iter(|| {
                cache.put(&format!("v{n}"), &value).unwrap();
                n += 1;
            })
        });
        g.bench_function(format!("get_{name}"), |b| {
            b.iter(|| black_box(cache.get::<WithArray>("v0").unwrap().unwrap()))
        });
    }
    // The same value with a `MappedArray` field: read in place, no copy.
    #[derive(Codec, Clone)]
    struct WithMapped {
        name: String,
        ids: Vec<u32>,
        vectors: codec::store::MappedArray<f64>,
    }
    let mapped = WithMapped {
        name: "embeddings".into(),
        ids: (0..64).collect(),
        vectors: codec::store::MappedArray::from_array(&array),
    };
    let cache = Cache::open(dir.path().join("with-mapped")).unwrap();
    cache.put("v", &mapped).unwrap();
    g.bench_function("get_mapped_field", |b| {
        b.iter(|| black_box(cache.get::<WithMapped>("v").unwrap().unwrap()))
    });
    g.finish();

    let big_dir = dir.path().join("big");
    {
        let cache = Cache::open(&big_dir).unwrap();
        let big = ndarray::Array1::<f64>::zeros(1 << 27); // 1 GiB
        cache.put_array("big", &big).unwrap();
    }
    let mut g = c.benchmark_group("store_array_1gib");
    g.sample_size(20);
    g.bench_function("first_load", |b| {
        b.iter_batched(
            || Cache::open(&big_dir).unwrap(),
            |cache| {
                let a = cache.get_array::<f64>("big").unwrap().unwrap();
                black_box(a.view()[12_345]);
            },
            BatchSize::PerIteration,
        )
    });
    g.finish();
}

/// Writes of 1 MiB under `dir`, timed one by one, and every
/// `SYNC_EVERY_MIB` of them all files under `dir` synced (and their pages
/// dropped) outside the timer.
struct Pace {
    dir: PathBuf,
    since_sync: usize,
}

/// Well below the dirty bytes from which Linux writes back in the
/// background (10% of the memory by default) and slows writers down.
const SYNC_EVERY_MIB: usize = 64;

impl Pace {
    fn new(dir: &Path) -> Pace {
        std::fs::create_dir_all(dir).unwrap();
        Pace {
            dir: dir.to_owned(),
            since_sync: 0,
        }
    }

    /// The time of `iters` calls of `write`, each writing 1 MiB.
    fn time(&mut self, iters: u64, mut write: impl FnMut()) -> Duration {
        let mut total = Duration::ZERO;
        for _ in 0..iters {
            if self.since_sync == SYNC_EVERY_MIB {
                sync_files_under(&self.dir);
                self.since_sync = 0;
            }
            let start = Instant::now();
            write();
            total += start.elapsed();
            self.since_sync += 1;
        }
        total
    }
}

/// Waits for the bytes of every file under `dir` to reach the disk, then
/// drops their pages from the page cache. The next writes then take pages
/// freed a moment ago: on a VM, memory the guest has left free for a while
/// goes back to the host (the balloon's free page reporting), and its next
/// use costs a fault in the host. Without the drop, 1 MiB `write(2)`s into
/// a file went from 0.35 to 2.3 ms each after their first 1.3 GB, synced
/// or not (2-core VM, 2026-11-27): the moment a bench crossed that line,
/// not its own work, decided its figure.
fn sync_files_under(dir: &Path) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sync_files_under(&path);
            continue;
        }
        let file = std::fs::File::open(&path).unwrap();
        file.sync_data().unwrap();
        #[cfg(target_os = "linux")]
        rustix::fs::fadvise(&file, 0, None, rustix::fs::Advice::DontNeed).unwrap();
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(Duration::from_secs(3)).warm_up_time(Duration::from_secs(1));
    targets = bench
}
criterion_main!(benches);
