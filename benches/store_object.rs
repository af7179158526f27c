//! The store on S3 (a moto server on this machine, started here as the
//! tests start it) against the same store in a folder, in one run: 100
//! small puts one by one and as one `put_many`, 100 gets of values in data
//! objects one by one and as one `get_many`, and on S3 the same gets
//! through a warm local cache; an array of 4 MiB read whole and 64 of its
//! rows. moto is a Python server: the S3 figures are its speed more than
//! the network's or S3's; the request counts (`tests/store/object.rs`,
//! `tests/store/object_reads.rs`) are what carries over.

#[path = "../tests/common/moto.rs"]
mod moto;
#[path = "../tests/common/venv.rs"]
mod venv;

use std::hint::black_box;
use std::sync::Arc;
use std::time::Duration;

use codec::store::backend::folder::Folder;
use codec::store::backend::object::Objects;
use codec::store::backend::Backend;
use codec::store::LocalCache;
use codec::{Cache, CacheOptions, Codec};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

#[derive(Codec, Clone)]
struct Small {
    id: u64,
    text: String,
    values: Vec<u32>,
}

fn small(i: u64, len: usize) -> Small {
    Small {
        id: i,
        text: format!("value number {i} of the benchmark").repeat(len / 30 + 1),
        values: (0..12).collect(),
    }
}

const N: u64 = 100;

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let moto = moto::moto();
    let bucket = moto.bucket("bench");
    let backends: [(&str, Arc<dyn Backend>); 2] = [
        ("folder", Arc::new(Folder::new(dir.path()))),
        (
            "s3_moto",
            Arc::new(Objects::new(moto.store(&bucket), "b", format!("s3://{bucket}/b")).unwrap()),
        ),
    ];
    let mut g = c.benchmark_group("store_object");
    g.throughput(Throughput::Elements(N));
    g.sample_size(10);
    g.warm_up_time(Duration::from_secs(1));
    g.measurement_time(Duration::from_secs(5));
    let local = tempfile::tempdir().unwrap();
    let mut caches = Vec::new();
    for (name, backend) in backends {
        let cache = Cache::open_backend(backend.clone(), CacheOptions::default()).unwrap();
        let mut n = 0u64;
        g.bench_function(format!("{name}/put_100"), |b| {
            b.iter(|| {
                for _ in 0..N {
                    cache.put(&format!("p{n}"), &small(n, 30)).unwrap();
                    n += 1;
                }
            })
        });
        g.bench_function(format!("{name}/put_many_100"), |b| {
            b.iter(|| {
                let values: Vec<(String, Small)> = (n..n + N)
                    .map(|i| (format!("p{i}"), small(i, 30)))
                    .collect();
                cache
                    .put_many(values.iter().map(|(k, v)| (k.as_str(), v)))
                    .unwrap();
                n += N;
            })
        });
        let keys: Vec<String> = (0..N).map(|i| format!("d{i}")).collect();
        for (i, key) in keys.iter().enumerate() {
            cache.put(key, &small(i as u64, 4_000)).unwrap();
        }
        g.bench_function(format!("{name}/get_100_data"), |b| {
            b.iter(|| {
                for key in &keys {
                    black_box(cache.get::<Small>(key).unwrap().unwrap());
                }
            })
        });
        g.bench_function(format!("{name}/get_many_100_data"), |b| {
            b.iter(|| black_box(cache.get_many::<Small>(&keys).unwrap()))
        });
        // Where objects are local files, there is no local cache.
        if backend.file_path("data").is_none() {
            // Warm after the first iteration: no request.
            let options =
                CacheOptions::default().local_cache(LocalCache::new(local.path(), 1 << 30));
            let cached = Cache::open_backend(backend.clone(), options).unwrap();
            g.bench_function(format!("{name}/get_100_data_local_cache"), |b| {
                b.iter(|| {
                    for key in &keys {
                        black_box(cached.get::<Small>(key).unwrap().unwrap());
                    }
                })
            });
        }
        caches.push((name, cache));
    }
    g.finish();
    for (name, cache) in &caches {
        arrays(c, name, cache);
    }
}

/// A 4 MiB array (4096 rows of 256 `f32`) read whole, and 64 of its rows.
fn arrays(c: &mut Criterion, name: &str, cache: &Cache) {
    let array = ndarray::Array2::from_shape_fn((4096, 256), |(i, j)| (i * 256 + j) as f32);
    cache.put_array("array", &array).unwrap();
    let mut g = c.benchmark_group("store_object_array");
    g.sample_size(10);
    g.warm_up_time(Duration::from_secs(1));
    g.measurement_time(Duration::from_secs(5));
    g.bench_function(format!("{name}/get_array_4mib"), |b| {
        b.iter(|| black_box(cache.get_array::<f32>("array").unwrap().unwrap()))
    });
    g.bench_function(format!("{name}/get_array_rows_64"), |b| {
        b.iter(|| {
            let rows = cache.get_array_rows::<f32>("array", 2048..2112).unwrap();
            black_box(rows.unwrap())
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
