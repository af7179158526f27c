//! [`Value`]: any encoded value without its type, msgspec's `Any`.

use schemars::SchemaGenerator;

use crate::codec::Schema;
use crate::decode::Decode;
use crate::encode::Encode;
use crate::error::{DecodeError, EncodeError, Format};
use crate::json::{JsonReader, JsonWriter};
use crate::kind::WireKind;
use crate::msgpack::{Integer, MsgpackReader, MsgpackWriter};
use crate::time;

/// Any MessagePack or JSON value, decoded without knowing its type: what
/// msgspec decodes into with `type=Any`.
///
/// Every MessagePack kind has its variant, so a value read and written back
/// keeps its meaning: `bin` stays [`Value::Bytes`], an unknown extension
/// stays [`Value::Ext`], a float32 stays [`Value::Float32`], maps keep their
/// order and non-string keys. It is written back canonically, as msgspec
/// writes it: integers and timestamps in their shortest form; floats keep
/// their width (msgspec reads both widths as a `float`).
///
/// In JSON, strings stay strings (a date in a string is not guessed at),
/// bytes are written as base64 and timestamps as RFC 3339; an extension, or
/// a map key that is not a string or an integer, has no JSON encoding.
///
/// ```
/// use codec::Value;
///
/// let v: Value = codec::from_json(r#"{"a":[1,2.5,null],"b":"x"}"#).unwrap();
/// assert_eq!(v.get("a"), Some(&Value::Array(vec![Value::Int(1), Value::Float(2.5), Value::Nil])));
/// let bytes = codec::to_msgpack(&v).unwrap();
/// assert_eq!(codec::from_msgpack::<Value>(&bytes).unwrap(), v);
/// assert_eq!(codec::to_json(&v).unwrap(), r#"{"a":[1,2.5,null],"b":"x"}"#);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// `nil` / `null`.
    Nil,
    /// `true` / `false`.
    Bool(bool),
    /// An integer: MessagePack's range, `i64::MIN..=u64::MAX`.
    Int(i128),
    /// A float64 (and any JSON number that is not an integer).
    Float(f64),
    /// A MessagePack float32, kept at its width: written back as float32,
    /// and in JSON in its shortest f32 form (`0.1`, not
    /// `0.10000000149011612`). [`Value::as_f64`] reads both widths.
    Float32(f32),
    /// A string.
    Str(String),
    /// A byte buffer (MessagePack `bin`).
    Bytes(Vec<u8>),
    /// An array.
    Array(Vec<Value>),
    /// A map, its entries in their order on the wire.
    Map(Vec<(Value, Value)>),
    /// A timestamp (MessagePack extension -1): seconds and nanoseconds since
    /// the Unix epoch.
    Timestamp {
        /// Seconds since 1970-01-01T00:00:00Z (negative before).
        secs: i64,
        /// Nanoseconds within the second.
        nanos: u32,
    },
    /// Any other MessagePack extension: its type and data.
    Ext(i8, Vec<u8>),
}

impl Value {
    /// The value of the first entry with the string key `key`, if this is a map.
    pub fn get(&self, key: &str) -> Option<&Value> {
        match self {
            Value::Map(entries) => entries
                .iter()
                .find(|(k, _)| matches!(k, Value::Str(s) if s == key))
                .map(|(_, v)| v),
            _ => None,
        }
    }

    /// The string, if this is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The integer, if this is one that fits an `i64`.
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Value::Int(v) => i64::try_from(*v).ok(),
            _ => None,
        }
    }

    /// The number as a float, if this is an integer or a float.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Int(v) => Some(*v as f64),
            Value::Float(v) => Some(*v),
            Value::Float32(v) => Some(f64::from(*v)),
            _ => None,
        }
    }
}

fn integer(v: Integer) -> Value {
    match v {
        Integer::Pos(v) => Value::Int(i128::from(v)),
        Integer::Neg(v) => Value::Int(i128::from(v)),
    }
}

fn out_of_range(v: i128) -> EncodeError {
    EncodeError::InvalidValue {
        message: format!("integer {v} is outside MessagePack's range i64::MIN..=u64::MAX"),
    }
}

/// At most this many elements are reserved from a length prefix: a `Value`
/// is many times the size of its smallest encoding, so the input's size
/// alone is too loose a bound.
const PREALLOCATE: usize = 1024;

/// The MessagePack float32 marker.
const FLOAT32: u8 = 0xca;

fn decode_msgpack(r: &mut MsgpackReader<'_>) -> Result<Value, DecodeError> {
    // The place of a value a store handler keeps is itself: without its
    // type, nothing reads the value.
    let kind = match r.peek_placeholder() {
        Some(_) => WireKind::EXT,
        None => r.peek_kind()?,
    };
    Ok(if kind.is(WireKind::NIL) {
        r.read_nil()?;
        Value::Nil
    } else if kind.is(WireKind::BOOL) {
        Value::Bool(r.read_bool()?)
    } else if kind.is(WireKind::INT) {
        integer(r.read_integer()?)
    } else if kind.is(WireKind::FLOAT) && r.peek()? == FLOAT32 {
        Value::Float32(r.read_f64()? as f32)
    } else if kind.is(WireKind::FLOAT) {
        Value::Float(r.read_f64()?)
    } else if kind.is(WireKind::STR) {
        Value::Str(r.read_str()?.to_owned())
    } else if kind.is(WireKind::BYTES) {
        Value::Bytes(r.read_bin()?.to_vec())
    } else if kind.is(WireKind::ARRAY) {
        let len = r.read_array_len()?;
        let items = r.nested(|r| {
            let mut items = Vec::with_capacity(r.capacity_hint(len).min(PREALLOCATE));
            for i in 0..len {
                items.push(decode_msgpack(r).map_err(|e| e.in_index(i))?);
            }
            Ok(items)
        })?;
        Value::Array(items)
    } else if kind.is(WireKind::MAP) {
        let len = r.read_map_len()?;
        let entries = r.nested(|r| {
            let mut entries = Vec::with_capacity(r.capacity_hint(len).min(PREALLOCATE));
            for i in 0..len {
                let key = decode_msgpack(r).map_err(|e| e.in_index(i))?;
                let value = decode_msgpack(r).map_err(|e| e.in_index(i))?;
                entries.push((key, value));
            }
            Ok(entries)
        })?;
        Value::Map(entries)
    } else if kind.is(WireKind::EXT) {
        let start = r.position();
        let (ty, data) = r.read_ext()?;
        if ty == -1 {
            r.seek(start);
            let (secs, nanos) = r.read_timestamp()?;
            Value::Timestamp { secs, nanos }
        } else {
            Value::Ext(ty, data.to_vec())
        }
    } else {
        return Err(r.unexpected("a MessagePack value"));
    })
}

fn encode_msgpack(v: &Value, w: &mut MsgpackWriter) -> Result<(), EncodeError> {
    match v {
        Value::Nil => w.write_nil(),
        Value::Bool(b) => w.write_bool(*b),
        Value::Int(i) => {
            if let Ok(n) = i64::try_from(*i) {
                w.write_i64(n);
            } else {
                w.write_u64(u64::try_from(*i).map_err(|_| out_of_range(*i))?);
            }
        }
        Value::Float(f) => w.write_f64(*f),
        Value::Float32(f) => w.write_f32(*f),
        Value::Str(s) => w.write_str(s)?,
        Value::Bytes(b) => w.write_bin(b)?,
        Value::Array(items) => {
            w.write_array_len(items.len())?;
            for item in items {
                encode_msgpack(item, w)?;
            }
        }
        Value::Map(entries) => {
            w.write_map_len(entries.len())?;
            for (k, v) in entries {
                encode_msgpack(k, w)?;
                encode_msgpack(v, w)?;
            }
        }
        Value::Timestamp { secs, nanos } => w.write_timestamp(*secs, *nanos)?,
        Value::Ext(ty, data) => w.write_ext(*ty, data)?,
    }
    Ok(())
}

fn decode_json(r: &mut JsonReader<'_>) -> Result<Value, DecodeError> {
    Ok(match r.peek()? {
        b'n' => {
            r.read_nil()?;
            Value::Nil
        }
        b't' | b'f' => Value::Bool(r.read_bool()?),
        b'"' => Value::Str(r.read_str()?.into_owned()),
        b'[' => {
            r.begin_array()?;
            let mut items = Vec::new();
            let mut first = true;
            while r.next_element(&mut first)? {
                items.push(decode_json(r).map_err(|e| e.in_index(items.len()))?);
            }
            Value::Array(items)
        }
        b'{' => {
            r.begin_object()?;
            let mut entries = Vec::new();
            let mut first = true;
            while let Some(key) = r.next_key(&mut first)? {
                let key = key.into_owned();
                let value = decode_json(r).map_err(|e| e.in_field(key.clone()))?;
                entries.push((Value::Str(key), value));
            }
            Value::Map(entries)
        }
        b'-' | b'0'..=b'9' if r.peek_kind()?.is(WireKind::INT) => integer(r.read_integer()?),
        b'-' | b'0'..=b'9' => Value::Float(r.read_f64()?),
        _ => return Err(r.unexpected("a JSON value")),
    })
}

fn encode_json(v: &Value, w: &mut JsonWriter) -> Result<(), EncodeError> {
    match v {
        Value::Nil => w.write_nil(),
        Value::Bool(b) => w.write_bool(*b),
        Value::Int(i) => {
            if let Ok(n) = i64::try_from(*i) {
                w.write_i64(n);
            } else {
                w.write_u64(u64::try_from(*i).map_err(|_| out_of_range(*i))?);
            }
        }
        Value::Float(f) => w.write_f64(*f),
        Value::Float32(f) => w.write_f32(*f),
        Value::Str(s) => w.write_str(s)?,
        Value::Bytes(b) => w.write_base64(b),
        Value::Array(items) => {
            w.write_byte(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    w.write_byte(b',');
                }
                encode_json(item, w)?;
            }
            w.write_byte(b']');
        }
        Value::Map(entries) => {
            w.write_byte(b'{');
            for (i, (k, v)) in entries.iter().enumerate() {
                if i > 0 {
                    w.write_byte(b',');
                }
                match k {
                    Value::Str(s) => w.write_str(s)?,
                    Value::Int(_) => {
                        w.write_byte(b'"');
                        encode_json(k, w)?;
                        w.write_byte(b'"');
                    }
                    other => {
                        return Err(EncodeError::InvalidValue {
                            message: format!(
                                "a map key {other:?} has no JSON encoding: JSON keys are strings or integers; encode as MessagePack"
                            ),
                        })
                    }
                }
                w.write_byte(b':');
                encode_json(v, w)?;
            }
            w.write_byte(b'}');
        }
        Value::Timestamp { secs, nanos } => {
            let text = time::format_rfc3339(*secs, *nanos)
                .map_err(|message| EncodeError::InvalidValue { message })?;
            w.write_str(&text)?;
        }
        Value::Ext(ty, _) => {
            return Err(EncodeError::InvalidValue {
                message: format!(
                    "MessagePack extension {ty} has no JSON encoding; encode as MessagePack"
                ),
            })
        }
    }
    Ok(())
}

impl Encode for Value {
    fn encode_msgpack(&self, w: &mut MsgpackWriter) -> Result<(), EncodeError> {
        encode_msgpack(self, w)
    }

    fn encode_json(&self, w: &mut JsonWriter) -> Result<(), EncodeError> {
        encode_json(self, w)
    }
}

impl<'de> Decode<'de> for Value {
    fn decode_msgpack(r: &mut MsgpackReader<'de>) -> Result<Self, DecodeError> {
        let start = r.position();
        decode_msgpack(r).map_err(|e| e.at(Format::MsgPack, start))
    }

    fn decode_json(r: &mut JsonReader<'de>) -> Result<Self, DecodeError> {
        decode_json(r)
    }
}

impl Schema for Value {
    const KIND: WireKind = WireKind::ANY;

    /// Any JSON value.
    fn json_schema(_: &mut SchemaGenerator) -> schemars::Schema {
        schemars::Schema::from(true)
    }
}

macro_rules! from_impl {
    ($($ty:ty => |$v:ident| $make:expr;)*) => {$(
        impl From<$ty> for Value {
            fn from($v: $ty) -> Value {
                $make
            }
        }
    )*};
}

from_impl! {
    bool => |v| Value::Bool(v);
    i64 => |v| Value::Int(i128::from(v));
    u64 => |v| Value::Int(i128::from(v));
    f64 => |v| Value::Float(v);
    f32 => |v| Value::Float32(v);
    String => |v| Value::Str(v);
    &str => |v| Value::Str(v.to_owned());
    Vec<Value> => |v| Value::Array(v);
}
