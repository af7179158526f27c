//! What the derive generates: schemas that every encoding validates
//! against and that reject what the decoder rejects, pinned fingerprints,
//! and defaults carried in the schema but not in the fingerprint.

use codec::Codec;
use serde_json::Value;

use crate::corpus::{sample, Color, Command, Document, Level, Point, Row, Shape};

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
    // Integers beyond 64 bits: their bounds past 64 bits are left open.
    assert_valid(&u128::MAX);
    assert_valid(&(u128::from(u64::MAX) + 1));
    assert_valid(&i128::MIN);
    assert_valid(&i128::MAX);
    let wide = codec::schema_of::<u128>();
    assert_eq!(wide["minimum"], 0);
    assert!(wide.get("maximum").is_none(), "{wide}");
    assert_invalid::<u128>("-1");
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
