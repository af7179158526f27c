//! Reads on object storage (`object_store`'s in-memory store, behind a
//! wrapper counting requests and recording the byte ranges of ranged
//! GETs): a get reads exactly its value's bytes, arrays read whole or by
//! rows without memory maps, and the local read-through cache answers
//! what was read before, under its bound.

use std::ops::Range;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use object_store::ObjectStore as _;

use ndarray::{s, Array1, Array2};

use codec::store::{
    DumpContext, Info, InfoValue, LoadContext, LocalCache, MappedArray, Typed, TypedHandler,
};
use codec::{Cache, CacheOptions, Codec, PutOptions, StoreError};

use crate::fixtures::counting::{counts, Counting};

// Values holding large buffers are compared with `assert!`, not
// `assert_eq!`, whose message would print them.

/// A value with two buffers kept apart (each of at least `apart_min`)
/// and the rest small enough for its line.
#[derive(Codec, Debug, Clone, PartialEq)]
#[codec(name = "test.Pair")]
struct Pair {
    name: String,
    left: codec::Bytes,
    right: codec::Bytes,
}

fn pair(i: u8) -> Pair {
    Pair {
        name: format!("pair {i}"),
        left: codec::Bytes(vec![i; 300_000]),
        right: codec::Bytes((0..200_000).map(|b| (b % 251) as u8 ^ i).collect()),
    }
}

fn table() -> Array2<f32> {
    Array2::from_shape_fn((1000, 64), |(i, j)| (i * 64 + j) as f32)
}

fn open_with(store: &Arc<Counting>, local: Option<LocalCache>) -> Cache {
    // No checkpoint builds in the background: their requests would
    // count with the gets'.
    let mut options = CacheOptions::default().checkpoint_bytes(0);
    options.local_cache = local;
    Cache::open_store(store.clone(), "caches/one", options).unwrap()
}

fn open(store: &Arc<Counting>) -> Cache {
    open_with(store, None)
}

/// The range of the one ranged GET since the last call.
fn the_range(store: &Counting) -> Range<u64> {
    let ranges = store.take_ranges();
    assert_eq!(ranges.len(), 1, "{ranges:?}");
    ranges[0].1.clone()
}

#[test]
fn a_get_reads_only_its_values_bytes() {
    let store = Counting::new();
    let cache = open(&store);
    cache.put("warm", &pair(0)).unwrap(); // the schema, once per type
    store.take();
    cache.put("pair", &pair(1)).unwrap();
    assert_eq!(
        store.take(),
        counts(&[("PUT", 2)]),
        "both buffers in one data object, and the log segment"
    );
    let reader = open(&store);
    store.take();
    store.take_ranges();

    assert!(reader.get::<Pair>("pair").unwrap() == Some(pair(1)));
    assert_eq!(
        store.take(),
        counts(&[("GET", 1)]),
        "both buffers in one data object, one GET"
    );
    let read = the_range(&store);
    // Both buffers and the padding that aligns the second, nothing else.
    assert!(
        (500_000..500_064).contains(&(read.end - read.start)),
        "{read:?}"
    );
}

#[test]
fn array_rows_read_exactly_their_bytes_not_the_objects_prefix() {
    let store = Counting::new();
    let cache = open(&store);
    cache.put_array("table", &table()).unwrap();
    cache.put("put", &table()).unwrap(); // its data kept apart, the rest inline
    let reader = open(&store);
    store.take();
    store.take_ranges();

    for key in ["table", "put"] {
        let rows = reader.get_array_rows::<f32>(key, 998..1000).unwrap();
        assert_eq!(
            rows.unwrap().view(),
            table().slice(s![998..1000, ..]).into_dyn()
        );
        assert_eq!(store.take(), counts(&[("GET", 1)]), "{key}");
        let range = the_range(&store);
        assert_eq!(range, 998 * 256..1000 * 256, "{key}: exactly the rows");
        let rows = reader.get_array_rows::<f32>(key, 0..1).unwrap();
        assert_eq!(rows.unwrap().view(), table().slice(s![0..1, ..]).into_dyn());
        assert_eq!(the_range(&store), 0..256, "{key}");
        let none = reader.get_array_rows::<f32>(key, 7..7).unwrap();
        assert_eq!(none.unwrap().shape(), [0, 64]);
        assert_eq!(
            store.take(),
            counts(&[("GET", 1)]),
            "no request for no rows"
        );
    }
}

#[test]
fn arrays_read_whole_and_by_rows_without_memory_maps() {
    let store = Counting::new();
    let cache = open(&store);
    cache.put_array("table", &table()).unwrap();
    cache.put("put", &table()).unwrap(); // its data kept apart
    cache
        .put("small", &Array1::from(vec![1.5f64, 2.5]))
        .unwrap();
    let reader = open(&store);
    store.take();
    store.take_ranges();

    let whole = reader.get_array::<f32>("table").unwrap().unwrap();
    assert_eq!(whole.view(), table().into_dyn());
    assert!(whole.is_mapped(), "viewed in the buffer read, not copied");
    assert_eq!(store.take(), counts(&[("GET", 1)]));
    assert_eq!(the_range(&store), 0..256_000);
    let owned: Array2<f32> = reader.get("table").unwrap().unwrap();
    assert_eq!(owned, table());
    let field: MappedArray<f32> = reader.get("put").unwrap().unwrap();
    assert_eq!(field.view(), table().into_dyn());
    assert!(field.is_mapped());
    assert_eq!(
        reader.get_array::<f32>("put").unwrap().unwrap().view(),
        table().into_dyn()
    );
    store.take();

    for key in ["table", "put"] {
        let rows = reader.get_array_rows::<f32>(key, 3..7).unwrap().unwrap();
        assert_eq!(rows.shape(), [4, 64]);
        assert_eq!(rows.view(), table().slice(s![3..7, ..]).into_dyn(), "{key}");
        let none = reader.get_array_rows::<f32>(key, 5..5).unwrap().unwrap();
        assert_eq!(none.shape(), [0, 64]);
    }
    let small = reader
        .get_array_rows::<f64>("small", 1..2)
        .unwrap()
        .unwrap();
    assert_eq!(small.view().as_slice().unwrap(), [2.5]);
    assert!(reader
        .get_array_rows::<f32>("missing", 0..1)
        .unwrap()
        .is_none());
}

#[test]
fn rows_out_of_range_and_another_dtype_are_typed_errors() {
    let cache = Cache::open_url("memory://").unwrap();
    cache.put_array("table", &table()).unwrap();
    cache.put("put", &table()).unwrap();
    cache
        .put_array("scalar", &ndarray::arr0(1.0f32).into_dyn())
        .unwrap();
    for key in ["table", "put"] {
        #[allow(clippy::reversed_empty_ranges)]
        for rows in [999..1001, 1000..1001, 5..3] {
            let err = cache.get_array_rows::<f32>(key, rows.clone()).unwrap_err();
            assert!(
                matches!(&err, StoreError::RowsOutOfRange { shape, .. } if shape == &[1000, 64]),
                "{key} {rows:?}: {err}"
            );
            assert!(err.to_string().contains("within 0..1000"), "{err}");
        }
        let err = cache.get_array_rows::<f64>(key, 0..1).unwrap_err();
        assert!(err.is_unreadable_entry(), "{key}: {err}");
    }
    let err = cache.get_array_rows::<f64>("table", 0..1).unwrap_err();
    assert!(
        matches!(&err, StoreError::ArrayType { stored, asked, .. } if stored == "<f4" && asked == "<f8"),
        "{err}"
    );
    assert!(matches!(
        cache.get_array::<i32>("table"),
        Err(StoreError::ArrayType { .. })
    ));
    let err = cache.get_array_rows::<f32>("scalar", 0..1).unwrap_err();
    assert!(err.to_string().contains("no dimension"), "{err}");
}

/// The files of a local cache folder.
fn local_files(dir: &Path) -> Vec<std::path::PathBuf> {
    match std::fs::read_dir(dir) {
        Ok(entries) => entries.map(|e| e.unwrap().path()).collect(),
        Err(_) => Vec::new(),
    }
}

/// The files of the ranges a local cache folder keeps.
fn kept_files(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut files = local_files(dir);
    files.retain(|f| f.extension().is_some_and(|e| e == "bin"));
    files
}

/// The bytes of the ranges a local cache folder keeps, trailers included.
fn local_size(dir: &Path) -> u64 {
    kept_files(dir)
        .iter()
        .map(|p| std::fs::metadata(p).unwrap().len())
        .sum()
}

#[test]
fn a_warm_local_cache_answers_gets_without_a_request() {
    let store = Counting::new();
    let local = tempfile::tempdir().unwrap();
    let options = LocalCache::new(local.path().join("objects"), 1 << 30);
    let cache = open(&store);
    cache.put("pair", &pair(1)).unwrap();
    cache.put("shared", &codec::Bytes(vec![5; 5_000])).unwrap();
    cache.put_array("table", &table()).unwrap();
    let file = PutOptions::default().handler("file");
    cache.put_with("file", &vec![7u8; 3_000], &file).unwrap();
    let keys = ["pair", "shared", "table", "file"];

    let reader = open_with(&store, Some(options.clone()));
    store.take();
    let read_all = |reader: &Cache| {
        assert!(reader.get::<Pair>("pair").unwrap() == Some(pair(1)));
        let shared: codec::Bytes = reader.get("shared").unwrap().unwrap();
        assert_eq!(shared.0, vec![5; 5_000]);
        let rows = reader.get_array_rows::<f32>("table", 10..20).unwrap();
        assert_eq!(
            rows.unwrap().view(),
            table().slice(s![10..20, ..]).into_dyn()
        );
        assert_eq!(
            reader.get::<Vec<u8>>("file").unwrap(),
            Some(vec![7u8; 3_000])
        );
    };
    read_all(&reader);
    assert_eq!(
        store.take(),
        counts(&[("GET", keys.len())]),
        "cold: one GET per get"
    );
    read_all(&reader);
    assert_eq!(store.take(), counts(&[]), "warm: none");

    let fresh = open_with(&store, Some(options));
    store.take();
    read_all(&fresh);
    assert_eq!(
        store.take(),
        counts(&[]),
        "a fresh handle on the same folder"
    );
    // Only the data objects' ranges: one file each, no temporary file left.
    let files = local_files(&local.path().join("objects"));
    assert_eq!(files.len(), keys.len(), "{files:?}");
    assert!(files.iter().all(|f| f.extension().unwrap() == "bin"));
}

#[test]
fn the_local_cache_keeps_the_ranges_read_last_under_its_bound() {
    let store = Counting::new();
    let local = tempfile::tempdir().unwrap();
    let cache = open(&store);
    for i in 0..8 {
        cache.put_bytes(&format!("v/{i}"), &[i; 10_000]).unwrap();
    }
    // Room for three ranges of 10,000 bytes and their trailers.
    let max_bytes = 31_000;
    let reader = open_with(&store, Some(LocalCache::new(local.path(), max_bytes)));
    for i in 0..8 {
        assert_eq!(
            reader.get_bytes(&format!("v/{i}")).unwrap().unwrap(),
            [i; 10_000]
        );
        let size = local_size(local.path());
        assert!(size <= max_bytes, "{size} bytes after {i}");
    }
    store.take();
    // The last read are kept: no request.
    assert_eq!(reader.get_bytes("v/7").unwrap().unwrap(), [7; 10_000]);
    assert_eq!(store.take(), counts(&[]));
    // The first read are gone: read again.
    assert_eq!(reader.get_bytes("v/0").unwrap().unwrap(), [0; 10_000]);
    assert_eq!(store.take(), counts(&[("GET", 1)]));
    // A range larger than the whole bound is not kept.
    cache.put_bytes("huge", &[9; 40_000]).unwrap();
    reader.refresh().unwrap();
    store.take();
    for _ in 0..2 {
        assert_eq!(reader.get_bytes("huge").unwrap().unwrap(), [9; 40_000]);
    }
    assert_eq!(store.take(), counts(&[("GET", 2)]));
    assert!(local_size(local.path()) <= max_bytes);
    // Nor does it push out the ranges kept.
    assert_eq!(reader.get_bytes("v/7").unwrap().unwrap(), [7; 10_000]);
    assert_eq!(store.take(), counts(&[]), "v/7 still kept");
}

#[test]
fn the_local_cache_bound_counts_each_files_trailer_and_holds_exactly_full() {
    let store = Counting::new();
    let cache = open(&store);
    for i in 0..3 {
        cache.put_bytes(&format!("v/{i}"), &[i; 10_000]).unwrap();
    }
    // A file is the range's bytes and a trailer of 16.
    let file = 10_000 + 16;
    // The bound, the ranges it keeps, and whether a write scanned the
    // folder after the handle's first (which deletes stale temporary
    // files): only past the bound.
    for (max_bytes, kept, scanned) in [
        (file, 1, true),
        (3 * file, 3, false),
        (3 * file - 1, 2, true),
    ] {
        let local = tempfile::tempdir().unwrap();
        let stale = local.path().join("0a1b.41.0.tmp");
        let reader = open_with(&store, Some(LocalCache::new(local.path(), max_bytes)));
        for i in 0..3 {
            assert_eq!(
                reader.get_bytes(&format!("v/{i}")).unwrap().unwrap(),
                [i; 10_000]
            );
            let size = local_size(local.path());
            assert!(
                size <= max_bytes,
                "{size} bytes after v/{i}, bound {max_bytes}"
            );
            if i == 0 {
                std::fs::write(&stale, [1; 10]).unwrap();
                age(&stale, Duration::from_secs(2 * 3600));
            }
        }
        assert_eq!(kept_files(local.path()).len(), kept, "bound {max_bytes}");
        assert_eq!(!stale.exists(), scanned, "bound {max_bytes}");
        store.take();
        assert_eq!(reader.get_bytes("v/2").unwrap().unwrap(), [2; 10_000]);
        assert_eq!(store.take(), counts(&[]), "v/2 kept, bound {max_bytes}");
    }
}

/// Sets the modification time of `path` to `ago` before now.
fn age(path: &Path, ago: Duration) {
    let file = std::fs::File::options().write(true).open(path).unwrap();
    file.set_modified(SystemTime::now() - ago).unwrap();
}

#[test]
fn a_scan_of_the_local_cache_deletes_stale_temporary_files_and_nothing_it_did_not_write() {
    let store = Counting::new();
    let cache = open(&store);
    for i in 0..5 {
        cache.put_bytes(&format!("v/{i}"), &[i; 10_000]).unwrap();
    }
    let local = tempfile::tempdir().unwrap();
    let at = |name: &str| local.path().join(name);
    let two_hours = Duration::from_secs(2 * 3600);
    // Left by a process killed while it wrote, two hours ago; being
    // written by another process now; a file of another program.
    for name in ["0a1b.41.0.tmp", "2c3d.42.7.tmp", "notes.txt"] {
        std::fs::write(at(name), [1; 5_000]).unwrap();
    }
    age(&at("0a1b.41.0.tmp"), two_hours);
    age(&at("notes.txt"), two_hours);
    // Room for three ranges of 10,000 bytes and their trailers.
    let reader = open_with(&store, Some(LocalCache::new(local.path(), 31_000)));
    let read = |i: u8| {
        assert_eq!(
            reader.get_bytes(&format!("v/{i}")).unwrap().unwrap(),
            [i; 10_000]
        );
    };
    read(0); // the handle's first write scans the folder
    assert!(!at("0a1b.41.0.tmp").exists(), "a stale temporary file");
    assert!(
        at("2c3d.42.7.tmp").exists(),
        "another process's, being written"
    );

    // Under the bound, a write does not scan the folder again.
    std::fs::write(at("4e5f.43.0.tmp"), [1; 10]).unwrap();
    age(&at("4e5f.43.0.tmp"), two_hours);
    read(1);
    read(2);
    assert!(at("4e5f.43.0.tmp").exists(), "scanned under the bound");
    // Past it, it does: ranges go, read least recently first.
    read(3);
    read(4);
    assert!(!at("4e5f.43.0.tmp").exists(), "not scanned past the bound");
    assert!(at("notes.txt").exists(), "another program's file");
    assert_eq!(std::fs::read(at("notes.txt")).unwrap(), [1; 5_000]);
}

/// A note kept as a text file of its own: a handler written for a folder
/// (reading its file whole with `LoadContext::read_file`, or through its
/// path for `by_path`), used on object storage.
#[derive(Codec, Debug, Clone, PartialEq)]
#[codec(name = "test.Note")]
struct Note {
    text: String,
}

struct NoteFiles {
    by_path: bool,
}

fn file_of<'a>(info: &'a Info, ctx: &LoadContext<'_>) -> Result<&'a str, StoreError> {
    match info.get("file") {
        Some(InfoValue::Text(name)) => Ok(name),
        _ => Err(ctx.corrupt("no `file` in the info")),
    }
}

impl TypedHandler<Note> for NoteFiles {
    fn name(&self) -> &str {
        match self.by_path {
            true => "note-paths",
            false => "note-files",
        }
    }

    fn dump(&self, note: &Note, ctx: &mut DumpContext<'_>) -> Result<Info, StoreError> {
        let name = ctx.write_file("txt", note.text.as_bytes())?;
        Ok(Info::from([("file".to_owned(), name.into())]))
    }

    fn load(&self, info: &Info, ctx: &LoadContext<'_>) -> Result<Note, StoreError> {
        let name = file_of(info, ctx)?;
        let bytes = match self.by_path {
            true => std::fs::read(ctx.path(name)?).map_err(|e| ctx.corrupt(e.to_string()))?,
            false => ctx.read_file(name)?,
        };
        let text = String::from_utf8(bytes).map_err(|e| ctx.corrupt(e.to_string()))?;
        Ok(Note { text })
    }

    fn delete(&self, info: &Info, ctx: &LoadContext<'_>) -> Result<(), StoreError> {
        ctx.delete_file(file_of(info, ctx)?)
    }
}

fn with_notes(cache: Cache) -> Cache {
    for by_path in [false, true] {
        cache.register_handler(Typed::new(NoteFiles { by_path }));
    }
    cache
}

fn note(text: &str) -> Note {
    Note { text: text.into() }
}

/// The objects of the store under `data/` whose names end with `suffix`.
fn data_objects(store: &Counting, suffix: &str) -> Vec<String> {
    let data = object_store::path::Path::from("caches/one/data");
    let listed = futures::executor::block_on(store.inner.list_with_delimiter(Some(&data))).unwrap();
    listed
        .objects
        .iter()
        .map(|o| o.location.to_string())
        .filter(|name| name.ends_with(suffix))
        .collect()
}

#[test]
fn a_handlers_files_are_read_whole_through_the_local_cache_and_deleted_from_the_store() {
    let store = Counting::new();
    let local = tempfile::tempdir().unwrap();
    let options = LocalCache::new(local.path(), 1 << 30);
    let cache = with_notes(open(&store));
    let files = PutOptions::default().handler("note-files");
    cache.put_with("note", &note("kept whole"), &files).unwrap();
    assert_eq!(data_objects(&store, ".txt").len(), 1);

    let reader = with_notes(open_with(&store, Some(options.clone())));
    store.take();
    assert_eq!(reader.get("note").unwrap(), Some(note("kept whole")));
    assert_eq!(store.take(), counts(&[("GET", 1)]), "cold: the file, whole");
    assert_eq!(reader.get("note").unwrap(), Some(note("kept whole")));
    assert_eq!(store.take(), counts(&[]), "warm: none");
    let fresh = with_notes(open_with(&store, Some(options)));
    store.take();
    assert_eq!(fresh.get("note").unwrap(), Some(note("kept whole")));
    assert_eq!(
        store.take(),
        counts(&[]),
        "a fresh handle on the same folder"
    );

    // The handler deletes its file from the store, not from the copies.
    assert!(fresh.remove("note").unwrap());
    assert_eq!(data_objects(&store, ".txt"), Vec::<String>::new());
}

#[test]
fn errors_of_a_handlers_files_name_the_store_with_a_local_cache_as_without() {
    let store = Counting::new();
    let local = tempfile::tempdir().unwrap();
    let cache = with_notes(open(&store));
    let paths = PutOptions::default().handler("note-paths");
    cache
        .put_with("by path", &note("on a folder"), &paths)
        .unwrap();
    let before = data_objects(&store, ".txt");
    let files = PutOptions::default().handler("note-files");
    cache.put_with("gone", &note("deleted"), &files).unwrap();
    let mut gone = data_objects(&store, ".txt");
    gone.retain(|name| !before.contains(name));
    let [gone] = gone.try_into().unwrap();
    futures::executor::block_on(store.inner.delete(&gone.as_str().into())).unwrap();

    let plain = with_notes(open(&store));
    let local_cached = with_notes(open_with(
        &store,
        Some(LocalCache::new(local.path(), 1 << 30)),
    ));
    for key in ["by path", "gone"] {
        let plain = plain.get::<Note>(key).unwrap_err();
        let err = local_cached.get::<Note>(key).unwrap_err();
        assert_eq!(err.to_string(), plain.to_string(), "{key}");
    }
    let err = local_cached.get::<Note>("by path").unwrap_err();
    assert!(matches!(err, StoreError::Unsupported { .. }), "{err}");
    assert!(err.to_string().contains("Counting"), "{err}");
    let err = local_cached.get::<Note>("gone").unwrap_err();
    assert!(err.to_string().contains(&gone), "{err}");
}

#[test]
fn the_local_cache_evicts_the_ranges_read_least_recently_not_those_written_first() {
    let store = Counting::new();
    let local = tempfile::tempdir().unwrap();
    let cache = open(&store);
    for i in 0..4 {
        cache.put_bytes(&format!("v/{i}"), &[i; 10_000]).unwrap();
    }
    // Room for three ranges of 10,000 bytes and their trailers.
    let reader = open_with(&store, Some(LocalCache::new(local.path(), 31_000)));
    let an_hour_ago = SystemTime::now() - Duration::from_secs(3600);
    for i in 0..3 {
        let before = local_files(local.path());
        let got = reader.get_bytes(&format!("v/{i}")).unwrap().unwrap();
        assert_eq!(got, [i; 10_000]);
        let mut new = local_files(local.path());
        new.retain(|f| !before.contains(f));
        let [file] = new.try_into().unwrap();
        // Written a minute apart, v/0 first (writes this close together
        // may get the same file time).
        let written = an_hour_ago + Duration::from_secs(60 * u64::from(i));
        let file = std::fs::File::options().write(true).open(file).unwrap();
        file.set_modified(written).unwrap();
    }
    store.take();
    assert_eq!(reader.get_bytes("v/0").unwrap().unwrap(), [0; 10_000]);
    assert_eq!(store.take(), counts(&[]));
    // A fourth range: the two read least recently go, v/1 and v/2.
    assert_eq!(reader.get_bytes("v/3").unwrap().unwrap(), [3; 10_000]);
    store.take();
    assert_eq!(reader.get_bytes("v/0").unwrap().unwrap(), [0; 10_000]);
    assert_eq!(store.take(), counts(&[]), "v/0, written first, read again");
    assert_eq!(reader.get_bytes("v/1").unwrap().unwrap(), [1; 10_000]);
    assert_eq!(store.take(), counts(&[("GET", 1)]));
}

#[test]
fn a_damaged_local_file_is_read_again_never_returned() {
    let store = Counting::new();
    let local = tempfile::tempdir().unwrap();
    let options = LocalCache::new(local.path(), 1 << 30);
    let cache = open(&store);
    cache.put("pair", &pair(3)).unwrap();
    let reader = open_with(&store, Some(options));
    assert!(reader.get::<Pair>("pair").unwrap() == Some(pair(3)));
    let [file] = local_files(local.path()).try_into().unwrap();
    let good = std::fs::read(&file).unwrap();

    let mut flipped = good.clone();
    flipped[1_000] ^= 0x10;
    let damages = [
        flipped,
        good[..good.len() - 1].to_vec(), // its end cut off
        good[..250_000].to_vec(),        // half of it
        Vec::new(),
    ];
    for damaged in damages {
        std::fs::write(&file, &damaged).unwrap();
        store.take();
        assert!(reader.get::<Pair>("pair").unwrap() == Some(pair(3)));
        assert_eq!(store.take(), counts(&[("GET", 1)]), "read again");
        assert!(std::fs::read(&file).unwrap() == good, "and kept again");
        assert!(reader.get::<Pair>("pair").unwrap() == Some(pair(3)));
        assert_eq!(store.take(), counts(&[]));
    }
}

#[test]
fn the_local_cache_is_not_used_on_a_folder() {
    let dir = tempfile::tempdir().unwrap();
    let local = tempfile::tempdir().unwrap();
    let options =
        CacheOptions::default().local_cache(LocalCache::new(local.path().join("objects"), 1 << 30));
    let cache = Cache::open_with(dir.path(), options).unwrap();
    cache.put("pair", &pair(2)).unwrap();
    cache.put_bytes("shared", &[5; 5_000]).unwrap();
    cache.put_array("table", &table()).unwrap();
    assert!(cache.get::<Pair>("pair").unwrap() == Some(pair(2)));
    assert_eq!(cache.get_bytes("shared").unwrap().unwrap(), [5; 5_000]);
    let rows = cache.get_array_rows::<f32>("table", 1..3).unwrap().unwrap();
    assert_eq!(rows.view(), table().slice(s![1..3, ..]).into_dyn());
    assert!(!local.path().join("objects").exists());
}

#[test]
fn handles_sharing_a_local_cache_under_eviction_read_right_values() {
    let store = Counting::new();
    let local = tempfile::tempdir().unwrap();
    let cache = open(&store);
    let value = |i: usize| vec![i as u8; 10_000 + i];
    for i in 0..20 {
        cache.put_bytes(&format!("v/{i}"), &value(i)).unwrap();
    }
    // Room for five values: files are written, replaced and evicted while
    // the other handles read them.
    let options = LocalCache::new(local.path(), 55_000);
    let handles: Vec<Cache> = (0..2)
        .map(|_| open_with(&store, Some(options.clone())))
        .collect();
    std::thread::scope(|s| {
        for t in 0..4 {
            let handle = &handles[t % 2];
            s.spawn(move || {
                for n in 0..300 {
                    let i = (n * 7 + t * 3) % 20;
                    let got = handle.get_bytes(&format!("v/{i}")).unwrap().unwrap();
                    assert!(got == value(i), "v/{i}");
                }
            });
        }
    });
    // Each handle keeps the folder under the bound by what it saw: two of
    // them, under twice the bound at most.
    assert!(local_size(local.path()) <= 2 * 55_000);
    // Every file left is whole and named right: a fresh handle (with room
    // for all, so that it evicts none) reads the values they hold without
    // a request.
    let files = local_files(local.path());
    assert!(
        files.iter().all(|f| f.extension().unwrap() == "bin"),
        "{files:?}"
    );
    let fresh = open_with(&store, Some(LocalCache::new(local.path(), 1 << 30)));
    store.take();
    for i in 0..20 {
        assert!(fresh.get_bytes(&format!("v/{i}")).unwrap().unwrap() == value(i));
    }
    assert_eq!(store.take(), counts(&[("GET", 20 - files.len())]));
}

#[test]
fn rows_read_without_maps_keep_the_alignment_they_have_in_the_file() {
    let store = Counting::new();
    let cache = open(&store);
    // 12 bytes a row: most rows start off a 64-byte boundary.
    let narrow = Array2::from_shape_fn((100, 3), |(i, j)| (i * 3 + j) as f32);
    cache.put_array("narrow", &narrow).unwrap();
    store.take_ranges();
    for rows in [1..2, 16..20, 21..100] {
        let read = cache
            .get_array_rows::<f32>("narrow", rows.clone())
            .unwrap()
            .unwrap();
        assert_eq!(read.view(), narrow.slice(s![rows.clone(), ..]).into_dyn());
        let start = the_range(&store).start;
        assert_eq!(
            read.view().as_ptr() as u64 % 64,
            start % 64,
            "rows {rows:?} at byte {start} of their object"
        );
    }
}

#[test]
fn rows_of_an_array_stored_as_json_cost_the_requests_of_a_get() {
    let store = Counting::new();
    let cache = open(&store);
    // The handler that keeps buffers apart, named: JSON has none to keep.
    let json = PutOptions::default()
        .mode(codec::store::Mode::Json)
        .handler("auto");
    cache.put_with("json", &table(), &json).unwrap(); // in a data object
    let reader = open(&store);
    reader.get_array_rows::<f32>("json", 0..1).unwrap(); // reads the schema too
    store.take();
    let whole = reader.get::<MappedArray<f32>>("json").unwrap().unwrap();
    assert_eq!(whole.view(), table().into_dyn());
    let get = store.take();
    let rows = reader.get_array_rows::<f32>("json", 3..5).unwrap().unwrap();
    assert_eq!(rows.view(), table().slice(s![3..5, ..]).into_dyn());
    assert_eq!(store.take(), get, "the payload read whole, once");
}
