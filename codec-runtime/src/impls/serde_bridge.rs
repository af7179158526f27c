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
//! be a variant of an untagged union. [`crate::Serde`] is the wrapper form.

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::error::{DecodeError, EncodeError};
use crate::json::{JsonReader, JsonWriter};
use crate::msgpack::{MsgpackReader, MsgpackWriter};

/// Appends `value` as MessagePack, maps with field names (as codec writes structs).
#[doc(hidden)]
pub fn encode_msgpack<T: Serialize>(value: &T, w: &mut MsgpackWriter) -> Result<(), EncodeError> {
    rmp_serde::encode::write_named(w.buffer_mut(), value).map_err(EncodeError::custom)
}

/// Reads one value of `T` from MessagePack.
#[doc(hidden)]
pub fn decode_msgpack<T: DeserializeOwned>(r: &mut MsgpackReader<'_>) -> Result<T, DecodeError> {
    let start = r.position();
    let bytes = r.read_raw_value()?;
    rmp_serde::from_slice(bytes)
        .map_err(|e| DecodeError::custom(e).at(crate::error::Format::MsgPack, start))
}

/// Appends `value` as JSON.
#[doc(hidden)]
pub fn encode_json<T: Serialize>(value: &T, w: &mut JsonWriter) -> Result<(), EncodeError> {
    serde_json::to_writer(w.buffer_mut(), value).map_err(EncodeError::custom)
}

/// Reads one value of `T` from JSON.
#[doc(hidden)]
pub fn decode_json<T: DeserializeOwned>(r: &mut JsonReader<'_>) -> Result<T, DecodeError> {
    let start = r.position();
    let text = r.read_raw_value()?;
    serde_json::from_str(text)
        .map_err(|e| DecodeError::custom(e).at(crate::error::Format::Json, start))
}

/// The type's schemars schema.
#[doc(hidden)]
pub fn json_schema<T: JsonSchema>(generator: &mut SchemaGenerator) -> Schema {
    generator.subschema_for::<T>()
}
