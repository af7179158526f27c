//! Hostile input: whatever the bytes, decoding returns a value or a typed
//! error: never a panic, a stack overflow, or an allocation far beyond the
//! input's size. Every test runs on the default 2 MiB test thread stack.

use std::alloc::{GlobalAlloc, Layout, System};
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::SystemTime;

use codec::{Codec, DecodeErrorKind, DecodeOptions};

/// Counts the bytes allocated by the current test's largest single request.
struct Counting;

static LARGEST: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards to the system allocator; only records request sizes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LARGEST.fetch_max(layout.size(), Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LARGEST.fetch_max(new_size, Ordering::Relaxed);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

fn kind<T: Codec + std::fmt::Debug>(bytes: &[u8]) -> DecodeErrorKind {
    codec::from_msgpack::<T>(bytes).unwrap_err().kind().clone()
}

fn json_kind<T: Codec + std::fmt::Debug>(text: &str) -> DecodeErrorKind {
    codec::from_json::<T>(text).unwrap_err().kind().clone()
}

#[derive(Codec, Debug, PartialEq, Clone)]
struct Item {
    id: u32,
    name: String,
}

#[derive(Codec, Debug, PartialEq, Clone)]
enum Chain {
    Link { next: Box<Chain> },
    End,
}

#[derive(Codec, Debug, PartialEq, Clone)]
#[codec(untagged)]
enum Tree {
    Leaf(u32),
    Node(Vec<Tree>),
}

#[derive(Codec, Debug, PartialEq)]
struct T(Option<Box<T>>);

#[derive(Codec, Debug, PartialEq)]
#[codec(array_like, deny_unknown_fields)]
struct Row {
    a: u8,
    b: u8,
}

#[test]
fn huge_length_prefixes_without_data_allocate_nothing_large() {
    LARGEST.store(0, Ordering::Relaxed);
    assert!(matches!(
        kind::<Vec<u64>>(&[0xdd, 0xff, 0xff, 0xff, 0xff]),
        DecodeErrorKind::UnexpectedEof { .. }
    ));
    assert!(matches!(
        kind::<HashMap<String, u8>>(&[0xdf, 0xff, 0xff, 0xff, 0xff]),
        DecodeErrorKind::UnexpectedEof { .. }
    ));
    assert!(matches!(
        kind::<Vec<u8>>(&[0xc6, 0xff, 0xff, 0xff, 0xff]),
        DecodeErrorKind::UnexpectedEof { .. }
    ));
    assert!(matches!(
        kind::<Item>(&[0xdf, 0xff, 0xff, 0xff, 0xff]),
        DecodeErrorKind::UnexpectedEof { .. }
    ));
    assert!(matches!(
        kind::<String>(&[0xdb, 0xff, 0xff, 0xff, 0xff]),
        DecodeErrorKind::UnexpectedEof { .. }
    ));
    assert!(
        LARGEST.load(Ordering::Relaxed) < 1 << 20,
        "allocated {}",
        LARGEST.load(Ordering::Relaxed)
    );
}

#[test]
fn deep_nesting_hits_the_depth_limit_not_the_stack() {
    let deep_arrays = [vec![0x91u8; 100_000], vec![0x00]].concat();
    assert!(matches!(
        kind::<Tree>(&deep_arrays),
        DecodeErrorKind::DepthLimitExceeded { limit: 128 }
    ));
    let json = "[".repeat(100_000) + &"]".repeat(100_000);
    assert!(matches!(
        json_kind::<Tree>(&json),
        DecodeErrorKind::DepthLimitExceeded { .. }
    ));
    // A 100,000-deep chain of a recursive tagged enum: {"type":"Link","next":{...}}.
    let link = codec::to_msgpack(&Chain::Link {
        next: Box::new(Chain::End),
    })
    .unwrap();
    let prefix = &link[..link.len() - codec::to_msgpack(&Chain::End).unwrap().len()];
    let mut chain = prefix.repeat(100_000);
    chain.extend(codec::to_msgpack(&Chain::End).unwrap());
    assert!(matches!(
        kind::<Chain>(&chain),
        DecodeErrorKind::DepthLimitExceeded { .. }
    ));
    let json_chain =
        r#"{"type":"Link","next":"#.repeat(100_000) + r#"{"type":"End"}"# + &"}".repeat(100_000);
    assert!(matches!(
        json_kind::<Chain>(&json_chain),
        DecodeErrorKind::DepthLimitExceeded { .. }
    ));
    // Skipping unknown deep values is bounded too.
    let mut unknown = vec![0x81, 0xa1, b'x'];
    unknown.extend(vec![0x91; 100_000]);
    unknown.push(0);
    assert!(matches!(
        kind::<Item>(&unknown),
        DecodeErrorKind::DepthLimitExceeded { limit: 128 }
    ));
    let unknown_json = format!(r#"{{"x":{}{}}}"#, "[".repeat(100_000), "]".repeat(100_000));
    assert!(matches!(
        json_kind::<Item>(&unknown_json),
        DecodeErrorKind::DepthLimitExceeded { limit: 128 }
    ));
}

/// `Tree::Node` nested `n` deep around a leaf.
fn tree(n: usize) -> Tree {
    (0..n).fold(Tree::Leaf(1), |inner, _| Tree::Node(vec![inner]))
}

/// The same nesting as [`tree`], as MessagePack and as JSON.
fn nested(n: usize) -> (Vec<u8>, String) {
    let bytes = [vec![0x91; n], vec![0x01]].concat();
    (bytes, "[".repeat(n) + "1" + &"]".repeat(n))
}

/// An `Item` with an unknown field `x` holding arrays nested `n` deep, and
/// the item without it.
fn item_with_unknown(n: usize) -> (Vec<u8>, String, Item) {
    let mut bytes = vec![0x83, 0xa1, b'x'];
    bytes.extend(vec![0x91; n]);
    bytes.extend([
        0x01, 0xa2, b'i', b'd', 0x07, 0xa4, b'n', b'a', b'm', b'e', 0xa1, b'n',
    ]);
    let text = format!(
        r#"{{"x":{}1{},"id":7,"name":"n"}}"#,
        "[".repeat(n),
        "]".repeat(n)
    );
    let item = Item {
        id: 7,
        name: "n".into(),
    };
    (bytes, text, item)
}

#[test]
fn depth_limit_is_128_in_both_formats_and_configurable() {
    let (bytes, text) = nested(128);
    assert_eq!(codec::from_msgpack::<Tree>(&bytes).unwrap(), tree(128));
    assert_eq!(codec::from_json::<Tree>(&text).unwrap(), tree(128));
    let (bytes, text) = nested(129);
    assert!(matches!(
        kind::<Tree>(&bytes),
        DecodeErrorKind::DepthLimitExceeded { limit: 128 }
    ));
    assert!(matches!(
        json_kind::<Tree>(&text),
        DecodeErrorKind::DepthLimitExceeded { limit: 128 }
    ));
    let options = DecodeOptions::new().depth_limit(8);
    let (bytes, text) = nested(8);
    assert_eq!(options.from_msgpack::<Tree>(&bytes).unwrap(), tree(8));
    assert_eq!(options.from_json::<Tree>(&text).unwrap(), tree(8));
    let (bytes, text) = nested(9);
    let refused = |e: codec::DecodeError| {
        matches!(e.kind(), DecodeErrorKind::DepthLimitExceeded { limit: 8 })
    };
    assert!(refused(options.from_msgpack::<Tree>(&bytes).unwrap_err()));
    assert!(refused(options.from_json::<Tree>(&text).unwrap_err()));
}

#[test]
fn only_depth_counts_not_width() {
    // A thousand sibling collections, each one level: the limit is never near.
    let wide = vec![vec![1u16, 2]; 1000];
    let bytes = codec::to_msgpack(&wide).unwrap();
    assert_eq!(codec::from_msgpack::<Vec<Vec<u16>>>(&bytes).unwrap(), wide);
    let text = codec::to_json(&wide).unwrap();
    assert_eq!(codec::from_json::<Vec<Vec<u16>>>(&text).unwrap(), wide);
    // Siblings skipped as unknown values, too: 200 fields, each 100 deep.
    let (_, _, item) = item_with_unknown(0);
    let bytes = [
        vec![0xde, 0x00, 202],
        (0..200u8)
            .flat_map(|i| [vec![0xa2, b'x', i], vec![0x91; 100], vec![0x01]].concat())
            .collect(),
        vec![
            0xa2, b'i', b'd', 0x07, 0xa4, b'n', b'a', b'm', b'e', 0xa1, b'n',
        ],
    ]
    .concat();
    let fields: String = (0..200)
        .map(|i| format!(r#""x{i}":{}1{},"#, "[".repeat(100), "]".repeat(100)))
        .collect();
    let text = format!(r#"{{{fields}"id":7,"name":"n"}}"#);
    assert_eq!(codec::from_msgpack::<Item>(&bytes).unwrap(), item);
    assert_eq!(codec::from_json::<Item>(&text).unwrap(), item);
}

#[test]
fn skipped_unknown_values_count_against_the_depth_limit_in_both_formats() {
    // The item is one level: 127 more fit inside it.
    let (bytes, text, item) = item_with_unknown(127);
    assert_eq!(codec::from_msgpack::<Item>(&bytes).unwrap(), item);
    assert_eq!(codec::from_json::<Item>(&text).unwrap(), item);
    let (bytes, text, _) = item_with_unknown(128);
    assert!(matches!(
        kind::<Item>(&bytes),
        DecodeErrorKind::DepthLimitExceeded { limit: 128 }
    ));
    assert!(matches!(
        json_kind::<Item>(&text),
        DecodeErrorKind::DepthLimitExceeded { limit: 128 }
    ));
    let options = DecodeOptions::new().depth_limit(4);
    let (bytes, text, item) = item_with_unknown(3);
    assert_eq!(options.from_msgpack::<Item>(&bytes).unwrap(), item);
    assert_eq!(options.from_json::<Item>(&text).unwrap(), item);
    let (bytes, text, _) = item_with_unknown(4);
    let refused = |e: codec::DecodeError| {
        matches!(e.kind(), DecodeErrorKind::DepthLimitExceeded { limit: 4 })
    };
    assert!(refused(options.from_msgpack::<Item>(&bytes).unwrap_err()));
    assert!(refused(options.from_json::<Item>(&text).unwrap_err()));
    // Empty collections count too, as decoding them would.
    let mut empty = vec![0x81, 0xa1, b'x'];
    empty.extend(vec![0x91; 127]);
    empty.push(0x90);
    assert!(matches!(
        kind::<Item>(&empty),
        DecodeErrorKind::DepthLimitExceeded { limit: 128 }
    ));
}

#[test]
fn recursion_without_input_is_bounded() {
    assert_eq!(codec::from_msgpack::<T>(&[0xc0]).unwrap(), T(None));
    assert!(matches!(
        kind::<T>(&[0x01]),
        DecodeErrorKind::DepthLimitExceeded { .. } | DecodeErrorKind::InvalidType { .. }
    ));
    assert!(codec::from_json::<T>("1").is_err());
}

#[test]
fn input_size_limit_applies_to_both_formats() {
    let limited = DecodeOptions::new().max_input(4);
    assert_eq!(limited.from_msgpack::<u8>(&[1]).unwrap(), 1);
    assert_eq!(limited.from_json::<Vec<u16>>("[1]").unwrap(), vec![1]);
    let err = limited.from_json::<Vec<u16>>("[1, 2, 3]").unwrap_err();
    assert!(err.to_string().contains("larger than the limit"), "{err}");
    let err = limited
        .from_msgpack::<Vec<u16>>(&[0x94, 1, 2, 3, 4])
        .unwrap_err();
    assert!(err.to_string().contains("larger than the limit"), "{err}");
}

#[test]
fn trailing_garbage_is_refused() {
    let mut bytes = codec::to_msgpack(&Item {
        id: 1,
        name: "a".into(),
    })
    .unwrap();
    bytes.push(0xc0);
    assert!(matches!(
        kind::<Item>(&bytes),
        DecodeErrorKind::TrailingBytes { count: 1 }
    ));
    assert!(matches!(
        json_kind::<Item>(r#"{"id":1,"name":"a"} x"#),
        DecodeErrorKind::TrailingBytes { .. }
    ));
}

#[test]
fn every_truncation_is_an_error() {
    let values = [
        Item {
            id: 70_000,
            name: "a longer name with ✓".into(),
        },
        Item {
            id: 0,
            name: String::new(),
        },
    ];
    for v in &values {
        let bytes = codec::to_msgpack(v).unwrap();
        for len in 0..bytes.len() {
            assert!(codec::from_msgpack::<Item>(&bytes[..len]).is_err(), "{len}");
        }
        let text = codec::to_json(v).unwrap();
        for len in 0..text.len() {
            if text.is_char_boundary(len) {
                assert!(codec::from_json::<Item>(&text[..len]).is_err(), "{len}");
            }
        }
    }
    let chain = codec::to_msgpack(&Chain::Link {
        next: Box::new(Chain::End),
    })
    .unwrap();
    for len in 0..chain.len() {
        assert!(codec::from_msgpack::<Chain>(&chain[..len]).is_err());
    }
}

#[test]
fn invalid_utf8_in_strings_and_field_names() {
    assert!(matches!(
        kind::<String>(&[0xa2, 0xff, 0xfe]),
        DecodeErrorKind::InvalidUtf8
    ));
    // A field name that is not UTF-8 is an unknown field, skipped.
    let bytes = [
        0x83, 0xa2, b'i', b'd', 0x01, 0xa4, b'n', b'a', b'm', b'e', 0xa0, 0xa1, 0xff, 0xc0,
    ];
    assert_eq!(
        codec::from_msgpack::<Item>(&bytes).unwrap(),
        Item {
            id: 1,
            name: String::new()
        }
    );
    let err = codec::from_json_slice::<String>(b"\"\xff\"").unwrap_err();
    assert!(matches!(err.kind(), DecodeErrorKind::InvalidUtf8));
}

#[test]
fn reserved_marker_and_wrong_types() {
    assert!(codec::from_msgpack::<u8>(&[0xc1]).is_err());
    assert!(codec::from_msgpack::<Tree>(&[0xc1]).is_err());
    let e = codec::from_msgpack::<Item>(&[0x81, 0xa1, b'x', 0xc1]).unwrap_err();
    assert!(e.to_string().contains("reserved"), "{e}");
    assert!(matches!(
        kind::<u8>(&[0xcd, 0x01, 0x2c]),
        DecodeErrorKind::IntOutOfRange { target: "u8", .. }
    ));
    assert!(matches!(
        json_kind::<u64>("18446744073709551616"),
        DecodeErrorKind::IntOutOfRange { .. }
    ));
    assert!(matches!(
        json_kind::<u32>("-1"),
        DecodeErrorKind::IntOutOfRange { .. }
    ));
    assert!(matches!(
        kind::<u32>(&[0xcb, 0x3f, 0xf8, 0, 0, 0, 0, 0, 0]),
        DecodeErrorKind::InvalidType { .. }
    ));
    assert!(matches!(
        json_kind::<u32>("1.5"),
        DecodeErrorKind::InvalidType { .. }
    ));
    assert!(matches!(
        json_kind::<Item>(r#"{"id":1,"id":2,"name":""}"#),
        DecodeErrorKind::DuplicateField { field: "id" }
    ));
    assert!(matches!(
        json_kind::<Row>("[1]"),
        DecodeErrorKind::InvalidLength { .. }
    ));
    assert!(matches!(
        json_kind::<Row>("[1,2,3]"),
        DecodeErrorKind::InvalidLength { .. }
    ));
    assert!(matches!(
        json_kind::<Chain>(r#"{"type":"Nope"}"#),
        DecodeErrorKind::UnknownTag { .. }
    ));
    assert!(matches!(
        json_kind::<Chain>(r#"{"next":1}"#),
        DecodeErrorKind::MissingTag { .. }
    ));
    assert!(matches!(
        json_kind::<Chain>(r#"{"type":1}"#),
        DecodeErrorKind::InvalidType { .. }
    ));
}

#[test]
fn json_oddities() {
    for bad in [
        "NaN",
        "Infinity",
        "-Infinity",
        "01",
        "1.",
        ".5",
        "1e",
        "--1",
        "+1",
    ] {
        assert!(codec::from_json::<f64>(bad).is_err(), "{bad}");
    }
    assert!(codec::from_json::<String>(r#""\ud800""#).is_err());
    assert!(codec::from_json::<String>(r#""\udc00\ud800""#).is_err());
    assert_eq!(
        codec::from_json::<String>(r#""\ud834\udd1e""#).unwrap(),
        "𝄞"
    );
    assert!(codec::from_json::<String>("\"a\nb\"").is_err());
    assert!(codec::from_json::<Vec<u8>>("[1,]").is_err());
    assert!(codec::from_json::<Item>(r#"{"id":1,}"#).is_err());
}

#[test]
fn timestamps_with_a_wrong_length_are_refused() {
    // ext8 of 5 bytes, type -1
    let bytes = [0xc7, 0x05, 0xff, 0, 0, 0, 0, 1];
    let err = codec::from_msgpack::<SystemTime>(&bytes).unwrap_err();
    assert!(err.to_string().contains("expected 4, 8 or 12"), "{err}");
    // nanoseconds above 999,999,999
    let bytes = [0xd7, 0xff, 0xff, 0xff, 0xff, 0xfc, 0, 0, 0, 0];
    assert!(codec::from_msgpack::<SystemTime>(&bytes).is_err());
}

#[test]
fn arbitrary_short_inputs_never_panic() {
    // Every 1- and 2-byte input, into several types and both formats.
    for a in 0..=255u8 {
        for b in 0..=255u8 {
            let bytes = [a, b];
            let _ = codec::from_msgpack::<Item>(&bytes);
            let _ = codec::from_msgpack::<Chain>(&bytes[..1]);
            let _ = codec::from_msgpack::<Tree>(&bytes);
            let _ = codec::from_msgpack::<Vec<String>>(&bytes);
            let _ = codec::from_json_slice::<Tree>(&bytes);
            let _ = codec::from_json_slice::<Item>(&bytes);
        }
    }
}

#[test]
fn dynamic_values_bound_depth_and_allocation() {
    LARGEST.store(0, Ordering::Relaxed);
    for prefix in [
        &[0xdd, 0xff, 0xff, 0xff, 0xff][..],   // array32
        &[0xdf, 0xff, 0xff, 0xff, 0xff],       // map32
        &[0xdb, 0xff, 0xff, 0xff, 0xff],       // str32
        &[0xc6, 0xff, 0xff, 0xff, 0xff],       // bin32
        &[0xc9, 0xff, 0xff, 0xff, 0xff, 0x05], // ext32
    ] {
        // The claimed elements are each the smallest value, then the input ends.
        let mut bytes = prefix.to_vec();
        bytes.extend(vec![0x00; 4096]);
        assert!(codec::from_msgpack::<codec::Value>(&bytes).is_err());
        assert!(codec::from_msgpack::<codec::Raw>(&bytes).is_err());
        assert!(codec::Raw::from_msgpack(&bytes).is_err());
    }
    assert!(
        LARGEST.load(Ordering::Relaxed) < 1 << 20,
        "allocated {}",
        LARGEST.load(Ordering::Relaxed)
    );
    let deep_arrays = [vec![0x91u8; 100_000], vec![0x00]].concat();
    assert!(matches!(
        kind::<codec::Value>(&deep_arrays),
        DecodeErrorKind::DepthLimitExceeded { limit: 128 }
    ));
    let deep_maps = [[0x81u8, 0x00].repeat(100_000), vec![0x00]].concat();
    assert!(matches!(
        kind::<codec::Value>(&deep_maps),
        DecodeErrorKind::DepthLimitExceeded { limit: 128 }
    ));
    let json = "[".repeat(100_000) + &"]".repeat(100_000);
    assert!(matches!(
        json_kind::<codec::Value>(&json),
        DecodeErrorKind::DepthLimitExceeded { .. }
    ));
    let json_maps = r#"{"a":"#.repeat(100_000) + "1" + &"}".repeat(100_000);
    assert!(matches!(
        json_kind::<codec::Value>(&json_maps),
        DecodeErrorKind::DepthLimitExceeded { .. }
    ));
    // Raw finds a value's end by skipping it, which counts depth as decoding does.
    assert!(matches!(
        kind::<codec::Raw>(&deep_arrays),
        DecodeErrorKind::DepthLimitExceeded { limit: 128 }
    ));
    assert!(matches!(
        json_kind::<codec::Raw>(&json),
        DecodeErrorKind::DepthLimitExceeded { .. }
    ));
}

#[test]
fn dynamic_values_refuse_every_truncation_and_short_input() {
    let value: codec::Value =
        codec::from_json(r#"{"a":[1,-200,70000,1.5,"text ✓",null,true],"b":{"c":[]}}"#).unwrap();
    let bytes = codec::to_msgpack(&value).unwrap();
    for len in 0..bytes.len() {
        assert!(
            codec::from_msgpack::<codec::Value>(&bytes[..len]).is_err(),
            "{len}"
        );
        assert!(
            codec::from_msgpack::<codec::Raw>(&bytes[..len]).is_err(),
            "{len}"
        );
    }
    let text = codec::to_json(&value).unwrap();
    for len in 0..text.len() {
        if text.is_char_boundary(len) {
            assert!(
                codec::from_json::<codec::Value>(&text[..len]).is_err(),
                "{len}"
            );
            assert!(
                codec::from_json::<codec::Raw>(&text[..len]).is_err(),
                "{len}"
            );
        }
    }
    for a in 0..=255u8 {
        for b in 0..=255u8 {
            let bytes = [a, b];
            let _ = codec::from_msgpack::<codec::Value>(&bytes);
            let _ = codec::from_msgpack::<codec::Raw>(&bytes);
            let _ = codec::from_json_slice::<codec::Value>(&bytes);
            let _ = codec::from_json_slice::<codec::Raw>(&bytes);
        }
    }
    assert!(codec::from_msgpack::<codec::Value>(&[0xc1]).is_err());
    assert!(codec::from_msgpack::<codec::Value>(&[0xd6, 0xff, 0, 0]).is_err());
    assert!(codec::from_json::<codec::Value>("18446744073709551616").is_err());
}
