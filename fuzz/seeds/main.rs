//! Writes the seed corpora of the store's fuzz targets from stores the
//! store writes: `cargo run --bin seeds -- corpus` (from `fuzz/`).

#[path = "../fuzz_targets/corpus.rs"]
mod corpus;
#[path = "../fuzz_targets/store.rs"]
mod store;

use std::path::Path;
use std::sync::Arc;

use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray};
use codec::store::backend::folder::Folder;
use codec::store::backend::memory::Memory;
use codec::store::backend::Backend;
use codec::{Cache, CacheOptions, PutOptions};
use corpus::{Event, Item};

fn batch(n: i64) -> RecordBatch {
    RecordBatch::try_from_iter([
        ("id", Arc::new(Int64Array::from(vec![n, n + 1])) as ArrayRef),
        (
            "name",
            Arc::new(StringArray::from(vec![Some("a"), None])) as ArrayRef,
        ),
    ])
    .unwrap()
}

fn item(id: u32, blob: usize) -> Item {
    Item {
        id,
        name: format!("item {id}"),
        tags: vec!["x".into(), "y\"z".into()],
        score: Some(0.5),
        blob: vec![7; blob],
    }
}

/// A write to a store.
type Put = Box<dyn Fn(&Cache)>;

/// Puts entries of every handler and shape into `cache`, with a
/// checkpoint among them (`checkpoint` of them before it).
fn fill(cache: &Cache, checkpoint: usize) {
    let puts: Vec<Put> = vec![
        Box::new(|c| c.put("a", &1u32).unwrap()),
        Box::new(|c| c.put("text", &"h\u{e9}llo \"quoted\"".to_owned()).unwrap()),
        Box::new(|c| c.put("item", &item(1, 10)).unwrap()),
        Box::new(|c| c.put("event", &Event::Click { x: 3, y: -4 }).unwrap()),
        Box::new(|c| c.put("apart", &item(2, 200)).unwrap()),
        Box::new(|c| c.put("shared", &vec![3u8; 150]).unwrap()),
        Box::new(|c| {
            let file = PutOptions::default().handler("file");
            c.put_with("file", &item(3, 5), &file).unwrap()
        }),
        Box::new(|c| c.put_bytes("raw", b"raw bytes").unwrap()),
        Box::new(|c| c.put("batch", &batch(1)).unwrap()),
        Box::new(|c| c.put("batches", &vec![batch(2), batch(4)]).unwrap()),
        Box::new(|c| c.put("a", &2u32).unwrap()),
        Box::new(|c| {
            c.remove("text").unwrap();
        }),
    ];
    for (i, put) in puts.iter().enumerate() {
        if i == checkpoint {
            cache.admin().checkpoint().unwrap();
        }
        put(cache);
    }
}

fn options() -> CacheOptions {
    store::options().inline_limit(100).apart_min(100)
}

/// Every object of a store, by name.
fn objects(backend: &dyn Backend) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for prefix in ["", "data/", "index/", "schemas/"] {
        for listed in backend.list(prefix).unwrap() {
            if let Some(bytes) = backend.read(&listed.name).unwrap() {
                out.push((listed.name, bytes));
            }
        }
    }
    out
}

fn write(dir: &Path, target: &str, name: &str, bytes: &[u8]) {
    let dir = dir.join(target);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(name), bytes).unwrap();
}

fn with_flags(flags: u8, bytes: &[u8]) -> Vec<u8> {
    let mut out = vec![flags];
    out.extend_from_slice(bytes);
    out
}

fn main() {
    let out = std::env::args().nth(1).expect("the corpus folder");
    let out = Path::new(&out);
    for checkpoint in [3, 9] {
        // In memory: tables hold their lines, logs are segments.
        let memory = Memory::new();
        let backend: Arc<dyn Backend> = Arc::new(memory);
        let cache = Cache::open_backend(backend.clone(), options()).unwrap();
        fill(&cache, checkpoint);
        let files = objects(&*backend);
        let image = store::image(files.iter().map(|(n, b)| (n.as_str(), &b[..])));
        write(
            out,
            "checkpoint",
            &format!("memory-{checkpoint}"),
            &with_flags(0, &image),
        );
        let log: Vec<u8> = files
            .iter()
            .filter(|(n, _)| n.ends_with("-info.jsonl"))
            .flat_map(|(_, b)| b.clone())
            .collect();
        write(
            out,
            "index_lines",
            &format!("memory-{checkpoint}"),
            &with_flags(0, &log),
        );

        // In a folder: tables point into the mapped logs.
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::open_with(dir.path(), options()).unwrap();
        fill(&cache, checkpoint);
        drop(cache);
        let files = objects(&Folder::new(dir.path()));
        let image = store::image(files.iter().map(|(n, b)| (n.as_str(), &b[..])));
        write(
            out,
            "checkpoint",
            &format!("folder-{checkpoint}"),
            &with_flags(8, &image),
        );
        for (name, bytes) in &files {
            if name.ends_with("-info.jsonl") {
                write(
                    out,
                    "index_lines",
                    &format!("folder-{checkpoint}"),
                    &with_flags(2, bytes),
                );
            }
            if name == "codec-store.json" {
                write(out, "layout", "written", bytes);
            }
        }
    }
    write(out, "layout", "newer", br#"{"format":2}"#);

    let object = b"the bytes of a data object, some of them";
    for (flags, name) in [(0u8, "range"), (1, "whole")] {
        let mut input = vec![flags];
        input.extend_from_slice(&(object.len() as u16).to_le_bytes());
        input.extend_from_slice(object);
        input.extend_from_slice(&codec_store::__fuzz::sealed_local_file(object));
        write(out, "local_cache", name, &input);
    }

    let ipc = |batches: &[RecordBatch]| {
        codec::__store::arrow::ipc_file(&batches[0].schema(), batches).unwrap()
    };
    write(out, "arrow_ipc", "one", &ipc(&[batch(1)]));
    write(out, "arrow_ipc", "two", &ipc(&[batch(1), batch(5)]));

    write(
        out,
        "envelope",
        "item",
        &codec::to_stored(&item(1, 3)).unwrap(),
    );
    write(
        out,
        "envelope",
        "event",
        &codec::to_stored(&Event::Key("k".into())).unwrap(),
    );
    write(
        out,
        "envelope",
        "strings",
        &codec::to_stored(&vec!["a".to_owned()]).unwrap(),
    );
}
