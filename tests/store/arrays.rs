//! ndarray arrays: `put_array` writes them to be memory mapped without
//! copying, whatever their size and wherever the folder lives. One way to
//! store an array: whether put with `put` or `put_array`, an ndarray array
//! reads back as a `MappedArray` (viewing the data file's map when its
//! data lies apart), as an `Array` of its dtype and any dimension that
//! fits its shape, and through `get_array`.

use std::sync::Arc;

use codec::store::backend::folder::Folder;
use codec::store::backend::Backend;
use codec::store::MappedArray;
use codec::{Cache, CacheOptions, StoreError};
use ndarray::{Array1, Array2, Array3, ArrayD, Ix2};

use crate::fixtures::backends::each_backend;
use crate::fixtures::forge_index_line;
use crate::fixtures::wrapped::{Hooks, Wrapped};

/// 240 KB of data: kept apart by `put` (at least `apart_min`, 64 KiB).
fn big() -> Array2<f64> {
    Array2::from_shape_fn((300, 100), |(i, j)| (i * 100 + j) as f64)
}

#[test]
fn an_array_put_with_put_reads_as_a_mapped_array_and_through_get_array() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    cache.put("big", &big()).unwrap();
    cache
        .put("small", &Array1::from(vec![1.5f64, 2.5]))
        .unwrap();

    let mapped: MappedArray<f64> = cache.get("big").unwrap().unwrap();
    assert!(mapped.is_mapped());
    assert_eq!(mapped.to_owned::<Ix2>().unwrap(), big());
    let via_get_array = cache.get_array::<f64>("big").unwrap().unwrap();
    assert!(via_get_array.is_mapped());
    assert_eq!(via_get_array, mapped);
    assert_eq!(
        cache.get::<ArrayD<f64>>("big").unwrap().unwrap(),
        big().into_dyn()
    );

    // A small array is in the index line: read as a copy.
    let small = cache.get_array::<f64>("small").unwrap().unwrap();
    assert!(!small.is_mapped());
    assert_eq!(small.view(), Array1::from(vec![1.5, 2.5]).into_dyn().view());
}

#[test]
fn an_array_put_with_put_array_reads_with_get_as_any_fitting_array() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    cache.put_array("old", &big()).unwrap();
    let small = Array1::from(vec![1u16, 2, 3]);
    cache.put_array("tiny", &small).unwrap();

    let reader = Cache::open(dir.path()).unwrap();
    let mapped: MappedArray<f64> = reader.get("old").unwrap().unwrap();
    assert!(mapped.is_mapped());
    assert_eq!(mapped.shape(), [300, 100]);
    assert_eq!(reader.get::<Array2<f64>>("old").unwrap().unwrap(), big());
    assert_eq!(
        reader.get::<ArrayD<f64>>("old").unwrap().unwrap(),
        big().into_dyn()
    );
    assert_eq!(reader.get::<Array1<u16>>("tiny").unwrap().unwrap(), small);
    // `put_array` maps whatever the size.
    assert!(reader
        .get::<MappedArray<u16>>("tiny")
        .unwrap()
        .unwrap()
        .is_mapped());
    let all: Vec<(String, ArrayD<f64>)> = reader
        .iter::<ArrayD<f64>>()
        .unwrap()
        .filter_map(Result::ok)
        .collect();
    assert_eq!(all.len(), 1);
}

#[test]
fn an_array_of_another_dtype_or_dimension_is_a_typed_error() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    cache.put_array("old", &big()).unwrap();
    cache.put("new", &big()).unwrap();
    for key in ["old", "new"] {
        let err = cache.get::<Array1<f64>>(key).unwrap_err();
        assert!(err.is_unreadable_entry(), "{key}: {err}");
        let err = cache.get::<MappedArray<f32>>(key).unwrap_err();
        assert!(err.is_unreadable_entry(), "{key}: {err}");
        assert!(matches!(
            cache.get::<Array2<i64>>(key),
            Err(StoreError::Decode { .. } | StoreError::Schema { .. })
        ));
    }
    let dims: Array2<f64> = cache
        .get::<ArrayD<f64>>("old")
        .unwrap()
        .unwrap()
        .into_dimensionality::<Ix2>()
        .unwrap();
    assert_eq!(dims, big());
}

#[test]
fn arrays_are_memory_mapped_without_copying() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    let a = Array2::from_shape_fn((3, 4), |(i, j)| (i * 10 + j) as f64);
    let b = Array3::<u8>::from_elem((2, 2, 5), 7);
    cache.put("small", &1u8).unwrap(); // misaligns the shared file on purpose
    cache.put_array("a", &a).unwrap();
    cache.put_array("b", &b).unwrap();
    cache
        .put_array("flags", &ndarray::arr1(&[true, false]))
        .unwrap();
    let reader = Cache::open(dir.path()).unwrap();
    let mapped = reader.get_array::<f64>("a").unwrap().unwrap();
    assert_eq!(mapped.shape(), [3, 4]);
    assert_eq!(mapped.view(), a.clone().into_dyn().view());
    assert_eq!(mapped.to_owned::<ndarray::Ix2>().unwrap(), a);
    assert_eq!(
        reader.get_array::<u8>("b").unwrap().unwrap().view(),
        b.into_dyn().view()
    );
    assert_eq!(
        reader
            .get_array::<bool>("flags")
            .unwrap()
            .unwrap()
            .view()
            .iter()
            .copied()
            .collect::<Vec<_>>(),
        vec![true, false]
    );
    let err = reader.get_array::<f32>("a").err().unwrap();
    assert!(err.to_string().contains("dtype"), "{err}");
    assert!(reader.get_array::<f64>("missing").unwrap().is_none());
}

#[test]
fn entries_tell_an_arrays_dtype_and_shape() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    cache.put_array("a", &Array2::<f32>::zeros((3, 4))).unwrap();
    cache.put("n", &1u8).unwrap();
    let mut types: Vec<_> = Cache::open(dir.path())
        .unwrap()
        .entries()
        .unwrap()
        .iter()
        .map(|e| (e.key.clone(), e.array_type()))
        .collect();
    types.sort();
    assert_eq!(
        types,
        [
            ("a".to_string(), Some(("<f4".to_string(), vec![3, 4]))),
            ("n".to_string(), None),
        ]
    );
}

/// Large arrays take another write path (around the page cache on
/// Linux); small values appended between them keep their places.
fn large_arrays_round_trip_in(dir: &std::path::Path) {
    let cache = Cache::open(dir).unwrap();
    let a = Array2::from_shape_fn((300, 200), |(i, j)| (i * 1000 + j) as f64);
    let b = ndarray::Array1::from_shape_fn(70_001, |i| i as u32);
    cache.put("before", &"x".repeat(3000)).unwrap();
    cache.put_array("a", &a).unwrap();
    cache.put("between", &"y".repeat(2000)).unwrap();
    cache.put_array("b", &b).unwrap();
    cache.put_array("a-transposed", &a.t().to_owned()).unwrap();
    cache.put("after", &"z".repeat(5000)).unwrap();
    for reader in [&cache, &Cache::open(dir).unwrap()] {
        let mapped = reader.get_array::<f64>("a").unwrap().unwrap();
        assert_eq!(mapped.view(), a.clone().into_dyn().view());
        let mapped = reader.get_array::<u32>("b").unwrap().unwrap();
        assert_eq!(mapped.view(), b.clone().into_dyn().view());
        let mapped = reader.get_array::<f64>("a-transposed").unwrap().unwrap();
        assert_eq!(mapped.view(), a.t().into_dyn());
        assert_eq!(reader.get::<String>("before").unwrap().unwrap().len(), 3000);
        assert_eq!(
            reader.get::<String>("between").unwrap().unwrap(),
            "y".repeat(2000)
        );
        assert_eq!(
            reader.get::<String>("after").unwrap().unwrap(),
            "z".repeat(5000)
        );
    }
}

#[test]
fn large_arrays_round_trip() {
    large_arrays_round_trip_in(tempfile::tempdir().unwrap().path());
}

#[test]
fn large_arrays_round_trip_where_direct_writes_are_refused() {
    // tmpfs has no O_DIRECT: the store falls back to buffered writes.
    let mounts = std::fs::read_to_string("/proc/mounts").unwrap_or_default();
    let tmpfs = mounts
        .lines()
        .map(|line| line.split(' ').collect::<Vec<_>>())
        .filter(|f| f.len() > 3 && f[2] == "tmpfs" && f[3].split(',').any(|o| o == "rw"))
        .find_map(|f| tempfile::tempdir_in(f[1]).ok())
        .expect("no writable tmpfs (such as /dev/shm) to test the buffered fallback on");
    large_arrays_round_trip_in(tmpfs.path());
}

#[test]
fn a_truncated_array_is_a_typed_error_not_a_fault() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    cache
        .put_array("a", &Array2::<f32>::zeros((100, 100)))
        .unwrap();
    let data = dir
        .path()
        .join("data")
        .join(format!("{}.bin", cache.writer_id()));
    std::fs::OpenOptions::new()
        .write(true)
        .open(&data)
        .unwrap()
        .set_len(1000)
        .unwrap();
    let reader = Cache::open(dir.path()).unwrap();
    let err = reader.get_array::<f32>("a").err().unwrap();
    assert!(err.to_string().contains("past its end"), "{err}");
}

#[test]
fn an_empty_array_round_trips_on_every_backend() {
    each_backend(|store| {
        let cache = store.open();
        let empty = Array2::<f32>::zeros((0, 4));
        cache.put_array("empty", &empty).unwrap();
        let read = cache.get_array::<f32>("empty").unwrap().unwrap();
        assert_eq!(read.shape(), [0, 4], "{}", store.name);
        assert_eq!(
            cache.get::<Array2<f32>>("empty").unwrap().unwrap(),
            empty,
            "{}",
            store.name
        );
    });
}

/// No memory maps: over a folder, data files grow in place but reads
/// are ranged, at whatever offset an array has in its file.
struct Unmapped;

impl Hooks for Unmapped {
    fn maps(&self, _: &dyn Backend) -> bool {
        false
    }
}

#[test]
fn arrays_read_from_data_files_that_grow_in_place_without_maps() {
    let dir = tempfile::tempdir().unwrap();
    let backend = Arc::new(Wrapped::new(Arc::new(Folder::new(dir.path())), Unmapped));
    let cache = Cache::open_backend(backend, CacheOptions::default()).unwrap();
    let first = Array1::from(vec![1u8, 2, 3]);
    cache.put_array("first", &first).unwrap();
    cache.put_array("big", &big()).unwrap();
    // Not at the start of the data file, and not mapped.
    let owned: Array2<f64> = cache.get("big").unwrap().unwrap();
    assert_eq!(owned, big());
    let whole = cache.get_array::<f64>("big").unwrap().unwrap();
    assert_eq!(whole.view(), big().into_dyn());
    let rows = cache.get_array_rows::<f64>("big", 7..9).unwrap().unwrap();
    assert_eq!(rows.view(), big().slice(ndarray::s![7..9, ..]).into_dyn());
    assert_eq!(cache.get::<Array1<u8>>("first").unwrap().unwrap(), first);
}

#[test]
fn a_shape_that_does_not_match_the_arrays_bytes_is_a_typed_error() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    cache.put_array("a", &big()).unwrap();
    forge_index_line(dir.path(), &cache, "a", |line| {
        line.replace("[300, 100]", "[300, 101]")
    });
    let reader = Cache::open(dir.path()).unwrap();
    for err in [
        reader.get_array::<f64>("a").err().unwrap(),
        // By rows, only the shape says where a row is.
        reader.get_array_rows::<f64>("a", 0..1).err().unwrap(),
    ] {
        assert!(matches!(err, StoreError::Corrupt { .. }), "{err}");
        assert!(
            err.to_string().contains("does not match its 240000 bytes"),
            "{err}"
        );
    }
}
