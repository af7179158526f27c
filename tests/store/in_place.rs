//! Reads in place (`Cache::get_ref`): a value that borrows points into the
//! data file's memory map or into the guard's one buffer, never into a
//! copy; its schema is checked as `get` checks it; guards held together
//! keep their own bytes.

use std::borrow::Cow;

use codec::store::Mode;
use codec::{Cache, Codec, PutOptions, StoreError, Value};

use crate::fixtures::backends::{each_backend, Store};
use crate::fixtures::{chunk, forge_index_line, sized_chunk, truncate_data_file, Chunk};

/// [`Chunk`] read in place: its text and buffer borrowed.
#[derive(Codec, Debug)]
#[codec(name = "test.Chunk")]
struct ChunkRef<'a> {
    text: &'a str,
    start: u32,
    #[codec(borrow)]
    vector: Cow<'a, [u8]>,
}

impl ChunkRef<'_> {
    fn is(&self, chunk: &Chunk) -> bool {
        self.text == chunk.text && self.start == chunk.start && *self.vector == *chunk.vector
    }
}

/// `inner` lies within `outer`.
fn within(inner: &[u8], outer: &[u8]) -> bool {
    let outer = outer.as_ptr_range();
    let inner = inner.as_ptr_range();
    outer.start <= inner.start && inner.end <= outer.end
}

#[test]
fn a_value_in_a_data_file_is_read_from_its_map() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    let stored = sized_chunk(1, 5000);
    cache.put("c", &stored).unwrap();
    let entry = cache.get_ref::<ChunkRef<'_>>("c").unwrap().unwrap();
    assert!(entry.is_mapped(), "{entry:?}");
    let len = entry.bytes().len();
    assert_eq!(
        format!("{entry:?}"),
        format!("Ref {{ format: MsgPack, len: {len}, mapped: true }}")
    );
    let chunk = entry.value().unwrap();
    assert!(chunk.is(&stored));
    assert!(matches!(chunk.vector, Cow::Borrowed(_)));
    assert!(within(chunk.text.as_bytes(), entry.bytes()));
    assert!(within(&chunk.vector, entry.bytes()));
    #[cfg(target_os = "linux")]
    crate::fixtures::assert_in_a_map_of(chunk.text.as_ptr(), dir.path());
}

#[test]
fn a_value_kept_in_its_line_borrows_from_the_guard() {
    let (_dir, cache) = open();
    cache.put("c", &chunk(4)).unwrap();
    let entry = cache.get_ref::<ChunkRef<'_>>("c").unwrap().unwrap();
    assert!(!entry.is_mapped());
    let value = entry.value().unwrap();
    assert!(value.is(&chunk(4)));
    assert!(within(value.text.as_bytes(), entry.bytes()));
    assert_eq!(entry.bytes(), codec::to_msgpack(&chunk(4)).unwrap());
}

#[test]
fn every_handler_and_mode_reads_in_place_on_every_backend() {
    each_backend(every_handler_and_mode_reads_in_place_on);
}

fn every_handler_and_mode_reads_in_place_on(store: &Store) {
    let cache = store.open();
    let mapped = store.name == "a folder";
    for handler in ["inline", "shared", "file", "auto"] {
        for mode in [Mode::MsgPack, Mode::Json] {
            let key = format!("{handler}/{mode:?}");
            let options = PutOptions::default().mode(mode).handler(handler);
            let stored = sized_chunk(2, 300);
            cache.put_with(&key, &stored, &options).unwrap();
            let entry = cache.get_ref::<ChunkRef<'_>>(&key).unwrap().unwrap();
            let chunk = entry.value().unwrap();
            assert!(chunk.is(&stored), "{} {key}: {chunk:?}", store.name);
            assert_eq!(entry.format(), mode);
            assert!(within(chunk.text.as_bytes(), entry.bytes()));
            let in_a_file = matches!(handler, "shared" | "file");
            assert_eq!(
                entry.is_mapped(),
                mapped && in_a_file,
                "{} {key}",
                store.name
            );
        }
    }
}

#[test]
fn a_guard_keeps_its_map_while_the_data_file_grows_and_is_mapped_again() {
    let (_dir, cache) = open();
    cache.put("first", &sized_chunk(1, 5000)).unwrap();
    let first = cache.get_ref::<ChunkRef<'_>>("first").unwrap().unwrap();
    let value = first.value().unwrap();
    // Past the end of the map the first get made: mapped again.
    for i in 2..40 {
        cache.put(&format!("k{i}"), &sized_chunk(i, 5000)).unwrap();
    }
    for i in 2..40 {
        let entry = cache
            .get_ref::<ChunkRef<'_>>(&format!("k{i}"))
            .unwrap()
            .unwrap();
        assert!(entry.is_mapped());
        assert!(entry.value().unwrap().is(&sized_chunk(i, 5000)), "k{i}");
    }
    // The first guard's value still reads from the map it was given.
    assert!(value.is(&sized_chunk(1, 5000)));
}

#[test]
fn guards_held_together_keep_their_own_bytes() {
    let (_dir, cache) = open();
    for i in 0..40 {
        cache.put(&format!("k{i}"), &chunk(i)).unwrap();
    }
    // Twice: the second round reads into buffers the first gave back.
    for _ in 0..2 {
        let entries: Vec<_> = (0..40)
            .map(|i| {
                cache
                    .get_ref::<ChunkRef<'_>>(&format!("k{i}"))
                    .unwrap()
                    .unwrap()
            })
            .collect();
        let values: Vec<_> = entries.iter().map(|e| e.value().unwrap()).collect();
        for (i, value) in (0..).zip(&values) {
            assert!(value.is(&chunk(i)), "k{i}: {value:?}");
        }
    }
}

#[test]
fn the_schema_is_checked_before_decoding() {
    /// `Chunk` with a field it never had and no default: not readable.
    #[derive(Codec, Debug)]
    #[codec(name = "test.Chunk")]
    struct Wider<'a> {
        text: &'a str,
        start: u32,
        lines: u32,
    }
    /// `Chunk` with an optional field added: readable.
    #[derive(Codec, Debug)]
    #[codec(name = "test.Chunk")]
    struct Evolved<'a> {
        text: &'a str,
        start: u32,
        vector: &'a [u8],
        lines: Option<u32>,
    }
    let (_dir, cache) = open();
    cache.put("c", &chunk(3)).unwrap();
    let err = cache.get_ref::<Wider<'_>>("c").unwrap_err();
    assert!(matches!(err, StoreError::Schema { .. }), "{err}");
    assert!(format!("{err:?}").contains("lines"), "{err:?}");
    let entry = cache.get_ref::<Evolved<'_>>("c").unwrap().unwrap();
    let evolved = entry.value().unwrap();
    assert_eq!(
        (evolved.text, evolved.start, evolved.lines),
        ("chunk number 3", 3, None)
    );
    // An owned type reads in place too, and `Value` whatever wrote it.
    let owned = cache
        .get_ref::<Chunk>("c")
        .unwrap()
        .unwrap()
        .value()
        .unwrap();
    assert_eq!(owned, chunk(3));
    let entry = cache.get_ref::<Value>("c").unwrap().unwrap();
    let value = entry.value().unwrap();
    assert_eq!(value.get("start").and_then(Value::as_i64), Some(3));
}

#[test]
fn a_string_or_bytes_alone_read_in_place() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    cache.put("s", &"x".repeat(3000)).unwrap();
    cache.put("b", &codec::Bytes(vec![9; 3000])).unwrap();
    let entry = cache.get_ref::<&str>("s").unwrap().unwrap();
    let text: &str = entry.value().unwrap();
    assert_eq!(text, "x".repeat(3000));
    assert!(within(text.as_bytes(), entry.bytes()));
    let entry = cache.get_ref::<&[u8]>("b").unwrap().unwrap();
    let bytes: &[u8] = entry.value().unwrap();
    assert_eq!(bytes, [9; 3000]);
    assert!(within(bytes, entry.bytes()));
    // A string is not bytes: refused before decoding.
    let err = cache.get_ref::<&[u8]>("s").unwrap_err();
    assert!(matches!(err, StoreError::Schema { .. }), "{err}");
}

#[test]
fn a_guard_moves_to_other_threads() {
    fn send_and_sync<T: Send + Sync>(_: &T) {}
    let (_dir, cache) = open();
    cache.put("c", &sized_chunk(5, 5000)).unwrap();
    let entry = cache.get_ref::<ChunkRef<'_>>("c").unwrap().unwrap();
    send_and_sync(&entry);
    std::thread::scope(|s| {
        let read = s.spawn(move || entry.value().unwrap().is(&sized_chunk(5, 5000)));
        assert!(read.join().unwrap());
    });
}

#[test]
fn raw_bytes_and_missing_keys() {
    let (_dir, cache) = open();
    assert!(cache.get_ref::<ChunkRef<'_>>("none").unwrap().is_none());
    cache.put_bytes("raw", b"bytes as they are").unwrap();
    let err = cache.get_ref::<Value>("raw").unwrap_err();
    assert!(matches!(err, StoreError::Unsupported { .. }), "{err}");
    assert!(err.to_string().contains("get_bytes"), "{err}");
}

#[test]
fn a_truncated_data_file_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    cache.put("c", &sized_chunk(1, 5000)).unwrap();
    truncate_data_file(dir.path(), &cache, 100);
    let fresh = Cache::open(dir.path()).unwrap();
    let err = fresh.get_ref::<ChunkRef<'_>>("c").unwrap_err();
    assert!(matches!(err, StoreError::Corrupt { .. }), "{err}");
    assert!(err.to_string().contains("truncated"), "{err}");
}

#[test]
fn a_length_past_the_data_file_is_an_error_not_an_allocation() {
    // Under the size read without asking the file's, and far past it.
    for len in [900_000u64, 1 << 40] {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::open(dir.path()).unwrap();
        cache.put("c", &sized_chunk(1, 5000)).unwrap();
        let stored = cache.entries().unwrap()[0].info.clone();
        let Some(codec::store::InfoValue::Int(real)) = stored.get("len") else {
            panic!("{stored:?}");
        };
        forge_index_line(dir.path(), &cache, "c", |line| {
            line.replace(&format!(r#""len":{real},"#), &format!(r#""len":{len},"#))
        });
        let fresh = Cache::open(dir.path()).unwrap();
        for err in [
            fresh.get::<Chunk>("c").unwrap_err(),
            fresh.get_ref::<ChunkRef<'_>>("c").unwrap_err(),
        ] {
            assert!(matches!(err, StoreError::Corrupt { .. }), "{len}: {err}");
            assert!(err.to_string().contains("past its end"), "{len}: {err}");
        }
    }
}

#[test]
fn reads_of_a_data_file_share_its_map() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    // The entry ends the data file: a map just long enough holds it.
    cache.put("c", &sized_chunk(1, 5000)).unwrap();
    let first = cache.get_ref::<ChunkRef<'_>>("c").unwrap().unwrap();
    let second = cache.get_ref::<ChunkRef<'_>>("c").unwrap().unwrap();
    assert_eq!(
        first.bytes().as_ptr(),
        second.bytes().as_ptr(),
        "the file is mapped once, not again for each read"
    );
}

/// The files of one entry each are mapped for the read that needs them and
/// unmapped with its guard: a handle reading many keeps none of them
/// mapped (nor the disk space of those deleted since).
#[cfg(target_os = "linux")]
#[test]
fn files_of_one_entry_are_not_kept_mapped_after_their_reads() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    let file = PutOptions::default().handler("file");
    for i in 0..20 {
        cache
            .put_with(&format!("c{i}"), &sized_chunk(i, 5000), &file)
            .unwrap();
    }
    let data = dir.path().join("data");
    let mapped = || {
        let maps = std::fs::read_to_string("/proc/self/maps").unwrap();
        let data = data.to_str().unwrap();
        maps.lines().filter(|l| l.contains(data)).count()
    };
    for i in 0..20 {
        let key = format!("c{i}");
        let entry = cache.get_ref::<ChunkRef<'_>>(&key).unwrap().unwrap();
        assert!(entry.is_mapped(), "{key}");
        assert_eq!(entry.value().unwrap().start, i);
        assert_eq!(mapped(), 1, "{key}: its file, while its guard lives");
        drop(entry);
        assert_eq!(
            cache.get::<Chunk>(&key).unwrap().unwrap(),
            sized_chunk(i, 5000)
        );
    }
    assert_eq!(mapped(), 0, "no file of an entry stays mapped");
}

#[test]
fn a_negative_length_in_an_index_line_is_refused_with_its_reason() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    let file = PutOptions::default().handler("file");
    let stored = sized_chunk(1, 5000);
    cache.put_with("c", &stored, &file).unwrap();
    let len = codec::to_msgpack(&stored).unwrap().len();
    forge_index_line(dir.path(), &cache, "c", |line| {
        line.replace(&format!(r#""len":{len}"#), r#""len":-1"#)
    });
    let fresh = Cache::open(dir.path()).unwrap();
    let err = fresh.get_ref::<ChunkRef<'_>>("c").unwrap_err();
    assert!(matches!(err, StoreError::Corrupt { .. }), "{err}");
    assert!(err.to_string().contains("lacks `len`"), "{err}");
}

fn open() -> (tempfile::TempDir, Cache) {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    (dir, cache)
}
