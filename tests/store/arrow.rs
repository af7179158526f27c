//! Arrow tables in the store: `RecordBatch` and `Vec<RecordBatch>` as
//! Arrow IPC in the data file, read back without copying from its map.

use std::sync::Arc;

use arrow_array::types::*;
use arrow_array::{
    Array, ArrayRef, ArrowPrimitiveType, BinaryArray, BooleanArray, DictionaryArray,
    FixedSizeBinaryArray, Int64Array, LargeBinaryArray, LargeStringArray, ListArray,
    PrimitiveArray, RecordBatch, StringArray, StructArray,
};
use arrow_buffer::ArrowNativeType;
use arrow_schema::{DataType, Field};
use codec::store::Admin;
use codec::store::TableInfo;
use codec::{Cache, PutOptions, StoreError};

const ROWS: usize = 100;

/// Row `i` is null when `i % 7 == 3`.
fn null_at(i: usize) -> bool {
    i % 7 == 3
}

fn primitive<T: ArrowPrimitiveType>() -> ArrayRef {
    let values = (0..ROWS).map(|i| (!null_at(i)).then(|| T::Native::usize_as(i % 50)));
    Arc::new(PrimitiveArray::<T>::from_iter(values))
}

/// A column of every primitive type, with nulls.
fn primitives() -> RecordBatch {
    let columns: Vec<(&str, ArrayRef)> = vec![
        ("i8", primitive::<Int8Type>()),
        ("i16", primitive::<Int16Type>()),
        ("i32", primitive::<Int32Type>()),
        ("i64", primitive::<Int64Type>()),
        ("u8", primitive::<UInt8Type>()),
        ("u16", primitive::<UInt16Type>()),
        ("u32", primitive::<UInt32Type>()),
        ("u64", primitive::<UInt64Type>()),
        ("f16", primitive::<Float16Type>()),
        ("f32", primitive::<Float32Type>()),
        ("f64", primitive::<Float64Type>()),
        ("date32", primitive::<Date32Type>()),
        ("date64", primitive::<Date64Type>()),
        ("time32s", primitive::<Time32SecondType>()),
        ("time32ms", primitive::<Time32MillisecondType>()),
        ("time64us", primitive::<Time64MicrosecondType>()),
        ("time64ns", primitive::<Time64NanosecondType>()),
        ("ts_s", primitive::<TimestampSecondType>()),
        ("ts_ms", primitive::<TimestampMillisecondType>()),
        ("ts_us", primitive::<TimestampMicrosecondType>()),
        ("ts_ns", primitive::<TimestampNanosecondType>()),
        ("dur_s", primitive::<DurationSecondType>()),
        ("dur_ms", primitive::<DurationMillisecondType>()),
        ("dur_us", primitive::<DurationMicrosecondType>()),
        ("dur_ns", primitive::<DurationNanosecondType>()),
        ("interval_ym", primitive::<IntervalYearMonthType>()),
        ("interval_dt", primitive::<IntervalDayTimeType>()),
        ("interval_mdn", primitive::<IntervalMonthDayNanoType>()),
        ("dec32", primitive::<Decimal32Type>()),
        ("dec64", primitive::<Decimal64Type>()),
        ("dec128", primitive::<Decimal128Type>()),
        ("dec256", primitive::<Decimal256Type>()),
        (
            "bool",
            Arc::new(BooleanArray::from_iter(
                (0..ROWS).map(|i| (!null_at(i)).then_some(i % 2 == 0)),
            )),
        ),
    ];
    RecordBatch::try_from_iter(columns).unwrap()
}

/// Strings, binaries, nested lists, a struct and a dictionary, with nulls.
fn nested() -> RecordBatch {
    let text = |i: usize| (!null_at(i)).then(|| format!("row {i} ✓"));
    let strings = StringArray::from_iter((0..ROWS).map(text));
    let large_strings = LargeStringArray::from_iter((0..ROWS).map(text));
    let bytes =
        BinaryArray::from_iter((0..ROWS).map(|i| (!null_at(i)).then(|| vec![i as u8; i % 5])));
    let large_bytes =
        LargeBinaryArray::from_iter((0..ROWS).map(|i| (!null_at(i)).then(|| vec![i as u8; 3])));
    let fixed = FixedSizeBinaryArray::try_from_sparse_iter_with_size(
        (0..ROWS).map(|i| (!null_at(i)).then_some([i as u8; 4])),
        4,
    )
    .unwrap();
    let list = ListArray::from_iter_primitive::<Int32Type, _, _>((0..ROWS).map(|i| {
        (!null_at(i)).then(|| {
            (0..i % 4)
                .map(|j| (j != 1).then_some(j as i32))
                .collect::<Vec<_>>()
        })
    }));
    // A list of lists of strings.
    let inner = ListArray::from_iter_primitive::<Int64Type, _, _>(
        (0..ROWS * 2).map(|i| Some(vec![Some(i as i64); i % 3])),
    );
    let offsets = arrow_buffer::OffsetBuffer::from_lengths((0..ROWS).map(|_| 2));
    let nested_list = ListArray::new(
        Arc::new(Field::new("item", inner.data_type().clone(), true)),
        offsets,
        Arc::new(inner),
        Some((0..ROWS).map(|i| !null_at(i)).collect()),
    );
    let structs = StructArray::from(vec![
        (
            Arc::new(Field::new("a", DataType::Int32, true)),
            primitive::<Int32Type>(),
        ),
        (
            Arc::new(Field::new("b", DataType::Utf8, true)),
            Arc::new(StringArray::from_iter((0..ROWS).map(text))) as ArrayRef,
        ),
    ]);
    let dictionary: DictionaryArray<Int16Type> = (0..ROWS)
        .map(|i| (!null_at(i)).then_some(["red", "green", "blue"][i % 3]))
        .collect();
    RecordBatch::try_from_iter(vec![
        ("utf8", Arc::new(strings) as ArrayRef),
        ("large_utf8", Arc::new(large_strings)),
        ("binary", Arc::new(bytes)),
        ("large_binary", Arc::new(large_bytes)),
        ("fixed", Arc::new(fixed)),
        ("list", Arc::new(list)),
        ("list_of_lists", Arc::new(nested_list)),
        ("struct", Arc::new(structs)),
        ("dictionary", Arc::new(dictionary)),
    ])
    .unwrap()
}

/// The address ranges where `file` is memory-mapped in this process.
fn mapped_ranges(file: &std::path::Path) -> Vec<(usize, usize)> {
    let maps = std::fs::read_to_string("/proc/self/maps").unwrap();
    let file = file.to_str().unwrap();
    maps.lines()
        .filter(|line| line.ends_with(file))
        .map(|line| {
            let range = line.split(' ').next().unwrap();
            let (start, end) = range.split_once('-').unwrap();
            let hex = |s| usize::from_str_radix(s, 16).unwrap();
            (hex(start), hex(end))
        })
        .collect()
}

/// Every non-empty buffer of `data` and its children: address and length.
fn buffers(data: &arrow_data::ArrayData, out: &mut Vec<(usize, usize)>) {
    for buffer in data.buffers() {
        out.push((buffer.as_ptr() as usize, buffer.len()));
    }
    if let Some(nulls) = data.nulls() {
        out.push((nulls.buffer().as_ptr() as usize, nulls.buffer().len()));
    }
    for child in data.child_data() {
        buffers(child, out);
    }
}

/// Asserts that every buffer of `batch` lies in a memory map of the
/// cache's data file: nothing was copied.
fn assert_zero_copy(cache: &Cache, key: &str, batch: &RecordBatch) {
    let entry = cache
        .entries()
        .unwrap()
        .into_iter()
        .find(|e| e.key == key)
        .unwrap();
    let Some(codec::store::InfoValue::Text(file)) = entry.info.get("file") else {
        panic!("no file in {:?}", entry.info);
    };
    let ranges = mapped_ranges(&cache.dir().unwrap().join("data").join(file));
    assert!(!ranges.is_empty(), "{file} is not mapped");
    let mut all = Vec::new();
    for column in batch.columns() {
        buffers(&column.to_data(), &mut all);
    }
    for (ptr, len) in all.into_iter().filter(|&(_, len)| len > 0) {
        assert!(
            ranges
                .iter()
                .any(|&(start, end)| start <= ptr && ptr + len <= end),
            "a buffer of {len} bytes at {ptr:#x} is not in the map of {file}: {ranges:x?}"
        );
    }
}

#[test]
fn every_primitive_type_with_nulls_reads_back_equal_and_zero_copy() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    let batch = primitives();
    cache.put("t", &batch).unwrap();
    let read: RecordBatch = cache.get("t").unwrap().unwrap();
    assert_eq!(read, batch);
    assert_zero_copy(&cache, "t", &read);
    // Another handle reads it too.
    let other = Cache::open(dir.path()).unwrap();
    assert_eq!(other.get::<RecordBatch>("t").unwrap().unwrap(), batch);
}

#[test]
fn strings_binaries_nested_lists_structs_and_dictionaries_read_back_equal_and_zero_copy() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    let batch = nested();
    cache.put("t", &batch).unwrap();
    let read: RecordBatch = cache.get("t").unwrap().unwrap();
    assert_eq!(read, batch);
    assert_zero_copy(&cache, "t", &read);
}

#[test]
fn the_entry_info_holds_the_schema_and_row_count() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    let batch = RecordBatch::try_from_iter([
        (
            "id",
            Arc::new(PrimitiveArray::<Int64Type>::from(vec![1, 2, 3])) as ArrayRef,
        ),
        (
            "name",
            Arc::new(StringArray::from(vec![Some("a"), None, Some("c")])),
        ),
    ])
    .unwrap();
    cache.put("t", &batch).unwrap();
    let entry = cache.entries().unwrap().remove(0);
    assert_eq!(entry.handler, "arrow");
    assert_eq!(entry.type_name.as_deref(), Some("arrow.RecordBatch"));
    assert_eq!(
        entry.table(),
        Some(TableInfo {
            rows: 3,
            batches: 1,
            schema: "id: Int64, name: Utf8?".into()
        })
    );
}

#[test]
fn a_list_of_batches_of_one_schema_is_one_entry() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    let batches = vec![primitives(), primitives().slice(10, 20), primitives()];
    cache.put("ts", &batches).unwrap();
    let read: Vec<RecordBatch> = cache.get("ts").unwrap().unwrap();
    assert_eq!(read, batches);
    let table = cache.entries().unwrap()[0].table().unwrap();
    assert_eq!((table.rows, table.batches), (220, 3));

    cache.put("none", &Vec::<RecordBatch>::new()).unwrap();
    assert_eq!(cache.get::<Vec<RecordBatch>>("none").unwrap(), Some(vec![]));

    let err = cache
        .put("mixed", &vec![primitives(), nested()])
        .unwrap_err();
    assert!(
        matches!(&err, StoreError::Handler { key, handler, .. } if key == "mixed" && handler == "arrow-batches"),
        "{err}"
    );
    assert!(
        err.to_string().contains("batch 1 has another schema"),
        "{err}"
    );
}

#[test]
fn a_table_survives_compaction_and_reads_as_bytes() {
    let dir = tempfile::tempdir().unwrap();
    {
        let cache = Cache::open(dir.path()).unwrap();
        cache.put("t", &nested()).unwrap();
        cache.put("t", &primitives()).unwrap();
        // Its bytes are the MessagePack `bin` of an Arrow IPC file.
        let bytes = cache.get_bytes("t").unwrap().unwrap();
        let decoded: RecordBatch = codec::from_msgpack(&bytes).unwrap();
        assert_eq!(decoded, primitives());
    }
    Admin::compact(dir.path(), &[], |_, _| {}).unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    assert_eq!(cache.entries().unwrap()[0].handler, "arrow");
    let read: RecordBatch = cache.get("t").unwrap().unwrap();
    assert_eq!(read, primitives());
    assert_zero_copy(&cache, "t", &read);
}

#[test]
fn a_table_inside_a_value_or_in_raw_mode_is_an_arrow_file() {
    #[derive(codec::Codec, Debug, PartialEq)]
    #[codec(name = "test.Report")]
    struct Report {
        title: String,
        table: RecordBatch,
    }
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    let report = Report {
        title: "q3".into(),
        table: primitives(),
    };
    cache.put("r", &report).unwrap();
    assert_eq!(cache.get::<Report>("r").unwrap(), Some(report));

    let raw = PutOptions::default().mode(codec::store::Mode::Raw);
    cache.put_with("raw", &primitives(), &raw).unwrap();
    let bytes = cache.get_bytes("raw").unwrap().unwrap();
    assert_eq!(&bytes[..6], b"ARROW1");
}

#[test]
fn a_damaged_arrow_file_is_a_typed_error() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    cache.put("t", &primitives()).unwrap();
    let entry = cache.entries().unwrap().remove(0);
    let Some(codec::store::InfoValue::Text(file)) = entry.info.get("file") else {
        panic!()
    };
    let path = dir.path().join("data").join(file);
    let mut bytes = std::fs::read(&path).unwrap();
    let len = bytes.len();
    // Garble the footer (the schema and the blocks' places).
    for b in &mut bytes[len - 200..len - 10] {
        *b = 0xff;
    }
    std::fs::write(&path, &bytes).unwrap();
    let reader = Cache::open(dir.path()).unwrap();
    let err = reader.get::<RecordBatch>("t").unwrap_err();
    assert!(matches!(err, StoreError::Corrupt { .. }), "{err}");
    assert!(err.to_string().contains("Arrow file"), "{err}");
}

/// Found by the `arrow_ipc` fuzz target: a byte of a record batch's
/// message changed (a buffer's offset) makes arrow's reader slice a
/// buffer past its end, which panics inside arrow; the store reads it as
/// a damaged file.
#[test]
fn an_arrow_file_on_which_arrows_reader_panics_is_a_typed_error() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    let batch = |n: i64| {
        RecordBatch::try_from_iter([
            ("id", Arc::new(Int64Array::from(vec![n, n + 1])) as ArrayRef),
            (
                "name",
                Arc::new(StringArray::from(vec![Some("a"), None])) as ArrayRef,
            ),
        ])
        .unwrap()
    };
    cache.put("t", &vec![batch(1), batch(5)]).unwrap();
    let entry = cache.entries().unwrap().remove(0);
    let (Some(codec::store::InfoValue::Text(file)), Some(codec::store::InfoValue::Int(offset))) =
        (entry.info.get("file"), entry.info.get("offset"))
    else {
        panic!("{:?}", entry.info)
    };
    let path = dir.path().join("data").join(file);
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[*offset as usize + 385] = 14;
    std::fs::write(&path, &bytes).unwrap();
    let reader = Cache::open(dir.path()).unwrap();
    let err = reader.get::<Vec<RecordBatch>>("t").unwrap_err();
    assert!(matches!(err, StoreError::Corrupt { .. }), "{err}");
}
