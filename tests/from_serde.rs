//! Types that derive serde's traits and `Codec` together: codec reads the
//! `#[serde(..)]` attributes whose meaning it shares, so both write one shape
//! (compared here with serde_json's own output), and `#[codec(..)]` wins
//! where both are given. Fields left out by `skip_serializing_if` and
//! `omit_defaults` too.

use codec::Codec;
use serde::{Deserialize, Serialize};

/// codec's JSON equals serde_json's, and both decode it back to `value`.
#[track_caller]
fn same_as_serde<T>(value: &T) -> String
where
    T: Codec + Serialize + for<'de> Deserialize<'de> + PartialEq + std::fmt::Debug,
{
    let ours = codec::to_json(value).unwrap();
    let theirs = serde_json::to_string(value).unwrap();
    assert_eq!(ours, theirs, "codec and serde_json write the same JSON");
    assert_eq!(&codec::from_json::<T>(&theirs).unwrap(), value);
    assert_eq!(&serde_json::from_str::<T>(&ours).unwrap(), value);
    let bytes = codec::to_msgpack(value).unwrap();
    assert_eq!(&codec::from_msgpack::<T>(&bytes).unwrap(), value);
    ours
}

#[test]
fn a_field_serde_skips_is_not_written() {
    #[derive(Codec, Serialize, Deserialize, Debug, PartialEq)]
    struct S {
        #[serde(skip)]
        secret: u32,
        note: Option<String>,
        #[serde(skip_serializing, skip_deserializing)]
        cache: Vec<u8>,
    }
    let s = S {
        secret: 5,
        note: None,
        cache: vec![1],
    };
    assert_eq!(codec::to_json(&s).unwrap(), r#"{"note":null}"#);
    assert_eq!(
        codec::to_json(&s).unwrap(),
        serde_json::to_string(&s).unwrap()
    );
    let back: S = codec::from_json(r#"{"note":"n","secret":9}"#).unwrap();
    assert_eq!(
        back,
        S {
            secret: 0,
            note: Some("n".into()),
            cache: vec![]
        }
    );
}

#[test]
fn renames_aliases_and_defaults() {
    fn two() -> u8 {
        2
    }
    #[derive(Codec, Serialize, Deserialize, Debug, PartialEq, Default)]
    #[serde(rename_all = "camelCase", default)]
    struct Settings {
        max_size: u32,
        #[serde(rename = "LABEL", alias = "name")]
        label: String,
        #[serde(default = "two")]
        level: u8,
    }
    let s = Settings {
        max_size: 3,
        label: "l".into(),
        level: 1,
    };
    assert_eq!(same_as_serde(&s), r#"{"maxSize":3,"LABEL":"l","level":1}"#);
    let old: Settings = codec::from_json(r#"{"name":"x"}"#).unwrap();
    assert_eq!(
        old,
        Settings {
            max_size: 0,
            label: "x".into(),
            level: 2
        }
    );
}

#[test]
fn internally_tagged_and_untagged_enums() {
    #[derive(Codec, Serialize, Deserialize, Debug, PartialEq)]
    #[serde(
        tag = "kind",
        rename_all = "snake_case",
        rename_all_fields = "camelCase",
        deny_unknown_fields
    )]
    enum Event {
        KeyDown {
            key_code: u32,
        },
        #[serde(rename = "click", alias = "tap")]
        Click {
            pos_x: i64,
        },
        Closed,
    }
    for e in [
        Event::KeyDown { key_code: 3 },
        Event::Click { pos_x: -1 },
        Event::Closed,
    ] {
        let _ = same_as_serde(&e);
    }
    assert_eq!(
        codec::to_json(&Event::KeyDown { key_code: 3 }).unwrap(),
        r#"{"kind":"key_down","keyCode":3}"#
    );
    let tap: Event = codec::from_json(r#"{"kind":"tap","posX":1}"#).unwrap();
    assert_eq!(tap, Event::Click { pos_x: 1 });
    let unknown = codec::from_json::<Event>(r#"{"kind":"closed","x":1}"#).unwrap_err();
    assert!(unknown.to_string().contains('x'), "{unknown}");

    #[derive(Codec, Serialize, Deserialize, Debug, PartialEq)]
    #[serde(untagged)]
    enum Value {
        Int(i64),
        Text(String),
        List(Vec<Value>),
    }
    let _ = same_as_serde(&Value::List(vec![Value::Int(1), Value::Text("t".into())]));

    #[derive(Codec, Serialize, Deserialize, Debug, PartialEq)]
    #[serde(tag = "t", content = "c")]
    enum Adjacent {
        Pair(u8, u8),
        Unit,
    }
    let _ = same_as_serde(&Adjacent::Pair(1, 2));
    let _ = same_as_serde(&Adjacent::Unit);
}

#[test]
fn transparent_newtypes_and_skip_serializing_if() {
    #[derive(Codec, Serialize, Deserialize, Debug, PartialEq)]
    #[serde(transparent)]
    struct Id(u64);

    #[derive(Codec, Serialize, Deserialize, Debug, PartialEq)]
    struct Page {
        id: Id,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        tags: Vec<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        next: Option<Id>,
    }
    let empty = Page {
        id: Id(1),
        tags: vec![],
        next: None,
    };
    assert_eq!(same_as_serde(&empty), r#"{"id":1}"#);
    let full = Page {
        id: Id(1),
        tags: vec!["t".into()],
        next: Some(Id(2)),
    };
    assert_eq!(same_as_serde(&full), r#"{"id":1,"tags":["t"],"next":2}"#);
    // The map header counts only what is written: {"id": 1}.
    assert_eq!(codec::to_msgpack(&empty).unwrap(), b"\x81\xa2id\x01");
}

#[test]
fn codec_attributes_win_over_serde_ones() {
    #[derive(Codec, Serialize, Deserialize, Debug, PartialEq)]
    #[serde(rename_all = "UPPERCASE")]
    #[codec(rename_all = "kebab-case")]
    struct S {
        #[serde(rename = "serde_name")]
        #[codec(rename = "codec_name")]
        field: u8,
        other_field: u8,
        #[serde(alias = "serde_alias")]
        #[codec(alias = "codec_alias")]
        aliased: u8,
    }
    let s = S {
        field: 1,
        other_field: 2,
        aliased: 3,
    };
    assert_eq!(
        codec::to_json(&s).unwrap(),
        r#"{"codec_name":1,"other-field":2,"aliased":3}"#
    );
    assert_eq!(
        serde_json::to_string(&s).unwrap(),
        r#"{"serde_name":1,"OTHER_FIELD":2,"ALIASED":3}"#
    );
    let a: S = codec::from_json(r#"{"codec_name":1,"other-field":2,"codec_alias":3}"#).unwrap();
    assert_eq!(a, s);
    assert!(codec::from_json::<S>(r#"{"codec_name":1,"other-field":2,"serde_alias":3}"#).is_err());
}

#[test]
fn omit_defaults_leaves_out_fields_equal_to_their_default() {
    fn ten() -> u32 {
        10
    }
    #[derive(Codec, Debug, PartialEq)]
    #[codec(omit_defaults)]
    struct Job {
        name: String,
        #[codec(default)]
        retries: u8,
        #[codec(default = "ten")]
        timeout: u32,
        #[codec(default)]
        owner: Option<String>,
        // No default: always written, even when `None` (as msgspec does).
        parent: Option<u32>,
    }
    let plain = Job {
        name: "j".into(),
        retries: 0,
        timeout: 10,
        owner: None,
        parent: None,
    };
    assert_eq!(
        codec::to_json(&plain).unwrap(),
        r#"{"name":"j","parent":null}"#
    );
    assert_eq!(
        codec::from_json::<Job>(r#"{"name":"j","parent":null}"#).unwrap(),
        plain
    );
    let bytes = codec::to_msgpack(&plain).unwrap();
    assert_eq!(bytes[0], 0x82, "a map of two entries");
    assert_eq!(codec::from_msgpack::<Job>(&bytes).unwrap(), plain);
    let set = Job {
        name: "j".into(),
        retries: 1,
        timeout: 5,
        owner: Some("o".into()),
        parent: Some(1),
    };
    assert_eq!(
        codec::to_json(&set).unwrap(),
        r#"{"name":"j","retries":1,"timeout":5,"owner":"o","parent":1}"#
    );
    assert_eq!(
        codec::from_msgpack::<Job>(&codec::to_msgpack(&set).unwrap()).unwrap(),
        set
    );

    // A type-level default, and a union whose struct payload merges after the tag.
    #[derive(Codec, Debug, PartialEq, Default)]
    #[codec(omit_defaults, default)]
    struct Limits {
        low: i32,
        high: i32,
    }
    #[derive(Codec, Debug, PartialEq)]
    #[codec(omit_defaults)]
    enum Request {
        Run {
            #[codec(default)]
            dry: bool,
            limits: Limits,
        },
        Merged(Limits),
    }
    let r = Request::Run {
        dry: false,
        limits: Limits { low: 0, high: 3 },
    };
    assert_eq!(
        codec::to_json(&r).unwrap(),
        r#"{"type":"Run","limits":{"high":3}}"#
    );
    assert_eq!(
        codec::from_msgpack::<Request>(&codec::to_msgpack(&r).unwrap()).unwrap(),
        r
    );
    let m = Request::Merged(Limits { low: 1, high: 0 });
    assert_eq!(codec::to_json(&m).unwrap(), r#"{"type":"Merged","low":1}"#);
    let bytes = codec::to_msgpack(&m).unwrap();
    assert_eq!(bytes[0], 0x82, "the tag and one field");
    assert_eq!(codec::from_msgpack::<Request>(&bytes).unwrap(), m);
}

#[test]
fn skip_serializing_if_and_omit_defaults_each_leave_a_field_out() {
    fn is_big(n: &u32) -> bool {
        *n > 100
    }
    #[derive(Codec, Debug, PartialEq)]
    #[codec(omit_defaults)]
    struct S {
        a: u8,
        #[codec(default, skip_serializing_if = "is_big")]
        n: u32,
    }
    // Left out when it equals its default, and when the function says so.
    for n in [0, 1000] {
        let s = S { a: 1, n };
        assert_eq!(codec::to_json(&s).unwrap(), r#"{"a":1}"#, "n = {n}");
        assert_eq!(codec::to_msgpack(&s).unwrap(), b"\x81\xa1a\x01", "n = {n}");
    }
    let s = S { a: 1, n: 5 };
    assert_eq!(codec::to_json(&s).unwrap(), r#"{"a":1,"n":5}"#);
    assert_eq!(
        codec::from_msgpack::<S>(&codec::to_msgpack(&s).unwrap()).unwrap(),
        s
    );
    // Read back, a field left out is its default (not what was written).
    let big = codec::to_json(&S { a: 1, n: 1000 }).unwrap();
    assert_eq!(codec::from_json::<S>(&big).unwrap(), S { a: 1, n: 0 });
}

#[test]
fn a_serde_rename_of_the_type_names_it_and_keys_of_no_effect_are_accepted() {
    // `rename(serialize = .., deserialize = ..)` with one name is one name.
    #[derive(Codec, Serialize, Deserialize, Debug, PartialEq)]
    #[serde(rename = "app.Job", crate = "serde", expecting = "a job")]
    struct Job {
        id: u32,
    }
    #[derive(Codec, Serialize, Deserialize, Debug, PartialEq)]
    #[serde(rename(serialize = "app.Task", deserialize = "app.Task"))]
    struct Task {
        id: u32,
    }
    assert_eq!(codec::schema::wire_name::<Job>(), "app.Job");
    assert_eq!(codec::schema::wire_name::<Task>(), "app.Task");
    assert_eq!(same_as_serde(&Job { id: 1 }), r#"{"id":1}"#);
    assert_eq!(same_as_serde(&Task { id: 2 }), r#"{"id":2}"#);
}

#[test]
fn a_variants_serde_rename_all_renames_its_fields() {
    #[derive(Codec, Serialize, Deserialize, Debug, PartialEq)]
    #[serde(tag = "kind")]
    enum Event {
        #[serde(rename_all = "camelCase")]
        Resized {
            new_width: u32,
            new_height: u32,
        },
        Closed {
            by_user: bool,
        },
    }
    assert_eq!(
        same_as_serde(&Event::Resized {
            new_width: 3,
            new_height: 4
        }),
        r#"{"kind":"Resized","newWidth":3,"newHeight":4}"#
    );
    assert_eq!(
        same_as_serde(&Event::Closed { by_user: true }),
        r#"{"kind":"Closed","by_user":true}"#
    );
}

#[test]
fn a_codec_alias_wins_over_a_serde_one() {
    #[derive(Codec, Serialize, Deserialize, Debug, PartialEq)]
    struct Point {
        #[codec(alias = "xx")]
        #[serde(alias = "abscissa")]
        x: i32,
    }
    #[derive(Codec, Serialize, Deserialize, Debug, PartialEq)]
    enum Shape {
        #[codec(alias = "Sq")]
        #[serde(alias = "Quad")]
        Square,
    }
    assert_eq!(
        codec::from_json::<Point>(r#"{"xx":1}"#).unwrap(),
        Point { x: 1 }
    );
    assert!(codec::from_json::<Point>(r#"{"abscissa":1}"#).is_err());
    assert_eq!(codec::from_json::<Shape>(r#""Sq""#).unwrap(), Shape::Square);
    assert!(codec::from_json::<Shape>(r#""Quad""#).is_err());
}

/// A `u32` written as its decimal text, by serde and by codec alike.
mod as_text {
    use codec::schemars::{Schema, SchemaGenerator};
    use codec::{Decode, DecodeError, Encode, EncodeError, JsonReader, JsonWriter};
    use codec::{MsgpackReader, MsgpackWriter};
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(n: &u32, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&n.to_string())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
        String::deserialize(d)?
            .parse()
            .map_err(serde::de::Error::custom)
    }

    pub fn encode_msgpack(n: &u32, w: &mut MsgpackWriter) -> Result<(), EncodeError> {
        n.to_string().encode_msgpack(w)
    }

    pub fn decode_msgpack(r: &mut MsgpackReader<'_>) -> Result<u32, DecodeError> {
        String::decode_msgpack(r)?
            .parse()
            .map_err(DecodeError::custom)
    }

    pub fn encode_json(n: &u32, w: &mut JsonWriter) -> Result<(), EncodeError> {
        n.to_string().encode_json(w)
    }

    pub fn decode_json(r: &mut JsonReader<'_>) -> Result<u32, DecodeError> {
        String::decode_json(r)?.parse().map_err(DecodeError::custom)
    }

    // codec names the field's type, `json_schema::<u32>`: the schema is
    // the text's.
    #[allow(clippy::extra_unused_type_parameters)]
    pub fn json_schema<T>(generator: &mut SchemaGenerator) -> Schema {
        <String as codec::Schema>::json_schema(generator)
    }
}

#[test]
fn a_fields_serde_with_module_writes_it() {
    #[derive(Codec, Serialize, Deserialize, Debug, PartialEq)]
    struct Order {
        #[serde(with = "as_text")]
        count: u32,
        plain: u32,
    }
    let order = Order {
        count: 12,
        plain: 3,
    };
    assert_eq!(same_as_serde(&order), r#"{"count":"12","plain":3}"#);
    assert_eq!(
        codec::schema_of::<Order>()["properties"]["count"]["type"],
        "string"
    );
}

#[test]
fn a_variants_serde_borrow_is_accepted_without_effect() {
    use std::borrow::Cow;

    #[derive(Codec, Serialize, Deserialize, Debug, PartialEq)]
    enum Note<'a> {
        #[serde(borrow)]
        Text(Cow<'a, str>),
        Empty,
    }
    let note = Note::Text("hi".into());
    let json = codec::to_json(&note).unwrap();
    assert_eq!(json, r#"{"type":"Text","value":"hi"}"#);
    assert_eq!(codec::from_json::<Note<'static>>(&json).unwrap(), note);
    let theirs = serde_json::to_string(&note).unwrap();
    assert_eq!(serde_json::from_str::<Note<'_>>(&theirs).unwrap(), note);
}
