//! Stored payloads as JSON text without their Rust type: for `codec get`.
//! MessagePack entries are read as [`Value`]s (`Cache::get::<Value>`),
//! JSON payloads by the walk below, which keeps their numbers' spelling.
//!
//! What the wire holds is printed as it is: map entries in their stored
//! order, float32 in its shortest f32 form (`0.1`, not `0.10000000149011612`),
//! JSON payloads' numbers as written. Bytes and extensions are base64; a
//! map whose keys are not all strings or integers (a tuple key) has no
//! JSON object form and prints as a list of `[key, value]` pairs.

use std::fmt::Write as _;

use base64::Engine as _;
use codec::{DecodeError, JsonReader, Value, WireKind};

/// A JSON value that keeps the order of its object's entries.
pub enum Json {
    Null,
    Bool(bool),
    /// A number, as its JSON text.
    Number(String),
    Str(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

pub fn base64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// A stored JSON payload, its order and number spellings kept.
pub fn json_to_json(bytes: &[u8]) -> Result<Json, DecodeError> {
    let mut r = JsonReader::from_slice(bytes)?;
    let value = from_json(&mut r)?;
    r.finish()?;
    Ok(value)
}

/// A float's shortest form, or `null` for NaN and the infinities, as
/// codec writes them in JSON.
fn float(text: &str, finite: bool) -> Json {
    if finite {
        Json::Number(text.to_owned())
    } else {
        Json::Null
    }
}

/// A value read from MessagePack (`Cache::get::<Value>`), in JSON.
impl From<Value> for Json {
    fn from(v: Value) -> Json {
        let mut buf = ryu::Buffer::new();
        match v {
            Value::Nil => Json::Null,
            Value::Bool(b) => Json::Bool(b),
            Value::Int(i) => Json::Number(i.to_string()),
            Value::Float(f) => float(buf.format(f), f.is_finite()),
            // Its shortest f32 form: `0.1`, not `0.10000000149011612`.
            Value::Float32(f) => float(buf.format(f), f.is_finite()),
            Value::Str(s) => Json::Str(s),
            Value::Bytes(b) => Json::Str(base64(&b)),
            Value::Array(items) => Json::Array(items.into_iter().map(Json::from).collect()),
            Value::Map(entries) => map(entries
                .into_iter()
                .map(|(k, v)| (Json::from(k), Json::from(v)))
                .collect()),
            // A timestamp: shown as JSON shows it, RFC 3339.
            Value::Timestamp { secs, nanos } => match codec::time::format_rfc3339(secs, nanos) {
                Ok(text) => Json::Str(text),
                Err(_) => Json::Object(vec![
                    ("timestamp_seconds".into(), Json::Number(secs.to_string())),
                    ("nanoseconds".into(), Json::Number(nanos.to_string())),
                ]),
            },
            Value::Ext(ty, data) => Json::Object(vec![
                ("ext".into(), Json::Number(ty.to_string())),
                ("data".into(), Json::Str(base64(&data))),
            ]),
        }
    }
}

/// An object when every key is a string or an integer (as codec writes
/// integer keys in JSON), else `[key, value]` pairs.
fn map(entries: Vec<(Json, Json)>) -> Json {
    let is_name = |k: &Json| match k {
        Json::Str(_) => true,
        Json::Number(n) => !n.contains(['.', 'e', 'E']),
        _ => false,
    };
    if !entries.iter().all(|(k, _)| is_name(k)) {
        let pairs = entries.into_iter().map(|(k, v)| Json::Array(vec![k, v]));
        return Json::Array(pairs.collect());
    }
    let named = entries.into_iter().filter_map(|(k, v)| match k {
        Json::Str(name) | Json::Number(name) => Some((name, v)),
        _ => None,
    });
    Json::Object(named.collect())
}

fn from_json(r: &mut JsonReader<'_>) -> Result<Json, DecodeError> {
    let kind = r.peek_kind()?;
    Ok(if kind.is(WireKind::NIL) {
        r.read_nil()?;
        Json::Null
    } else if kind.is(WireKind::BOOL) {
        Json::Bool(r.read_bool()?)
    } else if kind.is(WireKind::INT) || kind.is(WireKind::FLOAT) {
        Json::Number(r.read_number_text()?.to_owned())
    } else if kind.is(WireKind::STR) {
        Json::Str(r.read_str()?.into_owned())
    } else if kind.is(WireKind::ARRAY) {
        r.begin_array()?;
        let mut items = Vec::new();
        let mut first = true;
        while r.next_element(&mut first)? {
            items.push(from_json(r)?);
        }
        Json::Array(items)
    } else if kind.is(WireKind::MAP) {
        r.begin_object()?;
        let mut entries = Vec::new();
        let mut first = true;
        while let Some(key) = r.next_key(&mut first)? {
            let key = key.into_owned();
            entries.push((key, from_json(r)?));
        }
        Json::Object(entries)
    } else {
        return Err(r.unexpected("a JSON value"));
    })
}

impl From<serde_json::Value> for Json {
    fn from(v: serde_json::Value) -> Json {
        match v {
            serde_json::Value::Null => Json::Null,
            serde_json::Value::Bool(b) => Json::Bool(b),
            serde_json::Value::Number(n) => Json::Number(n.to_string()),
            serde_json::Value::String(s) => Json::Str(s),
            serde_json::Value::Array(items) => {
                Json::Array(items.into_iter().map(Json::from).collect())
            }
            serde_json::Value::Object(map) => {
                Json::Object(map.into_iter().map(|(k, v)| (k, v.into())).collect())
            }
        }
    }
}

impl Json {
    /// Indented by two spaces, as `serde_json::to_string_pretty` writes.
    pub fn pretty(&self) -> String {
        let mut out = String::new();
        self.write(&mut out, 0);
        out
    }

    fn write(&self, out: &mut String, depth: usize) {
        let indent = |out: &mut String, depth: usize| {
            out.push('\n');
            for _ in 0..depth {
                out.push_str("  ");
            }
        };
        match self {
            Json::Null => out.push_str("null"),
            Json::Bool(b) => {
                let _ = write!(out, "{b}");
            }
            Json::Number(n) => out.push_str(n),
            Json::Str(s) => out.push_str(&quoted(s)),
            Json::Array(items) if items.is_empty() => out.push_str("[]"),
            Json::Array(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    indent(out, depth + 1);
                    item.write(out, depth + 1);
                }
                indent(out, depth);
                out.push(']');
            }
            Json::Object(entries) if entries.is_empty() => out.push_str("{}"),
            Json::Object(entries) => {
                out.push('{');
                for (i, (key, value)) in entries.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    indent(out, depth + 1);
                    out.push_str(&quoted(key));
                    out.push_str(": ");
                    value.write(out, depth + 1);
                }
                indent(out, depth);
                out.push('}');
            }
        }
    }
}

fn quoted(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| format!("{s:?}"))
}
