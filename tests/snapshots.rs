//! Encoding snapshots of a corpus of values: pretty JSON and annotated
//! MessagePack. A change on the wire shows up as a diff of these files.

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

#[derive(Codec)]
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

fn check<T: Codec>(name: &str, description: &str, value: &T) {
    let text = codec::snapshot::render(value).unwrap();
    insta::with_settings!({ description => description, omit_expression => true }, {
        insta::assert_snapshot!(name, text);
    });
}

#[test]
fn corpus_encodings() {
    check(
        "struct",
        "a struct: a map of its fields in declaration order",
        &Chunk {
            text: "hello".into(),
            start: 0,
            end: 5,
        },
    );
    check(
        "tagged_struct_variant",
        "a struct variant: the tag first, then the fields",
        &Event::Click { x: 3, y: -4 },
    );
    check(
        "tagged_newtype_merged",
        "a newtype variant of a struct merges its fields after the tag",
        &Event::Moved(Point { x: 1, y: 2 }),
    );
    check(
        "tagged_newtype_content",
        "other payloads go under the content key",
        &Event::Label("l".into()),
    );
    check(
        "tagged_tuple_variant",
        "a tuple variant: an array under the content key",
        &Event::Pair(1, 2),
    );
    check(
        "tagged_unit_variant",
        "a unit variant of a tagged union: just the tag",
        &Event::Idle,
    );
    check(
        "unit_enum",
        "a unit-only enum: the (renamed) variant name",
        &Color::Green,
    );
    check(
        "int_tags",
        "a unit-only enum with integer tags",
        &Level::High,
    );
    check(
        "array_like",
        "an array_like union: the tag first in an array",
        &vec![Op::Add { a: 1, b: 2 }, Op::Neg(3)],
    );
    check(
        "untagged",
        "an untagged union: payloads told apart by kind",
        &Scalar::List(vec![Scalar::Int(1), Scalar::Text("t".into())]),
    );
    check(
        "nested_settings",
        "renamed fields, time, bytes, sorted sets and maps, tuples",
        &Settings {
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
    check(
        "integers",
        "integers in their shortest forms",
        &vec![0i64, 127, 128, 65536, -1, -33, i64::MIN],
    );
    check("options", "None is nil / null", &(None::<u8>, Some(1u8)));
}
