//! Threads sharing one handle, each putting values through a handler
//! that works for a while (a checksum over the payload, as a compressing
//! or encoding handler would) before it appends the payload to the
//! shared data file. The handlers of different threads run at once: 4
//! threads against 1 is how much the dumps overlap.

use std::hint::black_box;
use std::sync::Arc;
use std::time::Duration;

use codec::store::{DumpContext, Handler, Info, InfoValue, LoadContext};
use codec::{Bytes, Cache, PutOptions, StoreError};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

/// Puts per measured round, split among the threads.
const PUTS: usize = 64;

/// Hashes its payload a few times over, then appends it to the shared
/// data file.
struct Costly;

impl Handler for Costly {
    fn name(&self) -> &str {
        "costly"
    }

    fn dump(&self, payload: &[u8], ctx: &mut DumpContext<'_>) -> Result<Info, StoreError> {
        let mut hash = 0u64;
        for round in 0..16u64 {
            hash = payload.iter().fold(hash ^ round, |h, &b| {
                (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
            });
        }
        let (file, offset) = ctx.append_shared(payload)?;
        Ok(Info::from([
            ("file".to_owned(), InfoValue::from(file)),
            ("offset".to_owned(), InfoValue::Int(offset as i64)),
            ("len".to_owned(), InfoValue::Int(payload.len() as i64)),
            ("hash".to_owned(), InfoValue::Text(format!("{hash:x}"))),
        ]))
    }

    fn load(&self, info: &Info, ctx: &LoadContext<'_>) -> Result<Vec<u8>, StoreError> {
        let (Some(InfoValue::Text(file)), Some(InfoValue::Int(offset)), Some(InfoValue::Int(len))) =
            (info.get("file"), info.get("offset"), info.get("len"))
        else {
            return Err(ctx.corrupt("no range"));
        };
        ctx.read_range(file, *offset as u64, *len as u64)
    }
}

fn bench(c: &mut Criterion) {
    let costly = PutOptions::default().handler("costly");
    let payload = Bytes(vec![7u8; 64 * 1024]);
    let mut g = c.benchmark_group("store_handler_threads");
    g.throughput(Throughput::Elements(PUTS as u64));
    let mut round = 0usize;
    for threads in [1usize, 4] {
        // A store of its own for each: the same size at the same time.
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::open(dir.path()).unwrap();
        cache.register_handler(Arc::new(Costly));
        g.bench_function(format!("{threads}_threads"), |b| {
            b.iter(|| {
                round += 1;
                std::thread::scope(|s| {
                    for t in 0..threads {
                        let (cache, costly, payload) = (&cache, &costly, &payload);
                        s.spawn(move || {
                            for i in 0..PUTS / threads {
                                let key = format!("r{round}/t{t}/{i}");
                                cache.put_with(&key, payload, costly).unwrap();
                            }
                        });
                    }
                });
            })
        });
        black_box(cache.len().unwrap());
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(Duration::from_secs(4)).warm_up_time(Duration::from_secs(1));
    targets = bench
}
criterion_main!(benches);
