//! Gets in place against gets that copy: the same entries read with
//! `Cache::get` into an owned record and with `Cache::get_ref` into a
//! record that borrows its strings and bytes, from a warm handle on a
//! folder. A small record is kept in its index line; a 4 KiB one in the
//! shared data file, which `get_ref` views in its memory map.

use std::hint::black_box;
use std::time::Duration;

use codec::{Cache, Codec};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

#[derive(Codec)]
#[codec(name = "bench.Event")]
struct Event {
    service: String,
    message: String,
    attempt: u32,
    payload: Vec<u8>,
}

#[derive(Codec)]
#[codec(name = "bench.Event")]
struct EventRef<'a> {
    service: &'a str,
    message: &'a str,
    attempt: u32,
    payload: &'a [u8],
}

const KEYS: usize = 1000;

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    for (size, payload) in [("small", 48), ("4kib", 4096)] {
        let keys: Vec<String> = (0..KEYS).map(|i| format!("{size}/{i}")).collect();
        for (i, key) in keys.iter().enumerate() {
            let event = Event {
                service: "api-gateway".into(),
                message: format!("request {i} served in 12 ms"),
                attempt: i as u32 % 3,
                payload: vec![i as u8; payload],
            };
            cache.put(key, &event).unwrap();
        }
        let mut g = c.benchmark_group(format!("store_get_in_place/{size}"));
        g.throughput(Throughput::Elements(KEYS as u64));
        g.bench_function("get", |b| {
            b.iter(|| {
                for key in &keys {
                    let event = cache.get::<Event>(key).unwrap().unwrap();
                    black_box((event.message.len(), event.payload.len()));
                }
            })
        });
        g.bench_function("get_ref", |b| {
            b.iter(|| {
                for key in &keys {
                    let entry = cache.get_ref::<EventRef<'_>>(key).unwrap().unwrap();
                    let event = entry.value().unwrap();
                    black_box((event.message.len(), event.payload.len()));
                }
            })
        });
        g.finish();
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30).measurement_time(Duration::from_secs(3)).warm_up_time(Duration::from_secs(1));
    targets = bench
}
criterion_main!(benches);
