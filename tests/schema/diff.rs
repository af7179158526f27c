//! The diff of two schemas: each change in words, breaking or compatible.

use serde_json::Value;

use crate::corpus::Point;

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
            "a u128's maximum of -1, as written before, is left open",
            serde_json::json!({"type": "integer", "minimum": 0, "maximum": -1}),
            codec::schema_of::<u128>(),
            &["int: range widened: [0, -1] -> [0, ..] (compatible)"],
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
