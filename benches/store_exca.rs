//! One round of the store's comparison with exca's CacheDict, in the shapes
//! `benches/store_exca.py` measures exca in: that script builds this binary,
//! alternates its rounds with exca's and prints the ratios. Run on its own,
//! `cargo bench -p codec-benches --bench store_exca --features ndarray -- <dir>` prints one
//! round's rates as JSON (operations per second; seconds for the first load).
//!
//! Every round works in a fresh folder under `<dir>`, except the 1 GiB array,
//! written once to `<dir>/big` and loaded by a fresh handle in each round.

use std::hint::black_box;
use std::path::Path;
use std::time::Instant;

use codec::{Cache, Codec};

/// As exca's side writes it: an id, ~35 characters of text, 12 numbers.
#[derive(Codec)]
struct Small {
    id: u64,
    text: String,
    values: Vec<u32>,
}

const SMALL: u64 = 1000;
const ARRAYS: usize = 200;
/// 1 MiB of float64.
const ARRAY_LEN: usize = 131_072;

fn rate(count: u64, start: Instant) -> f64 {
    count as f64 / start.elapsed().as_secs_f64()
}

fn small_values(dir: &Path) -> (f64, f64) {
    let start = Instant::now();
    let cache = Cache::open(dir).unwrap();
    for i in 0..SMALL {
        let value = Small {
            id: i,
            text: format!("value number {i} of the benchmark"),
            values: (0..12).collect(),
        };
        cache.put(&format!("k{i}"), &value).unwrap();
    }
    let puts = rate(SMALL, start);
    drop(cache);
    let start = Instant::now();
    let cache = Cache::open(dir).unwrap();
    for i in 0..SMALL {
        black_box(cache.get::<Small>(&format!("k{i}")).unwrap().unwrap());
    }
    (puts, rate(SMALL, start))
}

fn arrays(dir: &Path) -> (f64, f64) {
    let array = ndarray::Array1::<f64>::from_shape_fn(ARRAY_LEN, |i| i as f64);
    let start = Instant::now();
    let cache = Cache::open(dir).unwrap();
    for i in 0..ARRAYS {
        cache.put_array(&format!("a{i}"), &array).unwrap();
    }
    let puts = rate(ARRAYS as u64, start);
    drop(cache);
    // exca's shape: a fresh handle reads each array's last element.
    let start = Instant::now();
    let cache = Cache::open(dir).unwrap();
    for i in 0..ARRAYS {
        let a = cache.get_array::<f64>(&format!("a{i}")).unwrap().unwrap();
        assert_eq!(a.view()[ARRAY_LEN - 1], (ARRAY_LEN - 1) as f64);
    }
    (puts, rate(ARRAYS as u64, start))
}

fn first_load(dir: &Path) -> f64 {
    if !dir.exists() {
        let cache = Cache::open(dir).unwrap();
        cache
            .put_array("big", &ndarray::Array1::<f64>::zeros(1 << 27))
            .unwrap();
    }
    let start = Instant::now();
    let cache = Cache::open(dir).unwrap();
    let a = cache.get_array::<f64>("big").unwrap().unwrap();
    black_box(a.view()[12_345]);
    start.elapsed().as_secs_f64()
}

fn main() {
    // `cargo bench` passes `--bench`; the folder is the one other argument.
    let root = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with("--"))
        .expect("usage: store_exca <dir>");
    let root = Path::new(&root);
    let round = tempfile::tempdir_in(root).unwrap();
    let (small_put, fresh_get) = small_values(&round.path().join("small"));
    let (array_put, array_get_fresh) = arrays(&round.path().join("arrays"));
    let first_load_1gib = first_load(&root.join("big"));
    println!(
        "{}",
        serde_json::json!({
            "small_put": small_put,
            "fresh_get": fresh_get,
            "array_put": array_put,
            "array_get_fresh": array_get_fresh,
            "first_load_1gib": first_load_1gib,
        })
    );
}
