//! The store's typed API on every backend: a folder, memory (objects that
//! are never appended to, as on object storage) and, with the
//! `object-store` feature, `object_store`'s in-memory store, and with the
//! `aws` feature, S3 (a moto server, `tests/common/moto.rs`).

use std::ops::Range;
use std::sync::{Arc, Mutex};
use std::thread::ThreadId;

use codec::store::backend::memory::Memory;
use codec::store::backend::{Backend, BackendError, Version};
use codec::store::{DumpContext, Info, InfoValue, LoadContext, Typed, TypedHandler};
use codec::{Cache, CacheOptions, Codec, PutOptions, StoreError};

use crate::fixtures::wrapped::{Hooks, Wrapped};
use crate::fixtures::{backends, sized_chunk, Chunk};

/// Runs `check` with a way to open handles on one fresh store, for each backend.
fn each_backend(check: impl Fn(&dyn Fn() -> Cache)) {
    each_backend_with(CacheOptions::default(), check)
}

/// [`each_backend`], the handles opened with `options`.
fn each_backend_with(options: CacheOptions, check: impl Fn(&dyn Fn() -> Cache)) {
    backends::each_backend(|store| check(&|| store.open_with(options.clone())));
}

#[test]
fn values_of_every_size_and_handler_read_back() {
    each_backend(|open| {
        let cache = open();
        let sizes = [10, 5_000, 300_000]; // inline, shared, buffer kept apart
        for (i, &len) in sizes.iter().enumerate() {
            cache
                .put(&format!("c/{i}"), &sized_chunk(i as u32, len))
                .unwrap();
        }
        let file = PutOptions::default().handler("file");
        cache
            .put_with("c/file", &sized_chunk(9, 2_000), &file)
            .unwrap();
        cache.put_bytes("raw", b"raw bytes").unwrap();

        let reader = open();
        for (i, &len) in sizes.iter().enumerate() {
            let got: Chunk = reader.get(&format!("c/{i}")).unwrap().unwrap();
            assert_eq!(got, sized_chunk(i as u32, len), "{}", cache.location());
        }
        assert_eq!(
            reader.get::<Chunk>("c/file").unwrap(),
            Some(sized_chunk(9, 2_000))
        );
        assert_eq!(reader.get_bytes("raw").unwrap().unwrap(), b"raw bytes");
        let mut keys = reader.keys().unwrap();
        keys.sort();
        assert_eq!(keys, ["c/0", "c/1", "c/2", "c/file", "raw"]);
    });
}

#[test]
fn the_latest_write_wins_and_removals_hide_a_key_everywhere() {
    each_backend(|open| {
        let (a, b) = (open(), open());
        a.put("k", &sized_chunk(1, 10)).unwrap();
        b.put("k", &sized_chunk(2, 10)).unwrap();
        a.put("gone", &sized_chunk(3, 2_000)).unwrap();
        a.refresh().unwrap();
        assert_eq!(a.get::<Chunk>("k").unwrap(), Some(sized_chunk(2, 10)));
        assert!(b.remove("gone").unwrap());
        a.refresh().unwrap();
        assert_eq!(a.get::<Chunk>("gone").unwrap(), None);
        assert!(!open().contains("gone").unwrap());
        assert_eq!(open().get::<Chunk>("k").unwrap(), Some(sized_chunk(2, 10)));
    });
}

#[test]
fn a_value_written_by_another_schema_is_checked_on_read() {
    #[derive(Codec, Debug, PartialEq)]
    #[codec(name = "test.Chunk")]
    struct Renamed {
        body: String,
    }
    each_backend(|open| {
        let cache = open();
        cache.put("k", &sized_chunk(1, 10)).unwrap();
        let err = open().get::<Renamed>("k").unwrap_err();
        assert!(format!("{err:?}").contains("body"), "{err:?}");
    });
}

#[test]
fn a_memo_computes_once_per_key() {
    each_backend(|open| {
        let cache = open();
        let calls = std::cell::Cell::new(0);
        for _ in 0..3 {
            let got = cache
                .get_or_insert_with("m", || {
                    calls.set(calls.get() + 1);
                    sized_chunk(4, 100)
                })
                .unwrap();
            assert_eq!(got, sized_chunk(4, 100));
        }
        assert_eq!(calls.get(), 1);
    });
}

#[test]
fn put_many_and_get_many_read_back_and_the_last_of_a_key_wins() {
    each_backend(|open| {
        let cache = open();
        let mut entries: Vec<(String, Chunk)> = (0..50)
            .map(|i| {
                (
                    format!("m/{i}"),
                    sized_chunk(i, [10, 5_000, 300_000][i as usize % 3]),
                )
            })
            .collect();
        entries.push(("m/7".into(), sized_chunk(700, 10))); // a key twice: the last wins
        cache
            .put_many(entries.iter().map(|(k, v)| (k.as_str(), v)))
            .unwrap();
        cache.put_many::<Chunk>([]).unwrap();

        let reader = open();
        let keys: Vec<String> = (0..51).map(|i| format!("m/{i}")).collect();
        let got = reader.get_many::<Chunk>(&keys).unwrap();
        for (i, got) in got.iter().enumerate() {
            let want = match i {
                7 => Some(sized_chunk(700, 10)),
                50 => None,
                _ => Some(entries[i].1.clone()),
            };
            assert_eq!(got, &want, "m/{i}");
        }
        assert_eq!(reader.len().unwrap(), 50);
        assert!(reader.warnings().is_empty(), "{:?}", reader.warnings());
    });
}

/// Stores chunks inline, and refuses those whose `start` is 13.
struct Refusing;

impl TypedHandler<Chunk> for Refusing {
    fn name(&self) -> &str {
        "test.refusing"
    }

    fn dump(&self, value: &Chunk, ctx: &mut DumpContext<'_>) -> Result<Info, StoreError> {
        if value.start == 13 {
            return Err(StoreError::Custom {
                message: "13 is refused".into(),
            });
        }
        let mut info = Info::new();
        info.insert("text".into(), InfoValue::Text(value.text.clone()));
        let _ = ctx;
        Ok(info)
    }

    fn load(&self, info: &Info, _ctx: &LoadContext<'_>) -> Result<Chunk, StoreError> {
        let Some(InfoValue::Text(text)) = info.get("text") else {
            panic!("no text in {info:?}");
        };
        let start = text.trim_start_matches("chunk number ").parse().unwrap();
        Ok(sized_chunk(start, 10))
    }
}

#[test]
fn a_failed_put_many_acknowledges_none() {
    each_backend(|open| {
        let cache = open();
        cache.register_default_handler::<Chunk>(Typed::new(Refusing));
        let entries: Vec<(String, Chunk)> = (10..15)
            .map(|i| (format!("k/{i}"), sized_chunk(i, 10)))
            .collect();
        let err = cache
            .put_many(entries.iter().map(|(k, v)| (k.as_str(), v)))
            .unwrap_err();
        assert!(err.to_string().contains("13 is refused"), "{err}");
        for key in ["k/10", "k/11", "k/12"] {
            assert!(
                !cache.contains(key).unwrap(),
                "{key} written by a failed batch"
            );
            assert!(
                !open().contains(key).unwrap(),
                "{key} written by a failed batch"
            );
        }
        // The thread's next puts are written as usual.
        let fine = sized_chunk(1, 10);
        cache.put_many([("a", &fine)]).unwrap();
        cache.put("b", &fine).unwrap();
        let reader = open();
        reader.register_default_handler::<Chunk>(Typed::new(Refusing));
        assert_eq!(
            reader.get_many::<Chunk>(&["a", "b"]).unwrap(),
            [Some(fine.clone()), Some(fine)]
        );
    });
}

#[test]
fn a_failed_put_many_drops_only_its_own_entries_not_another_threads() {
    each_backend(|open| {
        let cache = open();
        cache.register_default_handler::<Chunk>(Typed::new(Refusing));
        let (b1, b2, a1, a2) = (
            sized_chunk(1, 10),
            sized_chunk(13, 10),
            sized_chunk(2, 10),
            sized_chunk(3, 10),
        );
        let (paused_tx, paused) = std::sync::mpsc::channel();
        let (go, go_rx) = std::sync::mpsc::channel::<()>();
        std::thread::scope(|s| {
            let b = s.spawn(|| {
                // Its first entry is put, then its iterator waits while the
                // other thread writes, then its second entry is refused.
                let mut entries = [("b/1", &b1), ("b/2", &b2)].into_iter();
                let paused_tx = paused_tx;
                let between = std::iter::from_fn(move || {
                    let next = entries.next();
                    if next.is_some_and(|(key, _)| key == "b/2") {
                        paused_tx.send(()).unwrap();
                        go_rx.recv().unwrap();
                    }
                    next
                });
                cache.put_many(between)
            });
            paused.recv().unwrap();
            cache.put_many([("a/1", &a1)]).unwrap();
            cache.put("a/2", &a2).unwrap();
            go.send(()).unwrap();
            let err = b.join().unwrap().unwrap_err();
            assert!(err.to_string().contains("13 is refused"), "{err}");
        });
        let reader = open();
        reader.register_default_handler::<Chunk>(Typed::new(Refusing));
        for handle in [&cache, &reader] {
            let got = handle.get_many::<Chunk>(&["a/1", "a/2", "b/1"]).unwrap();
            let want = [Some(a1.clone()), Some(a2.clone()), None];
            assert_eq!(got, want, "{}", cache.location());
        }
    });
}

#[test]
fn values_with_several_buffers_kept_apart_read_back() {
    #[derive(Codec, Debug, Clone, PartialEq)]
    #[codec(name = "test.Two")]
    struct Two {
        left: codec::Bytes,
        name: String,
        right: codec::Bytes,
    }
    each_backend(|open| {
        let cache = open();
        let two = Two {
            left: codec::Bytes(vec![1; 100_000]),
            name: "two".into(),
            right: codec::Bytes((0..150_000).map(|i| i as u8).collect()),
        };
        cache.put("two", &two).unwrap();
        let reader = open();
        // Compared without `assert_eq!`, whose message would print the buffers.
        let got: Two = reader.get("two").unwrap().unwrap();
        assert!(got == two, "{}: another value read back", cache.location());
        let bytes = reader.get_bytes("two").unwrap().unwrap();
        assert!(
            bytes == codec::to_msgpack(&two).unwrap(),
            "{}",
            cache.location()
        );
    });
}

#[cfg(feature = "ndarray")]
#[test]
fn arrays_read_whole_and_by_rows() {
    use ndarray::{s, Array2};
    let table = Array2::from_shape_fn((3000, 5), |(i, j)| (i * 5 + j) as f64);
    each_backend(|open| {
        let cache = open();
        cache.put_array("array", &table).unwrap();
        cache.put("put", &table).unwrap(); // its data kept apart
        let reader = open();
        for key in ["array", "put"] {
            let whole = reader.get_array::<f64>(key).unwrap().unwrap();
            assert_eq!(whole.view(), table.view().into_dyn(), "{key}");
            let rows = reader.get_array_rows::<f64>(key, 1000..2500).unwrap();
            assert_eq!(
                rows.unwrap().view(),
                table.slice(s![1000..2500, ..]).into_dyn(),
                "{key}"
            );
            assert!(matches!(
                reader.get_array_rows::<f64>(key, 2999..3001),
                Err(StoreError::RowsOutOfRange { .. })
            ));
        }
        let owned: Array2<f64> = reader.get("array").unwrap().unwrap();
        assert_eq!(owned, table, "{}", cache.location());
    });
}

#[cfg(feature = "arrow")]
#[test]
fn arrow_tables_read_back() {
    use arrow_array::{ArrayRef, Float64Array, RecordBatch, StringArray};
    let batch = RecordBatch::try_from_iter([
        (
            "x",
            Arc::new(Float64Array::from_iter_values((0..5000).map(f64::from))) as ArrayRef,
        ),
        (
            "name",
            Arc::new(StringArray::from_iter(
                (0..5000).map(|i| (i % 3 != 0).then(|| i.to_string())),
            )) as ArrayRef,
        ),
    ])
    .unwrap();
    each_backend(|open| {
        open().put("table", &batch).unwrap();
        let got: RecordBatch = open().get("table").unwrap().unwrap();
        assert_eq!(got, batch, "{}", open().location());
    });
}

#[test]
fn a_local_cache_answers_with_the_values_read_before() {
    let local = tempfile::tempdir().unwrap();
    let options =
        CacheOptions::default().local_cache(codec::store::LocalCache::new(local.path(), 1 << 30));
    each_backend_with(options, |open| {
        let cache = open();
        let sizes = [10, 5_000, 300_000]; // inline, shared, buffer kept apart
        for (i, &len) in sizes.iter().enumerate() {
            cache
                .put(&format!("c/{i}"), &sized_chunk(i as u32, len))
                .unwrap();
        }
        let before = std::fs::read_dir(local.path()).map_or(0, |d| d.count());
        // Read twice by fresh handles: from the store, then from the local copy.
        for _ in 0..2 {
            let reader = open();
            for (i, &len) in sizes.iter().enumerate() {
                let got: Chunk = reader.get(&format!("c/{i}")).unwrap().unwrap();
                assert!(got == sized_chunk(i as u32, len), "{}", cache.location());
            }
        }
        let after = std::fs::read_dir(local.path()).map_or(0, |d| d.count());
        let kept = match cache.dir().is_some() {
            true => 0,  // a folder ignores it
            false => 2, // the shared payload and the buffer kept apart
        };
        assert_eq!(after - before, kept, "{}", cache.location());
    });
}

/// Notes the thread each data object is read on.
#[derive(Default)]
struct ReadThreads {
    readers: Mutex<Vec<ThreadId>>,
}

impl ReadThreads {
    fn note(&self, name: &str) {
        if name.starts_with("data/") {
            self.readers
                .lock()
                .unwrap()
                .push(std::thread::current().id());
        }
    }

    /// The threads of the reads since the last call, in no order.
    fn take(&self) -> Vec<ThreadId> {
        std::mem::take(&mut *self.readers.lock().unwrap())
    }
}

impl Hooks for ReadThreads {
    fn read(&self, inner: &dyn Backend, name: &str) -> Result<Option<Vec<u8>>, BackendError> {
        self.note(name);
        inner.read(name)
    }
    fn read_range(
        &self,
        inner: &dyn Backend,
        name: &str,
        range: Range<u64>,
    ) -> Result<Vec<u8>, BackendError> {
        self.note(name);
        inner.read_range(name, range)
    }
    fn read_versioned(
        &self,
        inner: &dyn Backend,
        name: &str,
    ) -> Result<Option<(Vec<u8>, Version)>, BackendError> {
        self.note(name);
        inner.read_versioned(name)
    }
}

#[test]
fn get_many_reads_on_threads_of_its_own_where_reads_are_requests() {
    let backend = Arc::new(Wrapped::new(
        Arc::new(Memory::new()),
        ReadThreads::default(),
    ));
    let cache = Cache::open_backend(backend.clone(), CacheOptions::default()).unwrap();
    let keys = ["a", "b", "c"];
    for (i, key) in (0..).zip(keys) {
        cache.put(key, &sized_chunk(i, 5_000)).unwrap(); // a data object each
    }
    assert!(cache.get_many::<Chunk>(&[] as &[&str]).unwrap().is_empty());
    let caller = std::thread::current().id();
    for n in 1..=keys.len() {
        backend.take();
        let got = cache.get_many::<Chunk>(&keys[..n]).unwrap();
        let want: Vec<_> = (0..n as u32).map(|i| Some(sized_chunk(i, 5_000))).collect();
        assert_eq!(got, want);
        let readers = backend.take();
        assert_eq!(readers.len(), n, "{readers:?}");
        if n > 1 {
            assert!(!readers.contains(&caller), "{n} keys: {readers:?}");
        }
    }
}
