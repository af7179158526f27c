//! serde's traits for codec types (feature `serde`): what `#[codec(serde)]`
//! implements, so a codec type goes wherever serde's traits are asked for
//! (`serde_json::to_value`, axum's `Json`, reqwest's `.json`) in codec's own
//! wire shape.
//!
//! A value serializes by encoding itself with codec (JSON for a
//! human-readable format, MessagePack otherwise) and replaying those bytes
//! as serializer calls: with serde_json and rmp-serde the output is codec's
//! bytes exactly. It deserializes the other way round: the format's data
//! into a `Tree`, the tree written as codec's JSON or MessagePack, and
//! codec decodes that, with its own checks and errors. The format must
//! describe itself (JSON, MessagePack, YAML, CBOR...): bincode and postcard
//! do not, and fail.
//!
//! ```
//! #[derive(codec::Codec, Debug, PartialEq)]
//! #[codec(serde)]
//! enum Event { Click { x: i64, y: i64 } }
//!
//! let event = Event::Click { x: 3, y: -4 };
//! let value = serde_json::to_value(&event).unwrap();
//! assert_eq!(value, serde_json::json!({"type": "Click", "x": 3, "y": -4}));
//! assert_eq!(serde_json::to_string(&event).unwrap(), codec::to_json(&event).unwrap());
//! assert_eq!(rmp_serde::to_vec(&event).unwrap(), codec::to_msgpack(&event).unwrap());
//! assert_eq!(serde_json::from_value::<Event>(value).unwrap(), event);
//! ```

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{self, Serialize, SerializeMap, SerializeSeq, SerializeTuple, Serializer};

use crate::codec::Codec;
use crate::error::{DecodeError, EncodeError};
use crate::json::JsonWriter;
use crate::msgpack::{Integer, MsgpackReader, MsgpackWriter};

/// The name rmp-serde gives a MessagePack extension: a newtype of
/// `(i8, bytes)` under this name is written as, and read from, an extension.
const MSGPACK_EXT_STRUCT_NAME: &str = "_ExtStruct";

/// [`Serialize::serialize`] for a codec type: its codec encoding, replayed
/// into `serializer`.
pub fn serialize<T: Codec, S: Serializer>(value: &T, serializer: S) -> Result<S::Ok, S::Error> {
    let tree = if serializer.is_human_readable() {
        let json = crate::convert::to_json_vec(value).map_err(ser::Error::custom)?;
        serde_json::from_slice::<Tree>(&json).map_err(ser::Error::custom)?
    } else {
        let bytes = crate::convert::to_msgpack(value).map_err(ser::Error::custom)?;
        let mut r = MsgpackReader::new(&bytes);
        Tree::read_msgpack(&mut r).map_err(ser::Error::custom)?
    };
    tree.serialize(serializer)
}

/// [`Deserialize::deserialize`] for a codec type: the input as codec's
/// encoding, decoded by codec.
pub fn deserialize<'de, T: Codec, D: Deserializer<'de>>(deserializer: D) -> Result<T, D::Error> {
    let human_readable = deserializer.is_human_readable();
    let tree = Tree::deserialize(deserializer)?;
    if human_readable {
        let mut w = JsonWriter::default();
        tree.write_json(&mut w).map_err(de::Error::custom)?;
        crate::convert::from_json_slice(w.as_slice()).map_err(de::Error::custom)
    } else {
        let mut w = MsgpackWriter::default();
        tree.write_msgpack(&mut w).map_err(de::Error::custom)?;
        crate::convert::from_msgpack(w.as_slice()).map_err(de::Error::custom)
    }
}

/// One value of codec's wire model, between codec's bytes and serde's data
/// model: maps keep their order, and bytes, 32-bit floats and MessagePack
/// extensions keep their form.
#[derive(Debug, Clone, PartialEq)]
enum Tree {
    Nil,
    Bool(bool),
    /// A non-negative integer (MessagePack writes these unsigned).
    Pos(u64),
    /// A negative integer.
    Neg(i64),
    F32(f32),
    F64(f64),
    Str(String),
    Bytes(Vec<u8>),
    Array(Vec<Tree>),
    Map(Vec<(Tree, Tree)>),
    Ext(i8, Vec<u8>),
}

impl Tree {
    fn read_msgpack(r: &mut MsgpackReader<'_>) -> Result<Tree, DecodeError> {
        Ok(match r.peek()? {
            0xc0 => {
                r.read_nil()?;
                Tree::Nil
            }
            0xc2 | 0xc3 => Tree::Bool(r.read_bool()?),
            0xca => Tree::F32(r.read_f64()? as f32),
            0xcb => Tree::F64(r.read_f64()?),
            0xa0..=0xbf | 0xd9..=0xdb => Tree::Str(r.read_str()?.to_owned()),
            0xc4..=0xc6 => Tree::Bytes(r.read_bin()?.to_vec()),
            0x90..=0x9f | 0xdc | 0xdd => {
                let len = r.read_array_len()?;
                let items = r.nested(|r| {
                    let mut items = Vec::with_capacity(r.capacity_hint(len));
                    for _ in 0..len {
                        items.push(Tree::read_msgpack(r)?);
                    }
                    Ok(items)
                })?;
                Tree::Array(items)
            }
            0x80..=0x8f | 0xde | 0xdf => {
                let len = r.read_map_len()?;
                let entries = r.nested(|r| {
                    let mut entries = Vec::with_capacity(r.capacity_hint(len));
                    for _ in 0..len {
                        let key = Tree::read_msgpack(r)?;
                        entries.push((key, Tree::read_msgpack(r)?));
                    }
                    Ok(entries)
                })?;
                Tree::Map(entries)
            }
            0xc7..=0xc9 | 0xd4..=0xd8 => {
                let (ty, data) = r.read_ext()?;
                Tree::Ext(ty, data.to_vec())
            }
            _ => match r.read_integer()? {
                Integer::Pos(v) => Tree::Pos(v),
                Integer::Neg(v) => Tree::Neg(v),
            },
        })
    }

    fn write_msgpack(&self, w: &mut MsgpackWriter) -> Result<(), EncodeError> {
        match self {
            Tree::Nil => w.write_nil(),
            Tree::Bool(v) => w.write_bool(*v),
            Tree::Pos(v) => w.write_u64(*v),
            Tree::Neg(v) => w.write_i64(*v),
            Tree::F32(v) => w.write_f32(*v),
            Tree::F64(v) => w.write_f64(*v),
            Tree::Str(s) => w.write_str(s)?,
            Tree::Bytes(b) => w.write_bin(b)?,
            Tree::Array(items) => {
                w.write_array_len(items.len())?;
                for item in items {
                    item.write_msgpack(w)?;
                }
            }
            Tree::Map(entries) => {
                w.write_map_len(entries.len())?;
                for (key, value) in entries {
                    key.write_msgpack(w)?;
                    value.write_msgpack(w)?;
                }
            }
            Tree::Ext(ty, data) => w.write_ext(*ty, data)?,
        }
        Ok(())
    }

    fn write_json(&self, w: &mut JsonWriter) -> Result<(), EncodeError> {
        match self {
            Tree::Nil => w.write_nil(),
            Tree::Bool(v) => w.write_bool(*v),
            Tree::Pos(v) => w.write_u64(*v),
            Tree::Neg(v) => w.write_i64(*v),
            Tree::F32(v) => w.write_f32(*v),
            Tree::F64(v) => w.write_f64(*v),
            Tree::Str(s) => w.write_str(s)?,
            Tree::Bytes(b) => w.write_base64(b),
            Tree::Array(items) => {
                w.write_byte(b'[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        w.write_byte(b',');
                    }
                    item.write_json(w)?;
                }
                w.write_byte(b']');
            }
            Tree::Map(entries) => {
                w.write_byte(b'{');
                for (i, (key, value)) in entries.iter().enumerate() {
                    if i > 0 {
                        w.write_byte(b',');
                    }
                    key.write_json_key(w)?;
                    w.write_byte(b':');
                    value.write_json(w)?;
                }
                w.write_byte(b'}');
            }
            Tree::Ext(..) => {
                return Err(EncodeError::custom(
                    "a MessagePack extension has no JSON form: a human-readable format gave one",
                ))
            }
        }
        Ok(())
    }

    /// A map key in JSON, where keys are strings: a format whose keys are
    /// not (YAML's `1:`) gives codec the string it writes for an integer key.
    fn write_json_key(&self, w: &mut JsonWriter) -> Result<(), EncodeError> {
        match self {
            Tree::Str(s) => w.write_str(s),
            Tree::Pos(v) => w.write_str(&v.to_string()),
            Tree::Neg(v) => w.write_str(&v.to_string()),
            Tree::Bool(v) => w.write_str(if *v { "true" } else { "false" }),
            _ => Err(EncodeError::custom(
                "a map key that is not a string, integer or boolean has no JSON form",
            )),
        }
    }
}

impl Serialize for Tree {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Tree::Nil => serializer.serialize_unit(),
            Tree::Bool(v) => serializer.serialize_bool(*v),
            Tree::Pos(v) => serializer.serialize_u64(*v),
            Tree::Neg(v) => serializer.serialize_i64(*v),
            Tree::F32(v) => serializer.serialize_f32(*v),
            Tree::F64(v) => serializer.serialize_f64(*v),
            Tree::Str(s) => serializer.serialize_str(s),
            Tree::Bytes(b) => serializer.serialize_bytes(b),
            Tree::Array(items) => {
                let mut seq = serializer.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            Tree::Map(entries) => {
                let mut map = serializer.serialize_map(Some(entries.len()))?;
                for (key, value) in entries {
                    map.serialize_entry(key, value)?;
                }
                map.end()
            }
            Tree::Ext(ty, data) => {
                serializer.serialize_newtype_struct(MSGPACK_EXT_STRUCT_NAME, &ExtBody(*ty, data))
            }
        }
    }
}

/// An extension's `(type, data)`, as rmp-serde reads it inside its
/// extension newtype.
struct ExtBody<'a>(i8, &'a [u8]);

impl Serialize for ExtBody<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut tuple = serializer.serialize_tuple(2)?;
        tuple.serialize_element(&self.0)?;
        tuple.serialize_element(&RawBytes(self.1))?;
        tuple.end()
    }
}

/// Bytes that serialize as bytes (a plain `&[u8]` serializes as a sequence).
struct RawBytes<'a>(&'a [u8]);

impl Serialize for RawBytes<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_bytes(self.0)
    }
}

impl<'de> Deserialize<'de> for Tree {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Tree, D::Error> {
        deserializer.deserialize_any(TreeVisitor)
    }
}

struct TreeVisitor;

impl<'de> Visitor<'de> for TreeVisitor {
    type Value = Tree;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a value of a self-describing format")
    }

    fn visit_unit<E: de::Error>(self) -> Result<Tree, E> {
        Ok(Tree::Nil)
    }

    fn visit_none<E: de::Error>(self) -> Result<Tree, E> {
        Ok(Tree::Nil)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Tree, D::Error> {
        Tree::deserialize(deserializer)
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Tree, E> {
        Ok(Tree::Bool(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Tree, E> {
        Ok(if v >= 0 {
            Tree::Pos(v as u64)
        } else {
            Tree::Neg(v)
        })
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Tree, E> {
        Ok(Tree::Pos(v))
    }

    fn visit_i128<E: de::Error>(self, v: i128) -> Result<Tree, E> {
        if let Ok(v) = u64::try_from(v) {
            Ok(Tree::Pos(v))
        } else if let Ok(v) = i64::try_from(v) {
            Ok(Tree::Neg(v))
        } else {
            Err(E::custom(format!(
                "integer {v} is out of MessagePack's range"
            )))
        }
    }

    fn visit_u128<E: de::Error>(self, v: u128) -> Result<Tree, E> {
        u64::try_from(v)
            .map(Tree::Pos)
            .map_err(|_| E::custom(format!("integer {v} is out of MessagePack's range")))
    }

    fn visit_f32<E: de::Error>(self, v: f32) -> Result<Tree, E> {
        Ok(Tree::F32(v))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Tree, E> {
        Ok(Tree::F64(v))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Tree, E> {
        Ok(Tree::Str(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Tree, E> {
        Ok(Tree::Str(v))
    }

    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Tree, E> {
        Ok(Tree::Bytes(v.to_vec()))
    }

    fn visit_byte_buf<E: de::Error>(self, v: Vec<u8>) -> Result<Tree, E> {
        Ok(Tree::Bytes(v))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Tree, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Tree::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Tree, A::Error> {
        let mut entries = Vec::with_capacity(map.size_hint().unwrap_or(0).min(4096));
        while let Some(entry) = map.next_entry()? {
            entries.push(entry);
        }
        Ok(Tree::Map(entries))
    }

    /// rmp-serde gives an extension as a newtype of `(type, data)`.
    fn visit_newtype_struct<D: Deserializer<'de>>(self, deserializer: D) -> Result<Tree, D::Error> {
        deserializer.deserialize_tuple(2, ExtVisitor)
    }
}

struct ExtVisitor;

impl<'de> Visitor<'de> for ExtVisitor {
    type Value = Tree;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a MessagePack extension: its type and data")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Tree, A::Error> {
        let ty: i8 = seq
            .next_element()?
            .ok_or_else(|| de::Error::invalid_length(0, &self))?;
        let data = seq
            .next_element::<Tree>()?
            .ok_or_else(|| de::Error::invalid_length(1, &self))?;
        match data {
            Tree::Bytes(data) => Ok(Tree::Ext(ty, data)),
            _ => Err(de::Error::custom("an extension's data must be bytes")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msgpack_tree(bytes: &[u8]) -> Tree {
        Tree::read_msgpack(&mut MsgpackReader::new(bytes)).unwrap()
    }

    #[test]
    fn trees_write_back_the_msgpack_they_were_read_from() {
        let cases: &[&[u8]] = &[
            b"\xc0",
            b"\xc3",
            b"\x7f",
            b"\xcc\x80",
            b"\xcf\xff\xff\xff\xff\xff\xff\xff\xff",
            b"\xe0",
            b"\xd3\x80\x00\x00\x00\x00\x00\x00\x00",
            b"\xca\x3f\xc0\x00\x00",
            b"\xcb\x3f\xf8\x00\x00\x00\x00\x00\x00",
            b"\xa2hi",
            b"\xc4\x02\x00\xff",
            b"\x92\x01\xa1x",
            b"\x82\xa1b\x01\x01\xc0",
            b"\xd6\xff\x00\x00\x00\x01",
        ];
        for bytes in cases {
            let mut w = MsgpackWriter::default();
            msgpack_tree(bytes).write_msgpack(&mut w).unwrap();
            assert_eq!(w.as_slice(), *bytes);
        }
    }

    #[test]
    fn rmp_serde_writes_and_reads_extensions_as_extensions() {
        let tree = msgpack_tree(b"\xd6\xff\x00\x00\x00\x01");
        let bytes = rmp_serde::to_vec(&tree).unwrap();
        assert_eq!(bytes, b"\xd6\xff\x00\x00\x00\x01");
        assert_eq!(rmp_serde::from_slice::<Tree>(&bytes).unwrap(), tree);
    }
}
