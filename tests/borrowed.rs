//! Types that borrow from their input: `&'a str`, `&'a [u8]` and `Cow`
//! fields point into the bytes they were decoded from, and encode, describe
//! and fingerprint as their owned twins.

use std::borrow::Cow;

use codec::Codec;

#[derive(Codec, Debug, PartialEq)]
struct Inner<'a> {
    name: &'a str,
}

#[derive(Codec, Debug, PartialEq)]
enum Kind<'a> {
    Cached,
    Computed(u32),
    Failed { code: u32, reason: &'a str },
    Nested(#[codec(borrow)] Inner<'a>),
}

#[derive(Codec, Debug, PartialEq)]
struct Record<'a> {
    service: &'a str,
    user: Option<&'a str>,
    tags: Vec<&'a str>,
    #[codec(borrow)]
    note: Cow<'a, str>,
    #[codec(borrow)]
    inner: Inner<'a>,
    #[codec(borrow)]
    inners: Vec<Inner<'a>>,
    #[codec(borrow)]
    kind: Kind<'a>,
    count: u64,
}

// `Record` with owned fields: the same wire shape.
#[derive(Codec, Debug, PartialEq)]
#[codec(name = "Record")]
struct OwnedRecord {
    service: String,
    user: Option<String>,
    tags: Vec<String>,
    note: String,
    inner: OwnedInner,
    inners: Vec<OwnedInner>,
    kind: OwnedKind,
    count: u64,
}

#[derive(Codec, Debug, PartialEq)]
#[codec(name = "Inner")]
struct OwnedInner {
    name: String,
}

#[derive(Codec, Debug, PartialEq)]
#[codec(name = "Kind")]
enum OwnedKind {
    Cached,
    Computed(u32),
    Failed { code: u32, reason: String },
    Nested(OwnedInner),
}

/// Bytes borrow from MessagePack only: JSON holds them as base64 text.
#[derive(Codec, Debug, PartialEq)]
struct Blobs<'a> {
    blob: &'a [u8],
    #[codec(borrow)]
    data: Cow<'a, [u8]>,
    maybe: Option<&'a [u8]>,
}

/// The schema and fingerprint of a borrowing type are its owned twin's.
macro_rules! assert_owned_twin {
    ($borrowing:ident, $owned:ty) => {
        assert_eq!(
            codec::schema_of::<$borrowing<'_>>(),
            codec::schema_of::<$owned>()
        );
        assert_eq!(
            codec::fingerprint_of::<$borrowing<'static>>(),
            codec::fingerprint_of::<$owned>()
        );
    };
}

fn record(kind: Kind<'static>) -> Record<'static> {
    Record {
        service: "api",
        user: Some("ann"),
        tags: vec!["a", "b"],
        note: Cow::Borrowed("note"),
        inner: Inner { name: "in" },
        inners: vec![Inner { name: "x" }, Inner { name: "y" }],
        kind,
        count: 7,
    }
}

fn owned_record() -> OwnedRecord {
    OwnedRecord {
        service: "api".into(),
        user: Some("ann".into()),
        tags: vec!["a".into(), "b".into()],
        note: "note".into(),
        inner: OwnedInner { name: "in".into() },
        inners: vec![
            OwnedInner { name: "x".into() },
            OwnedInner { name: "y".into() },
        ],
        kind: OwnedKind::Failed {
            code: 3,
            reason: "why".into(),
        },
        count: 7,
    }
}

fn failed() -> Kind<'static> {
    Kind::Failed {
        code: 3,
        reason: "why",
    }
}

/// Every string of `r` points into `input`: none was copied.
fn assert_borrowed_from(input: &[u8], r: &Record<'_>) {
    let inside = |s: &str, what: &str| {
        assert!(
            input.as_ptr_range().contains(&s.as_ptr()),
            "{what} was copied out of the input"
        );
    };
    inside(r.service, "service");
    inside(r.user.unwrap(), "user (in an Option)");
    for tag in &r.tags {
        inside(tag, "a tag (in a Vec)");
    }
    assert!(matches!(r.note, Cow::Borrowed(_)), "note is owned");
    inside(&r.note, "note (a Cow)");
    inside(r.inner.name, "inner.name (nested)");
    for inner in &r.inners {
        inside(inner.name, "inners[_].name (nested in a Vec)");
    }
    match &r.kind {
        Kind::Failed { reason, .. } => inside(reason, "kind.reason (in a variant)"),
        Kind::Nested(inner) => inside(inner.name, "kind.name (in a newtype variant)"),
        other => panic!("unexpected variant {other:?}"),
    }
}

#[test]
fn msgpack_strings_point_into_the_input() {
    for kind in [failed(), Kind::Nested(Inner { name: "nest" })] {
        let bytes = codec::to_msgpack(&record(kind)).unwrap();
        let back: Record<'_> = codec::from_msgpack(&bytes).unwrap();
        assert_borrowed_from(&bytes, &back);
    }
}

#[test]
fn json_strings_without_escapes_point_into_the_input() {
    for kind in [failed(), Kind::Nested(Inner { name: "nest" })] {
        let text = codec::to_json(&record(kind)).unwrap();
        let back: Record<'_> = codec::from_json(&text).unwrap();
        assert_borrowed_from(text.as_bytes(), &back);
        let back: Record<'_> = codec::from_json_slice(text.as_bytes()).unwrap();
        assert_borrowed_from(text.as_bytes(), &back);
    }
}

#[test]
fn decode_options_borrow_too() {
    let options = codec::DecodeOptions::new().depth_limit(8);
    let bytes = codec::to_msgpack(&record(failed())).unwrap();
    let back: Record<'_> = options.from_msgpack(&bytes).unwrap();
    assert_borrowed_from(&bytes, &back);
    let text = codec::to_json(&record(failed())).unwrap();
    let back: Record<'_> = options.from_json(&text).unwrap();
    assert_borrowed_from(text.as_bytes(), &back);
}

#[test]
fn msgpack_bytes_point_into_the_input() {
    let value = Blobs {
        blob: b"\x00\x01",
        data: Cow::Borrowed(b"\x02"),
        maybe: Some(b"\x03"),
    };
    let bytes = codec::to_msgpack(&value).unwrap();
    let back: Blobs<'_> = codec::from_msgpack(&bytes).unwrap();
    assert_eq!(back, value);
    let range = bytes.as_ptr_range();
    assert!(range.contains(&back.blob.as_ptr()));
    assert!(matches!(back.data, Cow::Borrowed(_)));
    assert!(range.contains(&back.data.as_ptr()));
    assert!(range.contains(&back.maybe.unwrap().as_ptr()));
}

#[test]
fn a_top_level_str_borrows() {
    let bytes = codec::to_msgpack("hello").unwrap();
    let s: &str = codec::from_msgpack(&bytes).unwrap();
    assert!(bytes.as_ptr_range().contains(&s.as_ptr()));
    let text = r#""hello""#;
    let s: &str = codec::from_json(text).unwrap();
    assert!(text.as_bytes().as_ptr_range().contains(&s.as_ptr()));
}

#[test]
fn an_escaped_json_string_makes_a_cow_owned() {
    let text = codec::to_json(&record(failed()))
        .unwrap()
        .replace(r#""note""#, r#""n\u006fte""#);
    let back: Record<'_> = codec::from_json(&text).unwrap();
    assert_eq!(back.note, "note");
    assert!(
        matches!(back.note, Cow::Owned(_)),
        "an escaped string cannot be borrowed"
    );
}

#[test]
fn an_escaped_json_string_in_a_str_field_is_an_error_naming_the_field_and_the_fix() {
    let text = codec::to_json(&record(failed()))
        .unwrap()
        .replace(r#""why""#, r#""wh\"y""#);
    let err = codec::from_json::<Record<'_>>(&text).unwrap_err();
    let message = err.to_string();
    assert_eq!(err.path(), "$.kind.reason", "{message}");
    assert!(message.contains("Cow<'a, str>"), "{message}");
    assert!(message.contains("a string with escapes"), "{message}");
    // The offset is the string's start.
    assert_eq!(
        err.offset(),
        Some(text.find(r#""wh\"y""#).unwrap()),
        "{message}"
    );
}

#[test]
fn json_bytes_in_a_byte_slice_field_are_an_error_naming_the_fix() {
    let err = codec::from_json::<Blobs<'_>>(r#"{"blob":"AAE=","data":"Ag==","maybe":null}"#)
        .unwrap_err()
        .to_string();
    assert!(err.contains("$.blob"), "{err}");
    assert!(err.contains("Cow<'a, [u8]>"), "{err}");
}

#[test]
fn json_bytes_make_a_cow_of_bytes_owned() {
    #[derive(Codec, Debug)]
    struct Data<'a> {
        #[codec(borrow)]
        data: Cow<'a, [u8]>,
    }
    let back: Data<'_> = codec::from_json(r#"{"data":"Ag=="}"#).unwrap();
    assert_eq!(&*back.data, b"\x02");
    assert!(matches!(back.data, Cow::Owned(_)));
}

#[test]
fn a_missing_optional_field_is_none() {
    let bytes = codec::to_msgpack(&record(Kind::Cached)).unwrap();
    let mut owned: OwnedRecord = codec::from_msgpack(&bytes).unwrap();
    owned.user = None;
    #[derive(Codec)]
    struct WithoutUser {
        service: String,
    }
    let bytes = codec::to_msgpack(&WithoutUser {
        service: "api".into(),
    })
    .unwrap();
    #[derive(Codec, Debug)]
    struct Partial<'a> {
        service: &'a str,
        user: Option<&'a str>,
    }
    let back: Partial<'_> = codec::from_msgpack(&bytes).unwrap();
    assert_eq!((back.service, back.user), ("api", None));
    assert!(
        codec::from_msgpack::<Inner<'_>>(b"\x80").is_err(),
        "a missing &str is an error"
    );
}

#[test]
fn encoding_is_the_owned_twins() {
    let borrowed = record(failed());
    let owned = owned_record();
    assert_eq!(
        codec::to_msgpack(&borrowed).unwrap(),
        codec::to_msgpack(&owned).unwrap()
    );
    assert_eq!(
        codec::to_json(&borrowed).unwrap(),
        codec::to_json(&owned).unwrap()
    );
    // Either reads the other's bytes.
    let bytes = codec::to_msgpack(&owned).unwrap();
    assert_eq!(codec::from_msgpack::<Record<'_>>(&bytes).unwrap(), borrowed);
    let bytes = codec::to_msgpack(&borrowed).unwrap();
    assert_eq!(codec::from_msgpack::<OwnedRecord>(&bytes).unwrap(), owned);
}

#[test]
fn schema_and_fingerprint_are_the_owned_twins() {
    assert_eq!(
        codec::schema_of::<Record<'_>>(),
        codec::schema_of::<OwnedRecord>()
    );
    assert_eq!(
        codec::fingerprint_of::<Record<'static>>(),
        codec::fingerprint_of::<OwnedRecord>()
    );
    // Any lifetime: the facts are looked up with lifetimes erased.
    fn fingerprint_for<'a>(_input: &'a [u8]) -> codec::Fingerprint {
        codec::fingerprint_of::<Record<'a>>()
    }
    assert_eq!(
        fingerprint_for(&[1, 2, 3]),
        codec::fingerprint_of::<OwnedRecord>()
    );
    assert_eq!(codec::schema::wire_name::<Record<'_>>(), "Record");
    assert_eq!(
        codec::fingerprint_of::<&str>(),
        codec::fingerprint_of::<String>()
    );
    assert_eq!(
        codec::fingerprint_of::<&[u8]>(),
        codec::fingerprint_of::<Vec<u8>>()
    );
}

/// A newtype is its field on the wire: an array of records that borrow.
#[derive(Codec, Debug, PartialEq)]
struct Batch<'a>(#[codec(borrow)] Vec<Record<'a>>);

#[test]
fn a_newtype_borrows_through_its_field() {
    let owned = vec![owned_record(), owned_record()];
    let bytes = codec::to_msgpack(&owned).unwrap();
    let batch: Batch<'_> = codec::from_msgpack(&bytes).unwrap();
    assert_eq!(batch.0.len(), 2);
    for r in &batch.0 {
        assert_borrowed_from(&bytes, r);
    }
    assert_eq!(codec::to_msgpack(&batch).unwrap(), bytes);
    let text = codec::to_json(&owned).unwrap();
    let batch: Batch<'_> = codec::from_json(&text).unwrap();
    assert_borrowed_from(text.as_bytes(), &batch.0[1]);
    assert_eq!(codec::schema_of::<Batch<'_>>()["type"], "array");
}

#[test]
fn a_top_level_vec_of_records_that_borrow_borrows_without_a_newtype() {
    let owned = vec![owned_record(), owned_record()];
    let bytes = codec::to_msgpack(&owned).unwrap();
    let records: Vec<Record<'_>> = codec::from_msgpack(&bytes).unwrap();
    assert_eq!(records.len(), 2);
    for r in &records {
        assert_borrowed_from(&bytes, r);
    }
    let text = codec::to_json(&owned).unwrap();
    let records: Vec<Record<'_>> = codec::from_json(&text).unwrap();
    assert_borrowed_from(text.as_bytes(), &records[1]);
    assert_eq!(
        codec::fingerprint_of::<Vec<Record<'_>>>(),
        codec::fingerprint_of::<Vec<OwnedRecord>>()
    );
}

/// serde's `#[serde(borrow)]` says the same as codec's.
#[derive(Codec, Debug, PartialEq)]
struct WithSerdeBorrow<'a> {
    #[serde(borrow)]
    note: Cow<'a, str>,
}

#[test]
fn serde_borrow_borrows() {
    let bytes = codec::to_msgpack(&WithSerdeBorrow { note: "n".into() }).unwrap();
    let back: WithSerdeBorrow<'_> = codec::from_msgpack(&bytes).unwrap();
    assert!(matches!(back.note, Cow::Borrowed(_)));
}

/// Without `borrow`, a `Cow` field decodes owned, and the type is `Codec`
/// (storable, decodable from input that does not outlive it).
#[derive(Codec, Debug, PartialEq)]
struct OwnedCow<'a> {
    note: Cow<'a, str>,
}

#[test]
fn a_cow_without_borrow_stays_owned() {
    fn owned<T: Codec>() {}
    owned::<OwnedCow<'static>>();
    let bytes = codec::to_msgpack(&OwnedCow { note: "n".into() }).unwrap();
    let back: OwnedCow<'static> = codec::from_msgpack(&bytes).unwrap();
    assert!(matches!(back.note, Cow::Owned(_)));
}

// A recursive type that borrows, through `Box` (and `Rc`, `Arc`): each
// node's name points into the input. (No doc comment: it would be the
// schema's description, which the owned twin does not have.)
#[derive(Codec, Debug, PartialEq)]
struct Node<'a> {
    name: &'a str,
    #[codec(borrow)]
    next: Option<Box<Node<'a>>>,
    #[codec(borrow)]
    shared: std::sync::Arc<Inner<'a>>,
    #[codec(borrow)]
    local: std::rc::Rc<Inner<'a>>,
}

#[derive(Codec, Debug, PartialEq)]
#[codec(name = "Node")]
struct OwnedNode {
    name: String,
    next: Option<Box<OwnedNode>>,
    shared: std::sync::Arc<OwnedInner>,
    local: std::rc::Rc<OwnedInner>,
}

fn owned_chain(len: usize) -> OwnedNode {
    let inner = |i: usize| OwnedInner {
        name: format!("inner {i}"),
    };
    (0..len)
        .fold(None, |next, i| {
            Some(OwnedNode {
                name: format!("node {i}"),
                next: next.map(Box::new),
                shared: inner(i).into(),
                local: inner(i).into(),
            })
        })
        .unwrap()
}

#[test]
fn a_recursive_type_borrows_through_pointers() {
    let owned = owned_chain(3);
    let inside = |input: &[u8], s: &str| input.as_ptr_range().contains(&s.as_ptr());
    let bytes = codec::to_msgpack(&owned).unwrap();
    let text = codec::to_json(&owned).unwrap();
    for (input, node) in [
        (&bytes[..], codec::from_msgpack::<Node<'_>>(&bytes).unwrap()),
        (
            text.as_bytes(),
            codec::from_json::<Node<'_>>(&text).unwrap(),
        ),
    ] {
        let mut names = vec![];
        let mut at = Some(&node);
        while let Some(n) = at {
            for s in [n.name, n.shared.name, n.local.name] {
                assert!(inside(input, s), "{s} was copied");
            }
            names.push(n.name);
            at = n.next.as_deref();
        }
        assert_eq!(names, ["node 2", "node 1", "node 0"]);
        assert_eq!(codec::to_msgpack(&node).unwrap(), bytes);
        assert_eq!(codec::to_json(&node).unwrap(), text);
    }
    assert_owned_twin!(Node, OwnedNode);
}

#[test]
fn a_borrowing_chain_deeper_than_the_limit_is_an_error_not_an_overflow() {
    // {"name": "n", "next": {...}} nested far past the depth limit.
    let levels = 100_000;
    let mut bytes = Vec::new();
    for _ in 0..levels {
        bytes.extend_from_slice(b"\x82\xa4name\xa1n\xa4next");
    }
    bytes.push(0xc0);
    let err = codec::from_msgpack::<Node<'_>>(&bytes).unwrap_err();
    assert!(err.to_string().contains("depth"), "{err}");
    let text = "{\"name\":\"n\",\"next\":".repeat(levels) + "null" + &"}".repeat(levels);
    let err = codec::from_json::<Node<'_>>(&text).unwrap_err();
    assert!(err.to_string().contains("depth"), "{err}");
}

// Tuples that hold borrowed values: each element read as it reads alone.
#[derive(Codec, Debug, PartialEq)]
#[codec(name = "Pairs")]
struct Pairs<'a> {
    headers: Vec<(&'a str, &'a str)>,
    first: (&'a str, u32, Inner<'a>),
}

#[derive(Codec, Debug, PartialEq)]
#[codec(name = "Pairs")]
struct OwnedPairs {
    headers: Vec<(String, String)>,
    first: (String, u32, OwnedInner),
}

#[test]
fn tuples_borrow_their_elements() {
    let owned = OwnedPairs {
        headers: vec![
            ("accept".into(), "text/plain".into()),
            ("host".into(), "a".into()),
        ],
        first: ("one".into(), 1, OwnedInner { name: "in".into() }),
    };
    let bytes = codec::to_msgpack(&owned).unwrap();
    let text = codec::to_json(&owned).unwrap();
    for (input, pairs) in [
        (
            &bytes[..],
            codec::from_msgpack::<Pairs<'_>>(&bytes).unwrap(),
        ),
        (
            text.as_bytes(),
            codec::from_json::<Pairs<'_>>(&text).unwrap(),
        ),
    ] {
        let (name, n, inner) = &pairs.first;
        assert_eq!((*name, *n, inner.name), ("one", 1, "in"));
        assert_eq!(pairs.headers, [("accept", "text/plain"), ("host", "a")]);
        let strings = [name, &inner.name, &pairs.headers[1].0, &pairs.headers[1].1];
        for s in strings {
            assert!(input.as_ptr_range().contains(&s.as_ptr()), "{s} was copied");
        }
        assert_eq!(codec::to_msgpack(&pairs).unwrap(), bytes);
        assert_eq!(codec::to_json(&pairs).unwrap(), text);
    }
    assert_owned_twin!(Pairs, OwnedPairs);
}

#[test]
fn a_borrowed_tuple_of_another_length_or_with_an_escape_is_an_error_at_its_element() {
    let short = r#"{"headers": [["a"]], "first": ["one", 1, {"name": "in"}]}"#;
    let err = codec::from_json::<Pairs<'_>>(short)
        .unwrap_err()
        .to_string();
    assert!(err.contains("a tuple of 2 elements"), "{err}");
    assert!(err.contains("headers[0]"), "{err}");
    #[derive(Codec)]
    struct Long {
        headers: Vec<(String, String, String)>,
        first: (String, u32, OwnedInner),
    }
    let long = codec::to_msgpack(&Long {
        headers: vec![("a".into(), "b".into(), "c".into())],
        first: ("one".into(), 1, OwnedInner { name: "in".into() }),
    })
    .unwrap();
    let err = codec::from_msgpack::<Pairs<'_>>(&long)
        .unwrap_err()
        .to_string();
    assert!(err.contains("a tuple of 2 elements"), "{err}");
    let escaped = r#"{"headers": [["a", "b\n"]], "first": ["one", 1, {"name": "in"}]}"#;
    let err = codec::from_json::<Pairs<'_>>(escaped)
        .unwrap_err()
        .to_string();
    assert!(err.contains("headers[0][1]"), "{err}");
    assert!(err.contains("Cow<'a, str>"), "{err}");
}

#[test]
fn top_level_options_and_vecs_of_borrowed_strings_and_bytes_borrow() {
    let inside = |input: &[u8], s: &[u8]| input.as_ptr_range().contains(&s.as_ptr());
    let bytes = codec::to_msgpack(&vec!["a", "b"]).unwrap();
    let strings: Vec<&str> = codec::from_msgpack(&bytes).unwrap();
    assert_eq!(strings, ["a", "b"]);
    assert!(strings.iter().all(|s| inside(&bytes, s.as_bytes())));
    let text = codec::to_json(&Some("x")).unwrap();
    let one: Option<&str> = codec::from_json(&text).unwrap();
    assert!(inside(text.as_bytes(), one.unwrap().as_bytes()));
    let none: Option<&str> = codec::from_json("null").unwrap();
    assert_eq!(none, None);
    let blobs = vec![codec::Bytes(vec![1, 2]), codec::Bytes(vec![3])];
    let bytes = codec::to_msgpack(&blobs).unwrap();
    let back: Vec<&[u8]> = codec::from_msgpack(&bytes).unwrap();
    assert_eq!(back, [&[1u8, 2][..], &[3]]);
    assert!(back.iter().all(|b| inside(&bytes, b)));
    let bytes = codec::to_msgpack(&Some(codec::Bytes(vec![9]))).unwrap();
    let one: Option<&[u8]> = codec::from_msgpack(&bytes).unwrap();
    assert!(inside(&bytes, one.unwrap()));
}

// Maps keyed by borrowed strings, their values borrowed or owned.
#[derive(Codec, Debug, PartialEq)]
#[codec(name = "Labels")]
struct Labels<'a> {
    labels: std::collections::BTreeMap<&'a str, &'a str>,
    counts: std::collections::HashMap<&'a str, u32>,
    nested: std::collections::BTreeMap<&'a str, Inner<'a>>,
}

#[derive(Codec, Debug, PartialEq)]
#[codec(name = "Labels")]
struct OwnedLabels {
    labels: std::collections::BTreeMap<String, String>,
    counts: std::collections::HashMap<String, u32>,
    nested: std::collections::BTreeMap<String, OwnedInner>,
}

fn owned_labels() -> OwnedLabels {
    let pairs = |n: usize| (0..n).map(move |i| (format!("key {i}"), i));
    OwnedLabels {
        labels: pairs(5).map(|(k, i)| (k, format!("value {i}"))).collect(),
        counts: pairs(20).map(|(k, i)| (k, i as u32)).collect(),
        nested: pairs(3)
            .map(|(k, i)| {
                (
                    k,
                    OwnedInner {
                        name: format!("inner {i}"),
                    },
                )
            })
            .collect(),
    }
}

#[test]
fn maps_with_borrowed_keys_borrow_keys_and_values() {
    let owned = owned_labels();
    let bytes = codec::to_msgpack(&owned).unwrap();
    let text = codec::to_json(&owned).unwrap();
    for (input, labels) in [
        (
            &bytes[..],
            codec::from_msgpack::<Labels<'_>>(&bytes).unwrap(),
        ),
        (
            text.as_bytes(),
            codec::from_json::<Labels<'_>>(&text).unwrap(),
        ),
    ] {
        let inside = |s: &str| input.as_ptr_range().contains(&s.as_ptr());
        assert_eq!(labels.labels.len(), 5);
        assert_eq!(labels.counts.len(), 20);
        assert_eq!(labels.counts["key 7"], 7);
        assert_eq!(labels.nested["key 2"].name, "inner 2");
        for (k, v) in &labels.labels {
            assert!(inside(k) && inside(v), "{k}: {v} was copied");
        }
        assert!(labels.counts.keys().all(|k| inside(k)));
        assert!(labels.nested.values().all(|v| inside(v.name)));
        // Encoded as the owned twin: the hash map's entries in key order.
        assert_eq!(codec::to_msgpack(&labels).unwrap(), bytes);
        assert_eq!(codec::to_json(&labels).unwrap(), text);
    }
    assert_owned_twin!(Labels, OwnedLabels);
}

#[test]
fn an_escaped_key_in_a_map_with_borrowed_keys_is_an_error_naming_the_fix() {
    let text = r#"{"labels": {"a\nb": "x"}, "counts": {}, "nested": {}}"#;
    let err = codec::from_json::<Labels<'_>>(text)
        .unwrap_err()
        .to_string();
    assert!(err.contains("labels"), "{err}");
    assert!(err.contains("`String` keys"), "{err}");
    // A value's escape is the value's error, at its key.
    let text = r#"{"labels": {"a": "x\ny"}, "counts": {}, "nested": {}}"#;
    let err = codec::from_json::<Labels<'_>>(text)
        .unwrap_err()
        .to_string();
    assert!(err.contains("labels.a"), "{err}");
    assert!(err.contains("Cow<'a, str>"), "{err}");
}

#[test]
fn maps_with_borrowed_keys_encode_as_they_are() {
    let map: std::collections::HashMap<&str, u32> = [("b", 2), ("a", 1)].into();
    assert_eq!(codec::to_json(&map).unwrap(), r#"{"a":1,"b":2}"#);
}

/// A generic type, its parameter bounded by each impl's own trait (as
/// serde's are): it holds values that borrow too.
#[derive(Codec, Debug, PartialEq)]
struct Envelope<T> {
    id: u32,
    body: T,
}

#[test]
fn a_generic_type_holds_a_value_that_borrows() {
    let owned = Envelope {
        id: 7,
        body: owned_record(),
    };
    let bytes = codec::to_msgpack(&owned).unwrap();
    let back: Envelope<Record<'_>> = codec::from_msgpack(&bytes).unwrap();
    assert_borrowed_from(&bytes, &back.body);
    let text: Envelope<&str> = codec::from_json(r#"{"id":1,"body":"hi"}"#).unwrap();
    assert_eq!(text.body, "hi");
    assert_eq!(
        codec::fingerprint_of::<Envelope<Record<'_>>>(),
        codec::fingerprint_of::<Envelope<OwnedRecord>>()
    );
}
