//! A cache folder written by an earlier version of codec, committed in
//! `tests/fixtures/store-v1`, still opens and reads: every kind of entry
//! (small values inline, values in the shared data file, a value whose
//! buffers are kept apart, `put_array` arrays, raw and JSON entries),
//! removed keys, a compaction, then entries written and removed before
//! and after a checkpoint. The folder is opened from a copy, since opening writes a log.
//!
//! `write_fixture` (ignored) is how the folder was made, with
//! `CODEC_WRITE_FIXTURE=1 cargo test --features ndarray --test store -- --ignored fixture::write_fixture`;
//! a change of the folder layout keeps the committed folder as it is and
//! adds one for the new layout.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use codec::store::Admin;
use codec::store::Mode;
use codec::{Bytes, Cache, Codec, PutOptions};
use ndarray::{Array1, Array2};

use crate::fixtures::copy_dir;

/// The chunk of the committed folder, not the shared `test.Chunk`: its
/// fields, wire name and values are on disk.
#[derive(Codec, Debug, Clone, PartialEq)]
#[codec(name = "fixture.Chunk")]
struct Chunk {
    text: String,
    start: u32,
    end: u32,
}

#[derive(Codec, Debug, Clone, PartialEq)]
#[codec(name = "fixture.Blob")]
struct Blob {
    label: String,
    data: Bytes,
}

#[derive(Debug, PartialEq)]
enum Expected {
    Chunk(Chunk),
    Text(String),
    Blob(Blob),
    Array(Array2<f64>),
    Vector(Array1<f32>),
    Raw(Vec<u8>),
    Json(Chunk),
}

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/store-v1")
}

fn chunk(i: u32) -> Chunk {
    Chunk {
        text: format!("chunk {i}: {}", "word ".repeat(i as usize % 7)),
        start: i * 10,
        end: i * 10 + 9,
    }
}

/// A value kept apart (at least `apart_min`, 64 KiB, of bytes).
fn blob() -> Blob {
    Blob {
        label: "apart".into(),
        data: Bytes((0..70_000u32).map(|i| (i % 251) as u8).collect()),
    }
}

fn matrix(scale: f64) -> Array2<f64> {
    Array2::from_shape_fn((20, 30), |(i, j)| scale * (i * 30 + j) as f64)
}

/// What every key of the folder holds, in the order of `write_fixture`'s
/// last word on each.
fn expected() -> BTreeMap<String, Expected> {
    let mut map = BTreeMap::new();
    for i in 0..40 {
        if i % 5 != 3 {
            map.insert(format!("chunk/{i:02}"), Expected::Chunk(chunk(i)));
        }
    }
    map.insert("chunk/07".into(), Expected::Chunk(chunk(700)));
    map.insert("text/long".into(), Expected::Text("shared ".repeat(400)));
    map.insert("blob".into(), Expected::Blob(blob()));
    map.insert("array/put".into(), Expected::Array(matrix(1.0)));
    map.insert("array/put_array".into(), Expected::Array(matrix(0.5)));
    map.insert(
        "array/small".into(),
        Expected::Vector(Array1::from(vec![1.5f32, -2.0, 3.25])),
    );
    map.insert("raw".into(), Expected::Raw(b"\x00raw bytes\xff".to_vec()));
    map.insert("json".into(), Expected::Json(chunk(99)));
    for i in 0..5 {
        map.insert(format!("after/{i}"), Expected::Chunk(chunk(1000 + i)));
    }
    map
}

#[test]
#[ignore = "writes the committed fixture; run by hand with CODEC_WRITE_FIXTURE=1"]
fn write_fixture() {
    if std::env::var_os("CODEC_WRITE_FIXTURE").is_none() {
        return;
    }
    let dir = fixture();
    if dir.exists() {
        std::fs::remove_dir_all(&dir).unwrap();
    }
    {
        let cache = Cache::open(&dir).unwrap();
        for i in 0..40 {
            cache.put(&format!("chunk/{i:02}"), &chunk(i)).unwrap();
        }
        cache.put("text/long", &"shared ".repeat(400)).unwrap();
        cache.put("blob", &blob()).unwrap();
        cache.put("array/put", &matrix(1.0)).unwrap();
        cache.put_array("array/put_array", &matrix(0.5)).unwrap();
        cache
            .put_array("array/small", &Array1::from(vec![1.5f32, -2.0, 3.25]))
            .unwrap();
        cache.put_bytes("raw", b"\x00raw bytes\xff").unwrap();
        let json = PutOptions::default().mode(Mode::Json);
        cache.put_with("json", &chunk(99), &json).unwrap();
        for i in (0..40).filter(|i| i % 5 == 3) {
            assert!(cache.remove(&format!("chunk/{i:02}")).unwrap());
        }
    }
    Admin::compact(&dir, &[], |_, _| {}).unwrap();
    let cache = Cache::open(&dir).unwrap();
    cache.put("chunk/07", &chunk(700)).unwrap();
    cache.put("gone", &chunk(1)).unwrap();
    for i in 0..3 {
        cache.put(&format!("after/{i}"), &chunk(1000 + i)).unwrap();
    }
    cache.admin().checkpoint().unwrap();
    cache.remove("gone").unwrap();
    for i in 3..5 {
        cache.put(&format!("after/{i}"), &chunk(1000 + i)).unwrap();
    }
}

fn read_all(cache: &Cache) {
    let expected = expected();
    assert_eq!(
        cache.keys().unwrap(),
        expected.keys().cloned().collect::<Vec<_>>()
    );
    for (key, want) in &expected {
        let got = match want {
            Expected::Chunk(_) => Expected::Chunk(cache.get(key).unwrap().unwrap()),
            Expected::Text(_) => Expected::Text(cache.get(key).unwrap().unwrap()),
            Expected::Blob(_) => Expected::Blob(cache.get(key).unwrap().unwrap()),
            Expected::Array(_) => Expected::Array(cache.get(key).unwrap().unwrap()),
            Expected::Vector(_) => Expected::Vector(cache.get(key).unwrap().unwrap()),
            Expected::Raw(_) => Expected::Raw(cache.get_bytes(key).unwrap().unwrap()),
            Expected::Json(_) => Expected::Json(cache.get(key).unwrap().unwrap()),
        };
        assert_eq!(&got, want, "{key}");
    }
    assert_eq!(cache.get::<Chunk>("gone").unwrap(), None);
    assert!(cache.warnings().is_empty(), "{:?}", cache.warnings());
}

#[test]
fn a_folder_written_by_an_earlier_version_opens_and_reads_every_entry() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixture(), dir.path());
    let cache = Cache::open(dir.path()).unwrap();
    read_all(&cache);
    // The checkpoint holds the keys of before it: all but the last two,
    // and `gone`, removed after it.
    assert_eq!(
        cache.admin().verify_index().unwrap(),
        expected().len() - 2 + 1
    );
    let mapped = cache.get_array::<f64>("array/put_array").unwrap().unwrap();
    assert!(
        mapped.is_mapped(),
        "an array in the data file reads from its map"
    );
}

#[test]
fn a_folder_written_by_an_earlier_version_takes_new_entries_and_compacts() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixture(), dir.path());
    {
        let cache = Cache::open(dir.path()).unwrap();
        cache.put("new", &chunk(5000)).unwrap();
        assert!(cache.remove("new").unwrap());
        cache.admin().checkpoint().unwrap();
    }
    Admin::compact(dir.path(), &[], |_, _| {}).unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    read_all(&cache);
}

#[test]
fn a_folder_written_by_an_earlier_version_compacts_online_and_is_raised_by_its_first_seal() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixture(), dir.path());
    let layout = || std::fs::read_to_string(dir.path().join("codec-store.json")).unwrap();
    let options = codec::CacheOptions::default().segment_bytes(1 << 20);
    let cache = Cache::open_with(dir.path(), options).unwrap();
    cache.put("new", &chunk(5000)).unwrap();
    assert!(cache.remove("new").unwrap());
    // What a codec of layout 1 reads keeps the folder at 1.
    assert_eq!(layout(), r#"{"format":1}"#);
    let grace = std::time::Duration::ZERO;
    let done = cache.admin().compact_online(grace, |_, _| {}).unwrap();
    assert_eq!(done.kept, expected().len());
    assert!(done.size_after < done.size_before, "{done:?}");
    // Sealed segments: a codec that reads layout 1 or 2 would take one
    // up and append to it.
    assert_eq!(layout(), r#"{"format":3}"#);
    read_all(&cache);
    read_all(&Cache::open(dir.path()).unwrap());
    let mapped = cache.get_array::<f64>("array/put_array").unwrap().unwrap();
    assert!(mapped.is_mapped());
}
