//! MessagePack to JSON without the Rust type, for `codec get`: the payload
//! is read as a [`codec::Value`] and shown as codec writes it in JSON, with
//! what JSON cannot hold spelled out instead of refused.

use base64::Engine as _;
use codec::{DecodeError, Value};
use serde_json::{Map, Value as Json};

pub fn base64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// The JSON form of one MessagePack value: bytes as base64, timestamps as
/// RFC 3339, other extensions as `{"ext": type, "data": base64}`, map keys
/// that are not strings as their JSON text.
pub fn msgpack_to_json(bytes: &[u8]) -> Result<Json, DecodeError> {
    Ok(to_json(codec::from_msgpack::<Value>(bytes)?))
}

fn to_json(value: Value) -> Json {
    match value {
        Value::Nil => Json::Null,
        Value::Bool(b) => Json::Bool(b),
        Value::Int(i) => i64::try_from(i)
            .map(Json::from)
            .or_else(|_| u64::try_from(i).map(Json::from))
            .unwrap_or_else(|_| Json::from(i.to_string())),
        Value::Float(f) => serde_json::Number::from_f64(f).map_or(Json::Null, Json::Number),
        Value::Str(s) => Json::String(s),
        Value::Bytes(b) => Json::String(base64(&b)),
        Value::Array(items) => Json::Array(items.into_iter().map(to_json).collect()),
        Value::Map(entries) => {
            let mut map = Map::new();
            for (k, v) in entries {
                let key = match to_json(k) {
                    Json::String(s) => s,
                    other => other.to_string(),
                };
                map.insert(key, to_json(v));
            }
            Json::Object(map)
        }
        Value::Timestamp { secs, nanos } => match codec::time::format_rfc3339(secs, nanos) {
            Ok(text) => Json::String(text),
            Err(_) => serde_json::json!({ "timestamp_seconds": secs, "nanoseconds": nanos }),
        },
        Value::Ext(ty, data) => serde_json::json!({ "ext": ty, "data": base64(&data) }),
    }
}
