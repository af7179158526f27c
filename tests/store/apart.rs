//! Large byte buffers inside a value (arrays' data, byte strings) are kept
//! apart from the rest of it, wherever they sit, and read back from a memory
//! map: the store's `auto` handler.

use std::collections::BTreeMap;

use codec::store::Admin;
use codec::{Cache, CacheOptions, Codec, StoreError};

use crate::fixtures::truncate_data_file;

#[derive(Codec, Debug, Clone, PartialEq)]
#[codec(untagged)]
enum Payload {
    Count(u64),
    Data(Vec<u8>),
}

#[derive(Codec, Debug, Clone, PartialEq)]
#[codec(name = "test.Document")]
struct Document {
    title: String,
    pages: Vec<Page>,
    attachments: BTreeMap<String, Payload>,
    thumbnail: Option<codec::Bytes>,
}

#[derive(Codec, Debug, Clone, PartialEq)]
#[codec(tag = "kind")]
enum Page {
    Scan { dpi: u32, pixels: Vec<u8> },
    Blank,
}

fn bytes(len: usize, seed: u8) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed))
        .collect()
}

fn document(seed: u8) -> Document {
    Document {
        title: format!("document {seed}"),
        pages: vec![
            Page::Scan {
                dpi: 300,
                pixels: bytes(200_000, seed),
            },
            Page::Blank,
            Page::Scan {
                dpi: 72,
                pixels: bytes(100, seed), // small: stays in the value
            },
        ],
        attachments: [
            ("notes".to_owned(), Payload::Count(5)),
            ("raw".to_owned(), Payload::Data(bytes(70_000, seed ^ 1))),
        ]
        .into_iter()
        .collect(),
        thumbnail: Some(codec::Bytes(bytes(65_536, seed ^ 2))),
    }
}

fn entry(cache: &Cache, key: &str) -> codec::store::EntryInfo {
    cache
        .entries()
        .unwrap()
        .into_iter()
        .find(|e| e.key == key)
        .unwrap()
}

#[test]
fn buffers_inside_a_value_are_stored_apart_and_read_back() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    cache.put("doc", &document(7)).unwrap();
    let stored = entry(&cache, "doc");
    assert_eq!(stored.handler, "auto");
    // Three buffers apart (200,000, 70,000 and 65,536 bytes); the rest,
    // small, in the line.
    let refs = match stored.info.get("refs") {
        Some(codec::store::InfoValue::Text(refs)) => refs.clone(),
        other => panic!("{other:?}"),
    };
    assert_eq!(refs.split(',').count(), 3, "{refs}");
    assert!(stored.info.contains_key("data"), "{:?}", stored.info.keys());
    let index =
        std::fs::read(dir.path().join(format!("{}-info.jsonl", cache.writer_id()))).unwrap();
    assert!(index.len() < 2000, "{} bytes of index", index.len());

    // Each buffer lies raw at a 64-byte boundary of the data file.
    let data = std::fs::read(
        dir.path()
            .join("data")
            .join(format!("{}.bin", cache.writer_id())),
    )
    .unwrap();
    let pixels = bytes(200_000, 7);
    let at = data
        .windows(64)
        .position(|w| w == &pixels[..64])
        .expect("pixels in the data file");
    assert_eq!(at % 64, 0);
    assert_eq!(&data[at..at + pixels.len()], &pixels[..]);

    for reader in [&cache, &Cache::open(dir.path()).unwrap()] {
        assert_eq!(reader.get::<Document>("doc").unwrap(), Some(document(7)));
        // Untyped reads get the value's own encoding back.
        assert_eq!(
            reader.get_bytes("doc").unwrap().unwrap(),
            codec::to_msgpack(&document(7)).unwrap()
        );
    }
}

#[test]
fn the_threshold_is_an_option_and_json_mode_keeps_buffers_in_place() {
    let dir = tempfile::tempdir().unwrap();
    let options = CacheOptions::default().apart_min(1 << 20);
    let cache = Cache::open_with(dir.path(), options).unwrap();
    cache.put("doc", &document(1)).unwrap();
    assert_eq!(entry(&cache, "doc").handler, "shared");
    let json = codec::PutOptions::default().mode(codec::store::Mode::Json);
    let cache = Cache::open(dir.path()).unwrap();
    cache.put_with("json", &document(2), &json).unwrap();
    assert_eq!(entry(&cache, "json").handler, "shared");
    cache.put("msgpack", &document(3)).unwrap();
    assert_eq!(entry(&cache, "msgpack").handler, "auto");
    for (key, seed) in [("doc", 1), ("json", 2), ("msgpack", 3)] {
        assert_eq!(cache.get::<Document>(key).unwrap(), Some(document(seed)));
    }
}

#[test]
fn a_value_larger_than_the_line_keeps_its_rest_in_the_data_file() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    let mut doc = document(4);
    doc.title = "t".repeat(5000);
    cache.put("doc", &doc).unwrap();
    let stored = entry(&cache, "doc");
    assert_eq!(stored.handler, "auto");
    assert!(stored.info.contains_key("offset"), "{:?}", stored.info);
    assert_eq!(
        Cache::open(dir.path())
            .unwrap()
            .get::<Document>("doc")
            .unwrap(),
        Some(doc)
    );
}

#[test]
fn compaction_keeps_buffers_apart() {
    let dir = tempfile::tempdir().unwrap();
    let stored = {
        let cache = Cache::open(dir.path()).unwrap();
        cache.put("doc", &document(5)).unwrap();
        entry(&cache, "doc")
    };
    Admin::compact(dir.path(), &[], |_, _| {}).unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    let rewritten = entry(&cache, "doc");
    assert_eq!(rewritten.handler, "auto");
    assert_ne!(rewritten.info, stored.info);
    assert_eq!(rewritten.info["refs"], stored.info["refs"]);
    assert_eq!(cache.get::<Document>("doc").unwrap(), Some(document(5)));
}

#[test]
fn a_truncated_buffer_is_a_typed_error_for_its_entry_only() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    cache.put("first", &document(1)).unwrap();
    cache.put("second", &document(2)).unwrap();
    truncate_data_file(dir.path(), &cache, 1000);
    let reader = Cache::open(dir.path()).unwrap();
    assert_eq!(reader.get::<Document>("first").unwrap(), Some(document(1)));
    for err in [
        reader.get::<Document>("second").unwrap_err(),
        reader.get_bytes("second").unwrap_err(),
    ] {
        assert!(
            matches!(err, StoreError::Corrupt { ref key, .. } if key == "second"),
            "{err}"
        );
        assert!(err.to_string().contains("past its end"), "{err}");
    }
}

#[cfg(feature = "ndarray")]
#[test]
fn arrays_inside_a_value_are_stored_apart() {
    #[derive(Codec, Debug, Clone, PartialEq)]
    #[codec(name = "test.Embeddings")]
    struct Embeddings {
        ids: Vec<String>,
        vectors: ndarray::Array2<f32>,
        norms: ndarray::Array1<f64>,
    }
    let value = Embeddings {
        ids: (0..100).map(|i| format!("chunk-{i}")).collect(),
        vectors: ndarray::Array2::from_shape_fn((100, 384), |(i, j)| (i * j) as f32 * 0.5),
        norms: ndarray::Array1::from_shape_fn(10_000, |i| i as f64),
    };
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    cache.put("emb", &value).unwrap();
    assert_eq!(entry(&cache, "emb").handler, "auto");
    let reader = Cache::open(dir.path()).unwrap();
    assert_eq!(reader.get::<Embeddings>("emb").unwrap(), Some(value));
}

/// Writes a buffer inside an array whose header it then widens through
/// `buffer_mut`, moving the buffer after it was written.
mod backpatched {
    use codec::{DecodeError, EncodeError, JsonReader, JsonWriter, MsgpackReader, MsgpackWriter};

    pub fn encode_msgpack(v: &[u8], w: &mut MsgpackWriter) -> Result<(), EncodeError> {
        let start = w.as_slice().len();
        w.write_array_len(1)?;
        w.write_bin(v)?;
        w.buffer_mut().splice(start..start + 1, [0xdc, 0, 1]); // array16 of 1
        Ok(())
    }

    pub fn decode_msgpack(r: &mut MsgpackReader<'_>) -> Result<Vec<u8>, DecodeError> {
        r.read_array_len()?;
        Ok(r.read_bin()?.to_vec())
    }

    pub fn encode_json(v: &Vec<u8>, w: &mut JsonWriter) -> Result<(), EncodeError> {
        codec::Encode::encode_json(v, w)
    }

    pub fn decode_json(r: &mut JsonReader<'_>) -> Result<Vec<u8>, DecodeError> {
        codec::Decode::decode_json(r)
    }

    pub fn json_schema<T: codec::Codec>(
        g: &mut codec::schemars::SchemaGenerator,
    ) -> codec::schemars::Schema {
        T::json_schema(g)
    }
}

#[test]
fn buffers_an_encoder_moved_are_stored_in_place() {
    #[derive(Codec, Debug, PartialEq)]
    #[codec(name = "test.Moved")]
    struct Moved {
        #[codec(with = "backpatched")]
        data: Vec<u8>,
        tail: Vec<u8>,
    }
    let value = Moved {
        data: bytes(100_000, 3),
        tail: bytes(70_000, 4),
    };
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    cache.put("moved", &value).unwrap();
    assert_eq!(entry(&cache, "moved").handler, "auto");
    let reader = Cache::open(dir.path()).unwrap();
    assert_eq!(reader.get::<Moved>("moved").unwrap(), Some(value));
}

#[cfg(feature = "ndarray")]
#[test]
fn mapped_array_fields_view_the_data_file() {
    use codec::store::MappedArray;

    #[derive(Codec, Debug, PartialEq)]
    #[codec(name = "test.Index")]
    struct Index {
        name: String,
        vectors: MappedArray<f32>,
        small: MappedArray<u16>,
    }
    let vectors = ndarray::Array2::from_shape_fn((256, 128), |(i, j)| (i + j) as f32);
    let small = ndarray::Array1::from_shape_fn(10, |i| i as u16);
    let value = Index {
        name: "index".into(),
        vectors: MappedArray::from_array(&vectors),
        small: MappedArray::from_array(&small),
    };
    assert!(!value.vectors.is_mapped());
    // Encoded as the ndarray arrays are: either type reads the other.
    let bytes = codec::to_msgpack(&value.vectors).unwrap();
    assert_eq!(
        bytes,
        codec::to_msgpack(&vectors.clone().into_dyn()).unwrap()
    );
    let back: ndarray::ArrayD<f32> = codec::from_msgpack(&bytes).unwrap();
    assert_eq!(back, vectors.clone().into_dyn());
    let json = codec::to_json(&value).unwrap();
    assert_eq!(codec::from_json::<Index>(&json).unwrap(), value);
    assert_eq!(
        codec::from_msgpack::<Index>(&codec::to_msgpack(&value).unwrap()).unwrap(),
        value
    );

    let dir = tempfile::tempdir().unwrap();
    Cache::open(dir.path())
        .unwrap()
        .put("index", &value)
        .unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    let read: Index = cache.get("index").unwrap().unwrap();
    assert!(
        read.vectors.is_mapped(),
        "128 KiB of data: kept apart, viewed"
    );
    assert!(!read.small.is_mapped(), "20 bytes: in the payload, copied");
    assert_eq!(read, value);
    assert_eq!(read.vectors.to_owned::<ndarray::Ix2>().unwrap(), vectors);
    // The view outlives the handle: it holds the map.
    drop(cache);
    assert_eq!(read.vectors.view()[[255, 127]], 382.0);
}
