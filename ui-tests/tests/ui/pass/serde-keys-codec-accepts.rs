//! Serde attributes codec honours or accepts without effect, on a type that
//! derives only `Codec`: none is an error.
use std::borrow::Cow;

use codec::{DecodeError, EncodeError, JsonReader, JsonWriter, MsgpackReader, MsgpackWriter};

/// A type without a codec of its own, written by a field's `with` module.
#[derive(Debug, PartialEq)]
pub struct Celsius(pub i32);

mod as_number {
    use super::*;

    pub fn encode_msgpack(v: &Celsius, w: &mut MsgpackWriter) -> Result<(), EncodeError> {
        codec::Encode::encode_msgpack(&v.0, w)
    }

    pub fn decode_msgpack(r: &mut MsgpackReader<'_>) -> Result<Celsius, DecodeError> {
        Ok(Celsius(codec::Decode::decode_msgpack(r)?))
    }

    pub fn encode_json(v: &Celsius, w: &mut JsonWriter) -> Result<(), EncodeError> {
        codec::Encode::encode_json(&v.0, w)
    }

    pub fn decode_json(r: &mut JsonReader<'_>) -> Result<Celsius, DecodeError> {
        Ok(Celsius(codec::Decode::decode_json(r)?))
    }

    pub fn json_schema<T>(
        g: &mut codec::schemars::SchemaGenerator,
    ) -> codec::schemars::Schema {
        <i32 as codec::Schema>::json_schema(g)
    }
}

#[derive(codec::Codec, Debug, PartialEq)]
#[serde(crate = "serde", expecting = "a reading")]
struct Reading<'a> {
    #[serde(with = "as_number")]
    temperature: Celsius,
    #[serde(borrow)]
    place: Cow<'a, str>,
}

#[derive(codec::Codec, Debug, PartialEq)]
enum Note<'a> {
    #[serde(borrow)]
    Text(Cow<'a, str>),
    Empty,
}

#[derive(codec::Codec, Debug, PartialEq, Default)]
#[serde(rename = "app.Settings", rename_all = "camelCase", default, deny_unknown_fields)]
struct Settings {
    #[serde(rename = "LABEL", alias = "name")]
    label: String,
    #[serde(default = "two")]
    level: u8,
    #[serde(skip)]
    cache: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<String>,
}

fn two() -> u8 {
    2
}

#[derive(codec::Codec, Debug, PartialEq)]
#[serde(rename(serialize = "app.Job"))]
struct Job {
    id: u32,
}

#[derive(codec::Codec, Debug, PartialEq)]
#[serde(rename(serialize = "app.Task", deserialize = "app.Task"))]
struct Task {
    id: u32,
}

#[derive(codec::Codec, Debug, PartialEq)]
#[serde(tag = "kind", rename_all_fields = "camelCase")]
enum Event {
    #[serde(rename = "click", alias = "tap")]
    Click { pos_x: i64 },
    #[serde(rename_all = "UPPERCASE")]
    Key { key_code: u32 },
}

#[derive(codec::Codec, Debug, PartialEq)]
#[serde(tag = "t", content = "c")]
enum Adjacent {
    Pair(u8, u8),
    Unit,
}

#[derive(codec::Codec, Debug, PartialEq)]
#[serde(untagged)]
enum Loose {
    Int(i64),
    Text(String),
}

pub fn main() {
    let reading = Reading {
        temperature: Celsius(21),
        place: "hall".into(),
    };
    assert_eq!(
        codec::to_json(&reading).unwrap(),
        r#"{"temperature":21,"place":"hall"}"#
    );
    let _ = (Note::Text("n".into()), Note::Empty);
    assert_eq!(
        codec::to_json(&Settings::default()).unwrap(),
        r#"{"LABEL":"","level":0}"#
    );
    let _ = (Job { id: 1 }, Task { id: 1 }, Adjacent::Pair(1, 2), Adjacent::Unit);
    let _ = (Event::Click { pos_x: 1 }, Event::Key { key_code: 1 });
    let _ = (Loose::Int(1), Loose::Text("t".into()));
}
