//! The bridge to serde (feature `serde`): any `Serialize + Deserialize` type
//! as a field, through rmp-serde and serde_json, with its schemars schema.
//!
//! ```
//! # #[cfg(feature = "serde")] {
//! #[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema, Debug, PartialEq)]
//! struct Foreign { a: u32 }
//!
//! #[derive(codec::Codec, Debug, PartialEq)]
//! struct Mine {
//!     #[codec(with = "codec::serde_bridge")]
//!     foreign: Foreign,
//!     wrapped: codec::Serde<Foreign>,
//! }
//!
//! let v = Mine { foreign: Foreign { a: 1 }, wrapped: codec::Serde(Foreign { a: 2 }) };
//! assert_eq!(codec::to_json(&v).unwrap(), r#"{"foreign":{"a":1},"wrapped":{"a":2}}"#);
//! assert_eq!(codec::from_msgpack::<Mine>(&codec::to_msgpack(&v).unwrap()).unwrap(), v);
//! assert_eq!(codec::schema_of::<Mine>()["properties"]["foreign"]["$ref"], "#/$defs/Foreign");
//! # }
//! ```
//!
//! The bridge's wire kind is unknown to codec, so a bridged payload cannot
//! be a variant of an untagged union.

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::codec::Codec;
use crate::error::{DecodeError, EncodeError};
use crate::json::{JsonReader, JsonWriter};
use crate::kind::WireKind;
use crate::msgpack::{MsgpackReader, MsgpackWriter};

/// Appends `value` as MessagePack, maps with field names (as codec writes structs).
pub fn encode_msgpack<T: Serialize>(value: &T, w: &mut MsgpackWriter) -> Result<(), EncodeError> {
    rmp_serde::encode::write_named(w.buffer_mut(), value).map_err(EncodeError::custom)
}

/// Reads one value of `T` from MessagePack.
pub fn decode_msgpack<T: DeserializeOwned>(r: &mut MsgpackReader<'_>) -> Result<T, DecodeError> {
    let start = r.position();
    let bytes = r.read_raw_value()?;
    rmp_serde::from_slice(bytes)
        .map_err(|e| DecodeError::custom(e).at(crate::Format::MsgPack, start))
}

/// Appends `value` as JSON.
pub fn encode_json<T: Serialize>(value: &T, w: &mut JsonWriter) -> Result<(), EncodeError> {
    serde_json::to_writer(w.buffer_mut(), value).map_err(EncodeError::custom)
}

/// Reads one value of `T` from JSON.
pub fn decode_json<T: DeserializeOwned>(r: &mut JsonReader<'_>) -> Result<T, DecodeError> {
    let start = r.position();
    let text = r.read_raw_value()?;
    serde_json::from_str(text).map_err(|e| DecodeError::custom(e).at(crate::Format::Json, start))
}

/// The type's schemars schema.
pub fn json_schema<T: JsonSchema>(generator: &mut SchemaGenerator) -> Schema {
    generator.subschema_for::<T>()
}

/// A serde type as a codec value: the wrapper form of [`self`](crate::serde_bridge).
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Serde<T>(pub T);

impl<T: Serialize + DeserializeOwned + JsonSchema> Codec for Serde<T> {
    const KIND: WireKind = WireKind::ANY;

    fn encode_msgpack(&self, w: &mut MsgpackWriter) -> Result<(), EncodeError> {
        encode_msgpack(&self.0, w)
    }

    fn decode_msgpack(r: &mut MsgpackReader<'_>) -> Result<Self, DecodeError> {
        decode_msgpack(r).map(Serde)
    }

    fn encode_json(&self, w: &mut JsonWriter) -> Result<(), EncodeError> {
        encode_json(&self.0, w)
    }

    fn decode_json(r: &mut JsonReader<'_>) -> Result<Self, DecodeError> {
        decode_json(r).map(Serde)
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        json_schema::<T>(generator)
    }
}
