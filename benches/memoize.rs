//! `#[codec::memoize]` against the memo call it expands to: the cost of a
//! hit (hashing the arguments, building the key, one lookup).

use std::hint::black_box;
use std::sync::LazyLock;

use codec::{Cache, Codec, StoreError};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

#[derive(Codec)]
struct Model {
    name: String,
    dim: usize,
}

static DIR: LazyLock<tempfile::TempDir> = LazyLock::new(|| tempfile::tempdir().unwrap());
static CACHE: LazyLock<Cache> = LazyLock::new(|| Cache::open(DIR.path().join("memoize")).unwrap());

#[codec::memoize(cache = CACHE, version = 1)]
fn embed(model: &Model, text: &str) -> Result<Vec<f32>, StoreError> {
    Ok(vec![text.len() as f32; model.dim])
}

fn text(i: usize) -> String {
    format!("chunk {i}: a hundred characters of text, about the size of a sentence to embed and keep.....")
}

fn bench(c: &mut Criterion) {
    let model = Model {
        name: "mini-lm".into(),
        dim: 16,
    };
    let mut g = c.benchmark_group("memoize");
    g.throughput(Throughput::Elements(1000));
    let texts: Vec<String> = (0..1000).map(text).collect();
    for t in &texts {
        embed(&model, t).unwrap();
    }
    g.bench_function("hit_1000", |b| {
        b.iter(|| {
            for t in &texts {
                black_box(embed(&model, t).unwrap());
            }
        })
    });
    // The same hits by hand: the key hashed from the arguments, then
    // `get_or_try_insert_with`.
    g.bench_function("hit_1000_by_hand", |b| {
        b.iter(|| {
            for t in &texts {
                let hash = codec::ContentHash::new()
                    .part(&model)
                    .part(t.as_str())
                    .finish()
                    .unwrap();
                let key = format!("memoize::embed/v1/{hash}");
                let v: Vec<f32> = CACHE
                    .get_or_try_insert_with(&key, || Ok::<_, StoreError>(vec![0.0]))
                    .unwrap();
                black_box(v);
            }
        })
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10);
    targets = bench
}
criterion_main!(benches);
