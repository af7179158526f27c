//! MessagePack to JSON without the Rust type: for `codec get`.

use base64::Engine as _;
use codec::msgpack::{marker_kind, Integer, MsgpackReader};
use codec::{DecodeError, WireKind};
use serde_json::{Map, Value};

pub fn base64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// The JSON form of one MessagePack value: bytes and extensions as base64,
/// map keys that are not strings as their JSON text.
pub fn msgpack_to_json(bytes: &[u8]) -> Result<Value, DecodeError> {
    let mut r = MsgpackReader::new(bytes);
    let value = value(&mut r)?;
    r.finish()?;
    Ok(value)
}

fn value(r: &mut MsgpackReader<'_>) -> Result<Value, DecodeError> {
    let kind = marker_kind(r.peek()?);
    Ok(if kind.is(WireKind::NIL) {
        r.read_nil()?;
        Value::Null
    } else if kind.is(WireKind::BOOL) {
        Value::Bool(r.read_bool()?)
    } else if kind.is(WireKind::INT) {
        match r.read_integer()? {
            Integer::Pos(v) => Value::from(v),
            Integer::Neg(v) => Value::from(v),
        }
    } else if kind.is(WireKind::FLOAT) {
        serde_json::Number::from_f64(r.read_f64()?).map_or(Value::Null, Value::Number)
    } else if kind.is(WireKind::STR) {
        Value::from(r.read_str()?)
    } else if kind.is(WireKind::BYTES) {
        Value::from(base64(r.read_bin()?))
    } else if kind.is(WireKind::ARRAY) {
        let len = r.read_array_len()?;
        r.enter()?;
        let mut items = Vec::with_capacity(r.capacity_hint(len));
        for _ in 0..len {
            items.push(value(r)?);
        }
        r.leave();
        Value::Array(items)
    } else if kind.is(WireKind::MAP) {
        let len = r.read_map_len()?;
        r.enter()?;
        let mut map = Map::new();
        for _ in 0..len {
            let key = match value(r)? {
                Value::String(s) => s,
                other => other.to_string(),
            };
            map.insert(key, value(r)?);
        }
        r.leave();
        Value::Object(map)
    } else if kind.is(WireKind::EXT) {
        let start = r.position();
        let (ty, data) = r.read_ext()?;
        if ty == -1 {
            // A timestamp: shown as JSON shows it, RFC 3339.
            r.seek(start);
            let (secs, nanos) = r.read_timestamp()?;
            match codec::time::format_rfc3339(secs, nanos) {
                Ok(text) => Value::from(text),
                Err(_) => serde_json::json!({ "timestamp_seconds": secs, "nanoseconds": nanos }),
            }
        } else {
            serde_json::json!({ "ext": ty, "data": base64(data) })
        }
    } else {
        return Err(r.unexpected("a MessagePack value"));
    })
}
