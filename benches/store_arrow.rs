//! Arrow tables in the store: put and get of a 1M-row, 4-column
//! `RecordBatch`, against arrow's own IPC `FileWriter` writing the same
//! batch to a file and its `FileReader` reading it back (the floor: the
//! same bytes to the same disk, without an index). Durability off on both
//! sides. See PERFORMANCE.md.

use std::fs::File;
use std::hint::black_box;
use std::io::{BufReader, BufWriter};
use std::sync::Arc;
use std::time::Duration;

use arrow_array::{ArrayRef, Float64Array, Int32Array, Int64Array, RecordBatch, StringArray};
use arrow_ipc::reader::FileReader;
use arrow_ipc::writer::FileWriter;
use codec::Cache;
use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};

const ROWS: usize = 1_000_000;

/// Ids, prices, a short label and a category: about 29 MB of columns.
fn table() -> RecordBatch {
    let ids = Int64Array::from_iter_values(0..ROWS as i64);
    let prices = Float64Array::from_iter_values((0..ROWS).map(|i| i as f64 * 0.25));
    let labels =
        StringArray::from_iter_values((0..ROWS).map(|i| format!("item-{:06}", i % 100_000)));
    let categories =
        Int32Array::from_iter((0..ROWS).map(|i| (i % 13 != 0).then_some((i % 7) as i32)));
    RecordBatch::try_from_iter([
        ("id", Arc::new(ids) as ArrayRef),
        ("price", Arc::new(prices)),
        ("label", Arc::new(labels)),
        ("category", Arc::new(categories)),
    ])
    .unwrap()
}

fn bench(c: &mut Criterion) {
    let batch = table();
    let dir = tempfile::tempdir().unwrap();
    let floor_path = dir.path().join("floor.arrow");
    let write_floor = |path: &std::path::Path| {
        let file = BufWriter::new(File::create(path).unwrap());
        let mut writer = FileWriter::try_new(file, &batch.schema()).unwrap();
        writer.write(&batch).unwrap();
        writer.finish().unwrap();
    };
    write_floor(&floor_path);
    let size = std::fs::metadata(&floor_path).unwrap().len();

    let mut g = c.benchmark_group("store_arrow");
    g.sample_size(10);
    g.measurement_time(Duration::from_secs(10));
    g.throughput(Throughput::Bytes(size));

    // Each put in a new folder, so that the data file does not grow
    // without bound; creating and deleting it are not measured.
    g.bench_function("put_codec", |b| {
        b.iter_batched(
            || {
                let folder = tempfile::tempdir_in(dir.path()).unwrap();
                let cache = Cache::open(folder.path()).unwrap();
                (folder, cache)
            },
            |(folder, cache)| {
                cache.put("table", &batch).unwrap();
                (folder, cache)
            },
            BatchSize::PerIteration,
        )
    });
    g.bench_function("put_arrow_file_writer", |b| {
        b.iter(|| write_floor(&floor_path))
    });

    let folder = dir.path().join("gets");
    Cache::open(&folder).unwrap().put("table", &batch).unwrap();
    // A new handle per get: its first load maps the data file.
    g.bench_function("get_codec_new_handle", |b| {
        b.iter_batched(
            || Cache::open(&folder).unwrap(),
            |cache| {
                black_box(
                    cache
                        .get::<RecordBatch>("table")
                        .unwrap()
                        .unwrap()
                        .num_rows(),
                )
            },
            BatchSize::PerIteration,
        )
    });
    let cache = Cache::open(&folder).unwrap();
    g.bench_function("get_codec", |b| {
        b.iter(|| {
            black_box(
                cache
                    .get::<RecordBatch>("table")
                    .unwrap()
                    .unwrap()
                    .num_rows(),
            )
        })
    });
    g.bench_function("get_arrow_file_reader", |b| {
        b.iter(|| {
            let file = BufReader::new(File::open(&floor_path).unwrap());
            let mut reader = FileReader::try_new(file, None).unwrap();
            black_box(reader.next().unwrap().unwrap().num_rows())
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
