//! Encoding snapshots of a corpus of values: pretty JSON and annotated
//! MessagePack. A change on the wire shows up as a diff of these files.

#![cfg(feature = "snapshot")]

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::time::{Duration, UNIX_EPOCH};

use codec::Codec;

#[derive(Codec)]
struct Chunk {
    text: String,
    start: u32,
    end: u32,
}

#[derive(Codec)]
struct Point {
    x: i64,
    y: i64,
}

#[derive(Codec)]
enum Event {
    Click { x: i64, y: i64 },
    Key { code: String },
    Moved(Point),
    Label(String),
    Pair(u8, u8),
    Idle,
}

#[derive(Codec, PartialEq, Eq, PartialOrd, Ord)]
enum Color {
    Red,
    #[codec(rename = "verde")]
    Green,
}

#[derive(Codec)]
enum Level {
    #[codec(tag = 1)]
    Low,
    #[codec(tag = 2)]
    High,
}

#[derive(Codec)]
#[codec(array_like)]
enum Op {
    Add { a: i32, b: i32 },
    Neg(i32),
}

#[derive(Codec)]
#[codec(untagged)]
enum Scalar {
    Int(i64),
    Text(String),
    List(Vec<Scalar>),
}

#[derive(Codec)]
#[codec(rename_all = "camelCase")]
struct Settings {
    max_items: u16,
    time_out: Duration,
    created_at: std::time::SystemTime,
    thumbnail: Option<Vec<u8>>,
    labels: BTreeSet<String>,
    weights: HashMap<String, f64>,
    by_id: BTreeMap<u32, Color>,
    pair: (bool, char),
}

/// What is done with each value of the corpus.
trait Visit {
    fn value<T: Codec>(&mut self, name: &str, description: &str, value: T);
}

/// The corpus: every shape of the wire conventions, with a name and a
/// description for its snapshot.
fn corpus(v: &mut impl Visit) {
    v.value(
        "struct",
        "a struct: a map of its fields in declaration order",
        Chunk {
            text: "hello".into(),
            start: 0,
            end: 5,
        },
    );
    v.value(
        "tagged_struct_variant",
        "a struct variant: the tag first, then the fields",
        Event::Click { x: 3, y: -4 },
    );
    v.value(
        "tagged_newtype_merged",
        "a newtype variant of a struct merges its fields after the tag",
        Event::Moved(Point { x: 1, y: 2 }),
    );
    v.value(
        "tagged_newtype_content",
        "other payloads go under the content key",
        Event::Label("l".into()),
    );
    v.value(
        "tagged_tuple_variant",
        "a tuple variant: an array under the content key",
        Event::Pair(1, 2),
    );
    v.value(
        "tagged_unit_variant",
        "a unit variant of a tagged union: just the tag",
        Event::Idle,
    );
    v.value(
        "unit_enum",
        "a unit-only enum: the (renamed) variant name",
        Color::Green,
    );
    v.value(
        "int_tags",
        "a unit-only enum with integer tags",
        Level::High,
    );
    v.value(
        "array_like",
        "an array_like union: the tag first in an array",
        vec![Op::Add { a: 1, b: 2 }, Op::Neg(3)],
    );
    v.value(
        "untagged",
        "an untagged union: payloads told apart by kind",
        Scalar::List(vec![Scalar::Int(1), Scalar::Text("t".into())]),
    );
    v.value(
        "nested_settings",
        "renamed fields, time, bytes, sorted sets and maps, tuples",
        Settings {
            max_items: 300,
            time_out: Duration::from_millis(2500),
            created_at: UNIX_EPOCH + Duration::new(1_700_000_000, 5_000_000),
            thumbnail: Some(vec![0x89, b'P', b'N', b'G']),
            labels: ["b", "a"].into_iter().map(String::from).collect(),
            weights: [("y".to_string(), 0.5), ("x".to_string(), 1.0)]
                .into_iter()
                .collect(),
            by_id: [(2, Color::Red), (1, Color::Green)].into_iter().collect(),
            pair: (true, 'é'),
        },
    );
    v.value(
        "integers",
        "integers in their shortest forms",
        vec![0i64, 127, 128, 65536, -1, -33, i64::MIN],
    );
    v.value("options", "None is nil / null", (None::<u8>, Some(1u8)));
}

struct Snapshot;

impl Visit for Snapshot {
    fn value<T: Codec>(&mut self, name: &str, description: &str, value: T) {
        let text = codec::snapshot::render(&value).unwrap();
        insta::with_settings!({ description => description, omit_expression => true }, {
            insta::assert_snapshot!(name, text);
        });
    }
}

#[test]
fn corpus_encodings() {
    corpus(&mut Snapshot);
}

/// A newtype: its inner value on the wire.
#[derive(Codec, PartialEq, Eq, PartialOrd, Ord)]
struct Newtype<T>(T);

/// A tagged union: a newtype variant merges a map-like payload after the tag.
#[derive(Codec)]
enum Holder<T> {
    Payload(T),
}

/// Both encodings of a value.
fn encodings<T: Codec>(value: &T) -> (Vec<u8>, String) {
    (
        codec::to_msgpack(value).unwrap(),
        codec::to_json(value).unwrap(),
    )
}

/// A copy of `value` through its encoding (the corpus types are not `Clone`).
fn copy<T: Codec>(value: &T) -> T {
    codec::from_msgpack(&codec::to_msgpack(value).unwrap()).unwrap()
}

/// Checks that `W`, made by `wrap`, is `T` on the wire in both formats: on
/// its own and as the payload of a tagged union, encoding and decoding.
fn same_wire<T: Codec, W: Codec>(name: &str, value: &T, wrap: fn(T) -> W) {
    let wrapper = std::any::type_name::<W>();
    let direct = encodings(value);
    assert_eq!(encodings(&wrap(copy(value))), direct, "{name} in {wrapper}");
    let decoded: W = codec::from_msgpack(&direct.0).unwrap();
    assert_eq!(
        encodings(&decoded),
        direct,
        "{name} in {wrapper}, from MessagePack"
    );
    let decoded: W = codec::from_json(&direct.1).unwrap();
    assert_eq!(
        encodings(&decoded),
        direct,
        "{name} in {wrapper}, from JSON"
    );

    let held = encodings(&Holder::Payload(copy(value)));
    let held_wrapped = Holder::Payload(wrap(copy(value)));
    assert_eq!(
        encodings(&held_wrapped),
        held,
        "{name} in {wrapper}, in a union"
    );
    let decoded: Holder<W> = codec::from_msgpack(&held.0).unwrap();
    assert_eq!(
        encodings(&decoded),
        held,
        "{name} in {wrapper}, in a union, from MessagePack"
    );
    let decoded: Holder<W> = codec::from_json(&held.1).unwrap();
    assert_eq!(
        encodings(&decoded),
        held,
        "{name} in {wrapper}, in a union, from JSON"
    );
}

struct SameWire;

impl Visit for SameWire {
    fn value<T: Codec>(&mut self, name: &str, _: &str, value: T) {
        same_wire(name, &value, Newtype);
        same_wire(name, &value, Box::new);
        same_wire(name, &value, std::rc::Rc::new);
        same_wire(name, &value, std::sync::Arc::new);
    }
}

#[test]
fn newtypes_and_pointers_encode_as_their_inner_value() {
    corpus(&mut SameWire);
}

/// Checks that `W`, made by `wrap`, is `K` as a JSON object key.
fn same_key<K: Codec + Ord, W: Codec + Ord>(key: K, wrap: fn(K) -> W) {
    let wrapper = std::any::type_name::<W>();
    let direct = encodings(&BTreeMap::from([(copy(&key), 1u8)]));
    let wrapped = BTreeMap::from([(wrap(key), 1u8)]);
    assert_eq!(encodings(&wrapped), direct, "a key in {wrapper}");
    let decoded: BTreeMap<W, u8> = codec::from_json(&direct.1).unwrap();
    assert_eq!(encodings(&decoded), direct, "a key in {wrapper}, from JSON");
}

#[test]
fn newtypes_and_pointers_are_map_keys_as_their_inner_value() {
    fn each_wrapper<K: Codec + Ord>(key: K) {
        same_key(copy(&key), Newtype);
        same_key(copy(&key), Box::new);
        same_key(copy(&key), std::rc::Rc::new);
        same_key(key, std::sync::Arc::new);
    }
    each_wrapper("key".to_string());
    each_wrapper(-7i64);
    each_wrapper(300u16);
    each_wrapper('k');
    each_wrapper(Color::Green);
}
