//! Checkpoints where logs are one object per append (object storage, and
//! the memory backend that behaves like it): what a fresh open costs in
//! requests, damaged checkpoints put aside and rebuilt, handles racing to
//! commit one.

#[path = "common/counting.rs"]
mod counting;

use std::sync::Arc;

use codec::store::backend::memory::Memory;
use codec::store::backend::object::Objects;
use codec::store::backend::Backend;
use codec::{Cache, CacheOptions, Codec};
use counting::{counts, Counting};

#[derive(Codec, Debug, Clone, PartialEq)]
#[codec(name = "test.Chunk")]
struct Chunk {
    text: String,
    start: u32,
}

fn chunk(i: u32) -> Chunk {
    Chunk {
        text: format!("chunk number {i}"),
        start: i,
    }
}

/// Checkpoints only when asked.
fn manual() -> CacheOptions {
    CacheOptions {
        checkpoint_bytes: 0,
        ..CacheOptions::default()
    }
}

fn open_counting(store: &Arc<Counting>, options: CacheOptions) -> Cache {
    Cache::open_store(store.clone(), "caches/one", options).unwrap()
}

/// Both backends without appends: memory, and object_store's in-memory
/// store through `Objects`.
fn backends() -> Vec<Arc<dyn Backend>> {
    let store = Arc::new(object_store::memory::InMemory::new());
    vec![
        Arc::new(Memory::new()),
        Arc::new(Objects::new(store, "p", "memory:///p").unwrap()),
    ]
}

fn open(backend: &Arc<dyn Backend>, options: CacheOptions) -> Cache {
    Cache::open_backend(backend.clone(), options).unwrap()
}

fn damage_warnings(cache: &Cache) -> Vec<String> {
    let warnings = cache.warnings();
    warnings
        .into_iter()
        .filter(|w| w.contains("damaged"))
        .collect()
}

#[test]
fn a_fresh_open_of_a_checkpointed_store_costs_four_requests() {
    let store = Counting::new();
    let writer = open_counting(&store, manual());
    for i in 0..1000 {
        writer.put(&format!("c/{i}"), &chunk(i)).unwrap();
    }
    for i in (0..1000).step_by(10) {
        writer.remove(&format!("c/{i}")).unwrap();
    }
    store.take();
    let reader = open_counting(&store, manual());
    let without = store.take();
    assert!(without["GET"] > 1000, "every segment read: {without:?}");
    drop(reader);

    writer.checkpoint().unwrap();
    store.take();
    let reader = open_counting(&store, manual());
    assert_eq!(
        store.take(),
        counts(&[("GET", 3), ("LIST", 1)]),
        "the layout version, one listing, the manifest and its one table"
    );
    for i in 0..1000 {
        let expected = (i % 10 != 0).then(|| chunk(i));
        assert_eq!(reader.get(&format!("c/{i}")).unwrap(), expected, "c/{i}");
    }
    assert_eq!(
        store.take(),
        counts(&[]),
        "gets of inline entries and of removed keys read nothing"
    );
    assert!(reader.warnings().is_empty(), "{:?}", reader.warnings());

    // Segments written after the checkpoint are read, one request each.
    for i in 1000..1005 {
        writer.put(&format!("c/{i}"), &chunk(i)).unwrap();
    }
    store.take();
    let reader = open_counting(&store, manual());
    assert_eq!(store.take(), counts(&[("GET", 3 + 5), ("LIST", 1)]));
    assert_eq!(reader.keys().unwrap().len(), 900 + 5);
}

#[test]
fn checkpoints_build_by_themselves_past_the_threshold() {
    let store = Counting::new();
    let options = CacheOptions {
        checkpoint_bytes: 4000,
        ..CacheOptions::default()
    };
    let writer = open_counting(&store, options.clone());
    for i in 0..400 {
        writer.put(&format!("c/{i}"), &chunk(i)).unwrap();
    }
    drop(writer); // waits for a build in progress
    store.take();
    let reader = open_counting(&store, options);
    let opened = store.take();
    // The segments after the last build (the threshold's worth, ~25, and
    // what was written during that build) besides the manifest and its
    // few tables: far from one per segment.
    assert!(opened["GET"] < 150, "{opened:?}");
    for i in 0..400 {
        assert_eq!(reader.get(&format!("c/{i}")).unwrap(), Some(chunk(i)));
    }
    assert!(reader.warnings().is_empty(), "{:?}", reader.warnings());
}

/// Flips a byte of object `name`, `at` bytes from its start (from its end
/// if negative).
fn flip(backend: &dyn Backend, name: &str, at: i64) {
    let mut bytes = backend.read(name).unwrap().unwrap();
    let i = if at < 0 {
        bytes.len() - (-at) as usize
    } else {
        at as usize
    };
    bytes[i] ^= 0x20;
    backend.write(name, &bytes, false).unwrap();
}

fn tables(backend: &dyn Backend) -> Vec<String> {
    backend
        .list("index/")
        .unwrap()
        .into_iter()
        .map(|l| l.name)
        .collect()
}

#[test]
fn a_damaged_checkpoint_is_never_trusted_and_is_rebuilt_with_a_warning() {
    for backend in backends() {
        // The manifest's text, a table's header, an entry, a line it holds.
        let damages: [(bool, i64); 4] = [(false, 12), (true, 10), (true, 70), (true, -30)];
        for (in_table, at) in damages {
            let writer = open(&backend, manual());
            for i in 0..300 {
                writer.put(&format!("c/{i}"), &chunk(i)).unwrap();
            }
            writer.checkpoint().unwrap();
            let name = match in_table {
                true => tables(&*backend).pop().unwrap(),
                false => "checkpoint.json".to_owned(),
            };
            flip(&*backend, &name, at);

            let reader = open(&backend, manual());
            let mut keys = 0;
            for i in 0..300 {
                keys += usize::from(reader.get::<Chunk>(&format!("c/{i}")).unwrap().is_some());
            }
            assert_eq!(keys, 300, "{name} at {at}");
            let warned = damage_warnings(&reader);
            assert_eq!(warned.len(), 1, "{name} at {at}: {:?}", reader.warnings());
            assert!(warned[0].contains(&backend.location()), "{warned:?}");

            // The next checkpoint rebuilds it from the logs.
            reader.checkpoint().unwrap();
            let after = open(&backend, manual());
            assert_eq!(after.keys().unwrap().len(), 300);
            assert_eq!(after.verify_index().unwrap(), 300);
            assert!(after.warnings().is_empty(), "{:?}", after.warnings());
            assert_eq!(tables(&*backend).len(), 1, "the damaged table deleted");
        }
    }
}

#[test]
fn two_handles_checkpointing_at_once_lose_nothing() {
    for backend in backends() {
        let handles = [open(&backend, manual()), open(&backend, manual())];
        std::thread::scope(|s| {
            for (h, cache) in handles.iter().enumerate() {
                s.spawn(move || {
                    for i in 0..200u32 {
                        cache.put(&format!("{h}/{i}"), &chunk(i)).unwrap();
                        if i % 3 == 0 {
                            cache.remove(&format!("{h}/{}", i / 2)).unwrap();
                        }
                        if i % 10 == 9 {
                            cache.checkpoint().unwrap();
                        }
                    }
                });
            }
        });
        let reader = open(&backend, manual());
        for h in 0..2 {
            let mut removed = std::collections::HashSet::new();
            for i in 0..200u32 {
                removed.remove(&i);
                if i % 3 == 0 {
                    removed.insert(i / 2);
                }
            }
            for i in 0..200u32 {
                let expected = (!removed.contains(&i)).then(|| chunk(i));
                assert_eq!(reader.get(&format!("{h}/{i}")).unwrap(), expected);
            }
        }
        assert!(reader.warnings().is_empty(), "{:?}", reader.warnings());
        reader.verify_index().unwrap();
        // Of the tables the losers wrote and the ones merged away, none
        // is left: only those the manifest names.
        let left = tables(&*backend).len();
        let named = manifest_tables(&*backend);
        assert_eq!(left, named, "{:?}", tables(&*backend));
    }
}

/// How many tables the manifest names.
fn manifest_tables(backend: &dyn Backend) -> usize {
    let bytes = backend.read("checkpoint.json").unwrap().unwrap();
    let text = String::from_utf8(bytes).unwrap();
    let json = text.lines().next().unwrap();
    let manifest: serde_json::Value = serde_json::from_str(json).unwrap();
    manifest["tables"].as_array().unwrap().len()
}

#[test]
fn a_manifest_names_each_writer_once_however_many_segments() {
    for backend in backends() {
        let cache = open(&backend, manual());
        for i in 0..50 {
            cache.put(&format!("c/{i}"), &chunk(i)).unwrap();
        }
        cache.checkpoint().unwrap();
        let bytes = backend.read("checkpoint.json").unwrap().unwrap();
        let text = String::from_utf8(bytes).unwrap();
        let manifest: serde_json::Value =
            serde_json::from_str(text.lines().next().unwrap()).unwrap();
        let writers = manifest["writers"].as_array().unwrap();
        assert_eq!(writers.len(), 1, "{writers:?}");
        assert_eq!(writers[0]["to"], 50, "segments covered");
    }
}
