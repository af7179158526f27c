//! One way to store an array: whether put with `put` or `put_array`, an
//! ndarray array reads back as a `MappedArray` (viewing the data file's
//! map when its data lies apart), as an `Array` of its dtype and any
//! dimension that fits its shape, and through `get_array`.

use codec::store::MappedArray;
use codec::{Cache, StoreError};
use ndarray::{Array1, Array2, ArrayD, Ix2};

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
