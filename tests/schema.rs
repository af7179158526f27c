//! Schemas describe exactly the JSON encoding: every value `to_json` writes
//! validates against its type's schema (checked by the independent `jsonschema`
//! validator), every schema is valid draft 2020-12, fingerprints are pinned,
//! and the committed schemas under `schemas/` have not drifted.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use codec::Codec;
use serde_json::Value;

#[derive(Codec, Debug, Clone, PartialEq)]
#[codec(name = "corpus.Point")]
pub struct Point {
    pub x: i64,
    pub y: i64,
}

#[derive(Codec, Debug, Clone, PartialEq)]
#[codec(name = "corpus.Shape")]
pub enum Shape {
    Dot(Point),
    Label(String),
    Pair(u8, u8),
    Empty,
    Circle { center: Point, r: f64 },
}

#[derive(Codec, Debug, Clone, PartialEq)]
#[codec(name = "corpus.Color", rename_all = "snake_case")]
pub enum Color {
    DarkRed,
    Green,
}

#[derive(Codec, Debug, Clone, PartialEq)]
#[codec(name = "corpus.Level")]
pub enum Level {
    #[codec(tag = 1)]
    Low,
    #[codec(tag = 2)]
    High,
}

#[derive(Codec, Debug, Clone, PartialEq)]
#[codec(name = "corpus.Value", untagged)]
pub enum Scalar {
    Nothing,
    Int(i64),
    Float(f64),
    Text(String),
    List(Vec<Scalar>),
}

#[derive(Codec, Debug, Clone, PartialEq)]
#[codec(name = "corpus.Row", array_like)]
pub struct Row {
    pub id: u32,
    pub name: String,
    #[codec(default)]
    pub note: Option<String>,
}

#[derive(Codec, Debug, Clone, PartialEq)]
#[codec(name = "corpus.Command", tag = "op", content = "args")]
pub enum Command {
    Move(i32, i32),
    Say { text: String },
}

#[derive(Codec, Debug, Clone, PartialEq)]
#[codec(
    name = "corpus.Document",
    rename_all = "camelCase",
    deny_unknown_fields,
    version = 1
)]
pub struct Document {
    pub doc_id: u64,
    #[codec(alias = "name")]
    pub title: String,
    pub shapes: Vec<Shape>,
    pub colors: BTreeSet<String>,
    pub counts: HashMap<String, u32>,
    pub by_id: BTreeMap<i32, bool>,
    pub pair: (u8, String, f32),
    pub grid: [u16; 3],
    pub blob: Vec<u8>,
    pub bytes: codec::Bytes,
    pub color: Color,
    pub level: Level,
    pub scalar: Scalar,
    pub row: Row,
    pub rows: Vec<Row>,
    pub command: Command,
    pub parent: Option<Box<Document>>,
    #[codec(default)]
    pub score: Option<f64>,
    pub unit: (),
    pub letter: char,
}

fn sample() -> Document {
    let child = Document {
        doc_id: 2,
        title: "child".into(),
        shapes: vec![Shape::Empty],
        colors: BTreeSet::new(),
        counts: HashMap::new(),
        by_id: BTreeMap::new(),
        pair: (0, String::new(), 0.5),
        grid: [0, 0, 0],
        blob: vec![],
        bytes: codec::Bytes::new(),
        color: Color::Green,
        level: Level::Low,
        scalar: Scalar::Nothing,
        row: Row {
            id: 1,
            name: "r".into(),
            note: None,
        },
        rows: vec![],
        command: Command::Move(1, -1),
        parent: None,
        score: None,
        unit: (),
        letter: 'z',
    };
    Document {
        doc_id: u64::MAX,
        title: "Intro ✓".into(),
        shapes: vec![
            Shape::Dot(Point { x: 1, y: -2 }),
            Shape::Label("l".into()),
            Shape::Pair(1, 2),
            Shape::Empty,
            Shape::Circle {
                center: Point { x: 0, y: 0 },
                r: 1.5,
            },
        ],
        colors: ["red".to_string(), "blue".to_string()]
            .into_iter()
            .collect(),
        counts: [("a".to_string(), 1), ("b".to_string(), 2)]
            .into_iter()
            .collect(),
        by_id: [(-1, true), (7, false)].into_iter().collect(),
        pair: (255, "p".into(), -0.25),
        grid: [1, 2, 3],
        blob: vec![0, 1, 255],
        bytes: codec::Bytes::from(b"bytes".to_vec()),
        color: Color::DarkRed,
        level: Level::High,
        scalar: Scalar::List(vec![
            Scalar::Int(1),
            Scalar::Float(2.5),
            Scalar::Text("t".into()),
            Scalar::Nothing,
        ]),
        row: Row {
            id: 3,
            name: "three".into(),
            note: Some("n".into()),
        },
        rows: vec![Row {
            id: 4,
            name: "four".into(),
            note: None,
        }],
        command: Command::Say { text: "hi".into() },
        parent: Some(Box::new(child)),
        score: Some(0.75),
        unit: (),
        letter: 'é',
    }
}

fn assert_valid<T: Codec>(value: &T) {
    let schema = codec::schema_of::<T>();
    if let Err(e) = jsonschema::meta::validate(&schema) {
        panic!(
            "schema of {} is not valid 2020-12: {e}\n{schema:#}",
            std::any::type_name::<T>()
        );
    }
    let text = codec::to_json(value).unwrap();
    let instance: Value = serde_json::from_str(&text).unwrap();
    if let Err(e) = jsonschema::validate(&schema, &instance) {
        panic!("{text}\ndoes not validate against\n{schema:#}\n{e}");
    }
}

fn assert_invalid<T: Codec>(json: &str) {
    let schema = codec::schema_of::<T>();
    let instance: Value = serde_json::from_str(json).unwrap();
    assert!(
        !jsonschema::is_valid(&schema, &instance),
        "{json} should not validate"
    );
}

#[test]
fn every_encoding_validates_against_its_schema() {
    let doc = sample();
    assert_valid(&doc);
    for shape in &doc.shapes {
        assert_valid(shape);
    }
    assert_valid(&doc.scalar);
    assert_valid(&doc.row);
    assert_valid(&Row {
        id: 1,
        name: "x".into(),
        note: None,
    });
    assert_valid(&Command::Move(1, 2));
    assert_valid(&Level::Low);
    assert_valid(&Color::Green);
    assert_valid(&vec![Some(1u8), None]);
    assert_valid(&(1u8, -1i64, "x".to_string()));
}

#[test]
fn schemas_reject_what_the_decoder_rejects() {
    assert_invalid::<Point>(r#"{"x": 1}"#);
    assert_invalid::<Point>(r#"{"x": 1, "y": "2"}"#);
    assert_invalid::<Shape>(r#"{"type": "Nope"}"#);
    assert_invalid::<Shape>(r#"{"type": "Pair", "value": [1, 2, 3]}"#);
    assert_invalid::<Color>(r#""Green""#);
    assert_invalid::<Level>("3");
    assert_invalid::<u8>("256");
    assert_invalid::<Row>(r#"[1]"#);
    let mut doc: Value = serde_json::from_str(&codec::to_json(&sample()).unwrap()).unwrap();
    doc["unexpected"] = Value::from(1);
    assert!(
        !jsonschema::is_valid(&codec::schema_of::<Document>(), &doc),
        "deny_unknown_fields closes the object"
    );
}

#[test]
fn decoded_schema_matches_what_a_reader_accepts() {
    // Defaults are not required, aliases are listed.
    let schema = codec::schema_of::<Document>();
    let required: Vec<&str> = schema["required"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert!(!required.contains(&"score"));
    assert!(required.contains(&"docId"));
    assert_eq!(
        schema["properties"]["title"]["x-codec-aliases"],
        serde_json::json!(["name"])
    );
    assert_eq!(schema["x-codec-version"], 1);
}

#[test]
fn fingerprints_are_pinned() {
    let fingerprints = [
        ("corpus.Point", codec::fingerprint_of::<Point>()),
        ("corpus.Shape", codec::fingerprint_of::<Shape>()),
        ("corpus.Color", codec::fingerprint_of::<Color>()),
        ("corpus.Document", codec::fingerprint_of::<Document>()),
        ("u8", codec::fingerprint_of::<u8>()),
        ("Vec<u8>", codec::fingerprint_of::<Vec<u8>>()),
    ];
    let text: Vec<String> = fingerprints
        .iter()
        .map(|(n, fp)| format!("{n}: {fp}"))
        .collect();
    insta::assert_snapshot!("golden_fingerprints", text.join("\n"));
}

#[test]
fn fingerprints_ignore_descriptions_and_key_order_but_not_array_like_order() {
    mod a {
        #[derive(codec::Codec)]
        #[codec(name = "T")]
        pub struct T {
            pub x: u8,
            pub y: String,
        }
        #[derive(codec::Codec)]
        #[codec(name = "R", array_like)]
        pub struct R {
            pub x: u8,
            pub y: String,
        }
    }
    mod b {
        /// Documented, fields reordered: same wire shape as a map.
        #[derive(codec::Codec)]
        #[codec(name = "T")]
        pub struct T {
            pub y: String,
            pub x: u8,
        }
        #[derive(codec::Codec)]
        #[codec(name = "R", array_like)]
        pub struct R {
            pub y: String,
            pub x: u8,
        }
    }
    assert_eq!(
        codec::fingerprint_of::<a::T>(),
        codec::fingerprint_of::<b::T>()
    );
    assert_ne!(
        codec::fingerprint_of::<a::R>(),
        codec::fingerprint_of::<b::R>()
    );
}

fn default_port() -> u16 {
    8080
}

#[derive(Codec, Debug, Clone, PartialEq)]
pub struct Retry {
    pub times: u8,
}

impl Default for Retry {
    fn default() -> Self {
        Retry { times: 3 }
    }
}

#[derive(Codec, Debug, Clone, PartialEq)]
pub struct Settings {
    pub host: String,
    #[codec(default = "default_port")]
    pub port: u16,
    #[codec(default)]
    pub tags: Vec<String>,
    #[codec(default)]
    pub retry: Retry,
    /// Left out when it is its default, so the default is not written (as schemars).
    #[codec(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// Every missing field takes its value from the type's `Default`.
#[derive(Codec, Debug, Clone, PartialEq)]
#[codec(default)]
pub struct Limits {
    pub max: u32,
    pub ratio: f64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max: 10,
            ratio: 0.5,
        }
    }
}

#[test]
fn a_field_with_a_default_carries_it_in_the_schema() {
    let schema = codec::schema_of::<Settings>();
    let properties = &schema["properties"];
    assert_eq!(properties["port"]["default"], 8080);
    assert_eq!(properties["tags"]["default"], serde_json::json!([]));
    // Beside the `$ref` of a derived type: its JSON encoding.
    assert_eq!(
        properties["retry"]["default"],
        serde_json::json!({"times": 3})
    );
    assert!(properties["retry"]["$ref"].is_string());
    assert_eq!(properties["note"].get("default"), None);
    assert_eq!(properties["host"].get("default"), None);

    let schema = codec::schema_of::<Limits>();
    assert_eq!(schema["properties"]["max"]["default"], 10);
    assert_eq!(schema["properties"]["ratio"]["default"], 0.5);

    // An `array_like` element: `corpus.Row`'s trailing `note`.
    let schema = codec::schema_of::<Row>();
    assert_eq!(schema["prefixItems"][2]["default"], Value::Null);
    assert_eq!(schema["prefixItems"][0].get("default"), None);

    assert_valid(&Settings {
        host: "h".into(),
        port: 1,
        tags: vec!["a".into()],
        retry: Retry { times: 1 },
        note: Some("n".into()),
    });
    assert_valid(&Limits { max: 1, ratio: 2.0 });
    // What a reader fills in validates too.
    let filled: Settings = codec::from_json(r#"{"host": "h"}"#).unwrap();
    assert_valid(&filled);
}

#[test]
fn defaults_do_not_count_in_the_fingerprint() {
    mod a {
        fn one() -> u8 {
            1
        }
        #[derive(codec::Codec)]
        #[codec(name = "T")]
        pub struct T {
            #[codec(default = "one")]
            pub x: u8,
        }
    }
    mod b {
        fn two() -> u8 {
            2
        }
        #[derive(codec::Codec)]
        #[codec(name = "T")]
        pub struct T {
            #[codec(default = "two")]
            pub x: u8,
        }
    }
    let (a, b) = (codec::schema_of::<a::T>(), codec::schema_of::<b::T>());
    assert_eq!(a["properties"]["x"]["default"], 1);
    assert_eq!(b["properties"]["x"]["default"], 2);
    assert_eq!(
        codec::fingerprint_of::<a::T>(),
        codec::fingerprint_of::<b::T>()
    );
    assert!(codec::schema::diff(&a, &b).is_empty());
}

#[test]
fn diff_lists_changes_with_their_compatibility() {
    let old = codec::schema_of::<Point>();
    let mut new = old.clone();
    new["properties"]["x"] = serde_json::json!({"type": "string"});
    let changes = codec::schema::diff(&old, &new);
    assert_eq!(changes.len(), 1);
    assert_eq!(
        changes[0].to_string(),
        "corpus.Point.x: integer -> string (breaking)"
    );
    assert!(codec::schema::diff(&old, &old).is_empty());
}

#[test]
#[cfg_attr(
    not(feature = "store"),
    ignore = "schemas/ holds the store's records too: run with the store feature"
)]
fn committed_schemas_have_not_drifted() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/schemas");
    let check = codec::schema::DriftCheck::new(dir)
        .add::<Point>()
        .add::<Shape>()
        .add::<Color>()
        .add::<Level>()
        .add::<Scalar>()
        .add::<Row>()
        .add::<Command>()
        .add::<Document>();
    // The records the cache store writes to disk.
    #[cfg(feature = "store")]
    let check = check
        .add::<codec::store::records::StoreMeta>()
        .add::<codec::store::records::IndexLine>()
        .add::<codec::store::records::Mode>()
        .add::<codec::store::records::InfoValue>()
        .add::<codec::store::records::Compacting>()
        .add::<codec::store::records::Checkpoint>()
        .add::<codec::store::records::Covered>()
        .add::<codec::store::records::Retired>();
    if let Err(e) = check.run() {
        panic!("{e}");
    }
}

#[test]
fn drift_check_refuses_a_breaking_change_unless_the_version_was_raised() {
    let dir = std::env::temp_dir().join(format!("codec-drift-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    mod v1 {
        #[derive(codec::Codec)]
        #[codec(name = "Drifting", version = 1)]
        pub struct Drifting {
            pub a: u8,
        }
    }
    mod v2 {
        #[derive(codec::Codec)]
        #[codec(name = "Drifting", version = 1)]
        pub struct Drifting {
            pub a: String,
        }
    }
    mod v3 {
        #[derive(codec::Codec)]
        #[codec(name = "Drifting", version = 2)]
        pub struct Drifting {
            pub a: String,
        }
    }
    let missing = codec::schema::DriftCheck::new(&dir)
        .add::<v1::Drifting>()
        .update(false)
        .run()
        .unwrap_err();
    assert!(
        missing.to_string().contains("no committed schema"),
        "{missing}"
    );
    // `update(true)` is what CODEC_UPDATE_SCHEMAS=1 does.
    codec::schema::DriftCheck::new(&dir)
        .add::<v1::Drifting>()
        .update(true)
        .run()
        .unwrap();
    let refused = codec::schema::DriftCheck::new(&dir)
        .add::<v2::Drifting>()
        .update(true)
        .run()
        .unwrap_err();
    codec::schema::DriftCheck::new(&dir)
        .add::<v3::Drifting>()
        .update(true)
        .run()
        .unwrap();
    assert!(
        refused.to_string().contains("breaking change refused"),
        "{refused}"
    );
    assert!(
        refused
            .to_string()
            .contains("Drifting.a: integer -> string (breaking)"),
        "{refused}"
    );
    let changed = codec::schema::DriftCheck::new(&dir)
        .add::<v1::Drifting>()
        .update(false)
        .run()
        .unwrap_err();
    assert!(changed.to_string().contains("differs from"), "{changed}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn drift_check_fails_on_any_difference_of_the_committed_file() {
    let committed = concat!(env!("CARGO_MANIFEST_DIR"), "/schemas/corpus.Document.json");
    let original: Value =
        serde_json::from_str(&std::fs::read_to_string(committed).unwrap()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let check = || {
        codec::schema::DriftCheck::new(dir.path())
            .add::<Document>()
            .update(false)
            .run()
    };
    // None of these edits changes the wire shape: each is still drift.
    // (What is edited, the edit, the drift reported.)
    type Edit = (&'static str, fn(&mut Value), &'static str);
    let edits: [Edit; 4] = [
        (
            "version raised",
            |v| v["x-codec-version"] = 7.into(),
            "/x-codec-version: 7 -> 1",
        ),
        (
            "unknown fields allowed",
            |v| drop(v.as_object_mut().unwrap().remove("additionalProperties")),
            "/additionalProperties: absent -> false",
        ),
        (
            "aliases emptied",
            |v| v["properties"]["title"]["x-codec-aliases"] = serde_json::json!([]),
            r#"/properties/title/x-codec-aliases: [] -> ["name"]"#,
        ),
        (
            "alias changed",
            |v| v["properties"]["title"]["x-codec-aliases"][0] = "heading".into(),
            r#"/properties/title/x-codec-aliases/0: "heading" -> "name""#,
        ),
    ];
    for (what, edit, expected) in edits {
        let mut schema = original.clone();
        edit(&mut schema);
        let path = dir.path().join("corpus.Document.json");
        std::fs::write(&path, serde_json::to_string_pretty(&schema).unwrap()).unwrap();
        let err = check().unwrap_err().to_string();
        assert!(
            err.contains("`corpus.Document` differs from"),
            "{what}: {err}"
        );
        assert!(err.contains("not in its wire shape"), "{what}: {err}");
        assert!(err.contains(expected), "{what}: {err}");
        // Updating rewrites the file, which then passes.
        codec::schema::DriftCheck::new(dir.path())
            .add::<Document>()
            .update(true)
            .run()
            .unwrap();
        check().unwrap();
        let rewritten: Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(rewritten, original, "{what}");
    }
    // Layout is not a difference.
    let path = dir.path().join("corpus.Document.json");
    std::fs::write(&path, serde_json::to_string(&original).unwrap()).unwrap();
    check().unwrap();
    // A file that cannot be read is not a missing one.
    std::fs::remove_file(&path).unwrap();
    std::fs::create_dir(&path).unwrap();
    let err = check().unwrap_err().to_string();
    assert!(err.contains("cannot read"), "{err}");
}

mod before {
    #![allow(dead_code)]
    use std::collections::BTreeSet;

    #[derive(codec::Codec)]
    #[codec(name = "LostDefault")]
    pub struct LostDefault {
        #[codec(default)]
        pub a: u8,
    }

    #[derive(codec::Codec)]
    #[codec(name = "TagField")]
    pub enum TagField {
        A { x: u8 },
    }

    #[derive(codec::Codec)]
    #[codec(name = "Untagged", untagged)]
    pub enum Untagged {
        Int(i64),
        Text(String),
        Flag(bool),
    }

    #[derive(codec::Codec)]
    #[codec(name = "Unique")]
    pub struct Unique {
        pub a: Vec<u16>,
    }

    #[derive(codec::Codec)]
    #[codec(name = "Fixed")]
    pub struct Fixed {
        pub a: Vec<u16>,
    }

    #[derive(codec::Codec)]
    #[codec(name = "Element", array_like)]
    pub struct Element {
        pub a: u8,
    }

    #[derive(codec::Codec)]
    #[codec(name = "Tuple")]
    pub struct Tuple {
        pub a: (u8, u8, u8),
    }

    #[derive(codec::Codec)]
    #[codec(name = "Set")]
    pub struct Set {
        pub a: BTreeSet<u16>,
    }
    #[derive(codec::Codec)]
    #[codec(name = "MapValue")]
    pub struct MapValue {
        pub a: std::collections::HashMap<String, u32>,
    }

    #[derive(codec::Codec)]
    #[codec(name = "OptionValue")]
    pub struct OptionValue {
        pub a: Option<u8>,
    }

    #[derive(codec::Codec)]
    #[codec(name = "ArrayEnum", array_like)]
    pub enum ArrayEnum {
        A(u8),
        B(u8),
    }

    #[derive(codec::Codec)]
    #[codec(name = "Units")]
    pub enum Units {
        Red,
        Green,
    }

    #[derive(codec::Codec)]
    #[codec(name = "Tagged")]
    pub enum Tagged {
        A { x: u8 },
        B { y: u8 },
    }
}

mod after {
    #![allow(dead_code)]
    use std::collections::BTreeSet;

    #[derive(codec::Codec)]
    #[codec(name = "LostDefault")]
    pub struct LostDefault {
        pub a: u8,
    }

    #[derive(codec::Codec)]
    #[codec(name = "TagField", tag = "kind")]
    pub enum TagField {
        A { x: u8 },
    }

    #[derive(codec::Codec)]
    #[codec(name = "Untagged", untagged)]
    pub enum Untagged {
        Int(i64),
        Flag(bool),
    }

    #[derive(codec::Codec)]
    #[codec(name = "Unique")]
    pub struct Unique {
        pub a: BTreeSet<u16>,
    }

    #[derive(codec::Codec)]
    #[codec(name = "Fixed")]
    pub struct Fixed {
        pub a: (u16, u16),
    }

    #[derive(codec::Codec)]
    #[codec(name = "Element", array_like)]
    pub struct Element {
        pub a: u8,
        pub b: u8,
    }

    #[derive(codec::Codec)]
    #[codec(name = "Tuple")]
    pub struct Tuple {
        pub a: (u8, u8),
    }

    #[derive(codec::Codec)]
    #[codec(name = "Set")]
    pub struct Set {
        pub a: Vec<u16>,
    }

    #[derive(codec::Codec)]
    #[codec(name = "Element", array_like)]
    pub struct ElementWithDefault {
        pub a: u8,
        #[codec(default)]
        pub b: u8,
    }

    #[derive(codec::Codec)]
    #[codec(name = "Untagged", untagged)]
    pub enum UntaggedGrown {
        Int(i64),
        Text(String),
        Flag(bool),
        List(Vec<i64>),
    }
    #[derive(codec::Codec)]
    #[codec(name = "MapValue")]
    pub struct MapValue {
        pub a: std::collections::HashMap<String, String>,
    }

    #[derive(codec::Codec)]
    #[codec(name = "OptionValue")]
    pub struct OptionValue {
        pub a: Option<String>,
    }

    #[derive(codec::Codec)]
    #[codec(name = "ArrayEnum", array_like)]
    pub enum ArrayEnum {
        A(String),
        B(u8),
    }

    #[derive(codec::Codec)]
    #[codec(name = "ArrayEnum", array_like)]
    pub enum ArrayEnumRenamed {
        A(u8),
        #[codec(rename = "Bee", alias = "B")]
        B(u8),
    }

    #[derive(codec::Codec)]
    #[codec(name = "Units")]
    pub enum Units {
        Red,
        Blue,
    }

    #[derive(codec::Codec, Debug, PartialEq)]
    #[codec(name = "Units")]
    pub enum UnitsRenamed {
        Red,
        #[codec(rename = "Emerald", alias = "Green")]
        Green,
    }

    #[derive(codec::Codec)]
    #[codec(name = "Tagged")]
    pub enum Tagged {
        A { x: u8 },
        C { z: u8 },
    }

    #[derive(codec::Codec)]
    #[codec(name = "Tagged")]
    pub enum TaggedRenamed {
        A {
            x: u8,
        },
        #[codec(alias = "B")]
        Bee {
            y: u8,
        },
    }

    #[derive(codec::Codec)]
    #[codec(name = "Untagged", untagged)]
    pub enum UntaggedChanged {
        Int(i64),
        Text(String),
        List(Vec<i64>),
    }
}

/// Each rule of the diff: the old type, the new type, the changes in words.
#[test]
fn diff_rules_breaking_and_compatible() {
    use codec::schema_of as s;
    let items = |extra: Value| {
        let mut v = serde_json::json!({"type": "array", "items": {"type": "integer"}});
        v.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        v
    };
    let none = serde_json::json!({});
    let table: Vec<(&str, Value, Value, &[&str])> = vec![
        (
            "a field loses its default",
            s::<before::LostDefault>(),
            s::<after::LostDefault>(),
            &["LostDefault.a: field `a` lost its default (breaking)"],
        ),
        (
            "the tag field is renamed",
            s::<before::TagField>(),
            s::<after::TagField>(),
            &["TagField: tag field `type` -> `kind` (breaking)"],
        ),
        (
            "an untagged variant is removed",
            s::<before::Untagged>(),
            s::<after::Untagged>(),
            &["Untagged: untagged variant string changed or removed (breaking)"],
        ),
        (
            "an untagged variant is added",
            s::<before::Untagged>(),
            s::<after::UntaggedGrown>(),
            &["Untagged: untagged variant added (compatible)"],
        ),
        (
            "a sequence becomes a set",
            s::<before::Unique>(),
            s::<after::Unique>(),
            &["Unique.a: `uniqueItems` changed (breaking)"],
        ),
        (
            "a set becomes a sequence",
            s::<before::Set>(),
            s::<after::Set>(),
            &["Set.a: `uniqueItems` changed (breaking)"],
        ),
        (
            "a sequence gains a minimum length",
            items(none.clone()),
            items(serde_json::json!({"minItems": 1})),
            &["$: `minItems` narrowed: none -> 1 (breaking)"],
        ),
        (
            "a sequence gains a maximum length",
            items(none.clone()),
            items(serde_json::json!({"maxItems": 4})),
            &["$: `maxItems` narrowed: none -> 4 (breaking)"],
        ),
        (
            "a sequence becomes a fixed array",
            s::<before::Fixed>(),
            s::<after::Fixed>(),
            &["Fixed.a: sequence -> fixed array, or the reverse (breaking)"],
        ),
        (
            "a fixed array becomes a sequence",
            s::<after::Fixed>(),
            s::<before::Fixed>(),
            &["Fixed.a: sequence -> fixed array, or the reverse (breaking)"],
        ),
        (
            "an array element is added without a default",
            s::<before::Element>(),
            s::<after::Element>(),
            &["Element[1]: element added without a default (breaking)"],
        ),
        (
            "an array element is added with a default",
            s::<before::Element>(),
            s::<after::ElementWithDefault>(),
            &["Element[1]: element added with a default (compatible)"],
        ),
        (
            "a tuple is shortened",
            s::<before::Tuple>(),
            s::<after::Tuple>(),
            &["Tuple.a: 3 elements -> 2 (breaking)"],
        ),
        (
            "an open array loses trailing elements",
            serde_json::json!({"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}]}),
            serde_json::json!({"type": "array", "prefixItems": [{"type": "integer"}]}),
            &["$: trailing elements removed (2 -> 1) (compatible)"],
        ),
        (
            "a map's values change type",
            s::<before::MapValue>(),
            s::<after::MapValue>(),
            &["MapValue.a.*: integer -> string (breaking)"],
        ),
        (
            "an optional value changes type",
            s::<before::OptionValue>(),
            s::<after::OptionValue>(),
            &["OptionValue.a: integer -> string (breaking)"],
        ),
        (
            "a variant of an array-like enum changes",
            s::<before::ArrayEnum>(),
            s::<after::ArrayEnum>(),
            &["ArrayEnum<A>[1]: integer -> string (breaking)"],
        ),
        (
            "a variant of an array-like enum is renamed with an alias",
            s::<before::ArrayEnum>(),
            s::<after::ArrayEnumRenamed>(),
            &["ArrayEnum<B>: variant `B` renamed (an alias) (compatible)"],
        ),
        (
            "a unit variant is renamed with an alias",
            s::<before::Units>(),
            s::<after::UnitsRenamed>(),
            &["Units: value \"Green\" renamed to \"Emerald\" (an alias) (compatible)"],
        ),
        (
            "a unit variant is replaced",
            s::<before::Units>(),
            s::<after::Units>(),
            &[
                "Units: value \"Green\" removed (breaking)",
                "Units: value \"Blue\" added (compatible)",
            ],
        ),
        (
            "a tagged variant is replaced",
            s::<before::Tagged>(),
            s::<after::Tagged>(),
            &[
                "Tagged<B>: variant `B` removed (breaking)",
                "Tagged<C>: variant `C` added (compatible)",
            ],
        ),
        (
            "a tagged variant is renamed with an alias",
            s::<before::Tagged>(),
            s::<after::TaggedRenamed>(),
            &["Tagged<B>: variant `B` renamed (an alias) (compatible)"],
        ),
        (
            "an untagged variant is replaced",
            s::<before::Untagged>(),
            s::<after::UntaggedChanged>(),
            &["Untagged: untagged variant boolean changed or removed (breaking)"],
        ),
        (
            "a value becomes any value",
            serde_json::json!({"type": "integer"}),
            serde_json::json!({}),
            &["$: integer -> any value (compatible)"],
        ),
        (
            "an optional value becomes required",
            serde_json::json!({"anyOf": [{"type": "integer"}, {"type": "null"}]}),
            serde_json::json!({"type": "integer"}),
            &["$: Option<integer> -> integer: stored nulls no longer decode (breaking)"],
        ),
        (
            "a value changes kind",
            serde_json::json!({"type": "integer"}),
            serde_json::json!({"type": "array", "items": {"type": "integer"}}),
            &["$: integer -> array (breaking)"],
        ),
        (
            "a minimum is raised",
            serde_json::json!({"type": "integer", "minimum": 0}),
            serde_json::json!({"type": "integer", "minimum": 1}),
            &["$: range narrowed: [0, ..] -> [1, ..] (breaking)"],
        ),
        (
            "a minimum appears",
            serde_json::json!({"type": "integer"}),
            serde_json::json!({"type": "integer", "minimum": 1}),
            &["$: range narrowed: [.., ..] -> [1, ..] (breaking)"],
        ),
        (
            "a maximum is lowered",
            serde_json::json!({"type": "integer", "maximum": 9}),
            serde_json::json!({"type": "integer", "maximum": 8}),
            &["$: range narrowed: [.., 9] -> [.., 8] (breaking)"],
        ),
        (
            "a maximum appears",
            serde_json::json!({"type": "integer"}),
            serde_json::json!({"type": "integer", "maximum": 8}),
            &["$: range narrowed: [.., ..] -> [.., 8] (breaking)"],
        ),
        (
            "a range is widened",
            serde_json::json!({"type": "integer", "minimum": 0, "maximum": 8}),
            serde_json::json!({"type": "integer", "minimum": -1, "maximum": 9}),
            &["$: range widened: [0, 8] -> [-1, 9] (compatible)"],
        ),
        (
            "a string format is dropped",
            serde_json::json!({"type": "string", "format": "date-time"}),
            serde_json::json!({"type": "string"}),
            &["$: timestamp (RFC 3339 string) -> string (breaking)"],
        ),
        (
            "an optional element is added at the minimum length",
            serde_json::json!({"type": "array", "prefixItems": [{"type": "integer"}], "minItems": 1}),
            serde_json::json!({"type": "array", "prefixItems": [{"type": "integer"}, {"type": "integer"}], "minItems": 1}),
            &["$[1]: element added with a default (compatible)"],
        ),
    ];
    let mut wrong = Vec::new();
    for (rule, old, new, expected) in table {
        let changes: Vec<String> = codec::schema::diff(&old, &new)
            .iter()
            .map(|c| c.to_string())
            .collect();
        if changes != expected {
            wrong.push(format!("{rule}: {changes:?}, expected {expected:?}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn diff_text_names_bytes_and_times_for_what_they_hold() {
    let text = |old: serde_json::Value, new: serde_json::Value| -> Vec<String> {
        codec::schema::diff(&old, &new)
            .iter()
            .map(ToString::to_string)
            .collect()
    };
    let string = codec::schema_of::<String>();
    assert_eq!(
        text(string.clone(), codec::schema_of::<Vec<u8>>()),
        ["bytes: string -> bytes (base64 string) (breaking)"]
    );
    assert_eq!(
        text(string, codec::schema_of::<std::time::SystemTime>()),
        ["timestamp: string -> timestamp (RFC 3339 string) (breaking)"]
    );
    assert_eq!(
        text(
            codec::schema_of::<std::time::Duration>(),
            codec::schema_of::<std::time::SystemTime>()
        ),
        ["timestamp: duration (ISO 8601 string) -> timestamp (RFC 3339 string) (breaking)"]
    );
}

#[test]
fn a_unit_variant_renamed_with_an_alias_reads_values_stored_before() {
    let stored = codec::to_stored(&before::Units::Green).unwrap();
    assert_eq!(
        codec::from_stored::<after::UnitsRenamed>(&stored).unwrap(),
        after::UnitsRenamed::Green
    );
    // Without the alias the stored value is refused, by the diff.
    assert!(codec::from_stored::<after::Units>(&stored).is_err());
}
