//! The store's typed API on every backend: a folder, memory (objects that
//! are never appended to, as on object storage) and, with the
//! `object-store` feature, `object_store`'s in-memory store, and with the
//! `aws` feature, S3 (a moto server, `common/moto.rs`).

#[cfg(feature = "aws")]
#[path = "common/moto.rs"]
mod moto;
#[cfg(feature = "aws")]
#[path = "common/venv.rs"]
mod venv;

use std::sync::Arc;

use codec::store::backend::folder::Folder;
use codec::store::backend::memory::Memory;
use codec::store::backend::Backend;
use codec::store::PutOptions;
use codec::{Cache, CacheOptions, Codec};

#[derive(Codec, Debug, Clone, PartialEq)]
#[codec(name = "test.Chunk")]
struct Chunk {
    text: String,
    start: u32,
    vector: codec::Bytes,
}

fn chunk(i: u32, len: usize) -> Chunk {
    Chunk {
        text: format!("chunk number {i}"),
        start: i,
        vector: codec::Bytes((0..len).map(|b| (b as u32 * 7 + i) as u8).collect()),
    }
}

/// Runs `check` with a way to open handles on one fresh store, for each backend.
fn each_backend(check: impl Fn(&dyn Fn() -> Cache)) {
    let dir = tempfile::tempdir().unwrap();
    let folder: Arc<dyn Backend> = Arc::new(Folder::new(dir.path()));
    let memory: Arc<dyn Backend> = Arc::new(Memory::new());
    #[allow(unused_mut)]
    let mut backends = vec![folder, memory];
    #[cfg(feature = "object-store")]
    {
        use codec::store::backend::object::Objects;
        let store = Arc::new(object_store::memory::InMemory::new());
        backends.push(Arc::new(Objects::new(store, "p", "memory:///p").unwrap()));
    }
    #[cfg(feature = "aws")]
    {
        use codec::store::backend::object::Objects;
        let moto = moto::moto();
        let bucket = moto.bucket("backends");
        let url = format!("s3://{bucket}/p");
        backends.push(Arc::new(
            Objects::new(moto.store(&bucket), "p", url).unwrap(),
        ));
    }
    for backend in backends {
        let open = || Cache::open_backend(backend.clone(), CacheOptions::default()).unwrap();
        check(&open);
    }
}

#[test]
fn values_of_every_size_and_handler_read_back() {
    each_backend(|open| {
        let cache = open();
        let sizes = [10, 5_000, 300_000]; // inline, shared, buffer kept apart
        for (i, &len) in sizes.iter().enumerate() {
            cache.put(&format!("c/{i}"), &chunk(i as u32, len)).unwrap();
        }
        let file = PutOptions {
            handler: Some("file".into()),
            ..PutOptions::default()
        };
        cache.put_with("c/file", &chunk(9, 2_000), &file).unwrap();
        cache.put_bytes("raw", b"raw bytes").unwrap();

        let reader = open();
        for (i, &len) in sizes.iter().enumerate() {
            let got: Chunk = reader.get(&format!("c/{i}")).unwrap().unwrap();
            assert_eq!(got, chunk(i as u32, len), "{}", cache.dir().display());
        }
        assert_eq!(
            reader.get::<Chunk>("c/file").unwrap(),
            Some(chunk(9, 2_000))
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
        a.put("k", &chunk(1, 10)).unwrap();
        b.put("k", &chunk(2, 10)).unwrap();
        a.put("gone", &chunk(3, 2_000)).unwrap();
        a.refresh().unwrap();
        assert_eq!(a.get::<Chunk>("k").unwrap(), Some(chunk(2, 10)));
        assert!(b.remove("gone").unwrap());
        a.refresh().unwrap();
        assert_eq!(a.get::<Chunk>("gone").unwrap(), None);
        assert!(!open().contains("gone").unwrap());
        assert_eq!(open().get::<Chunk>("k").unwrap(), Some(chunk(2, 10)));
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
        cache.put("k", &chunk(1, 10)).unwrap();
        let err = open().get::<Renamed>("k").unwrap_err();
        assert!(err.to_string().contains("body"), "{err}");
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
                    chunk(4, 100)
                })
                .unwrap();
            assert_eq!(got, chunk(4, 100));
        }
        assert_eq!(calls.get(), 1);
    });
}
