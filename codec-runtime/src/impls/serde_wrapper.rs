//! [`Serde`]: a serde type as a codec value, the wrapper form of
//! [`crate::serde_bridge`]; [`Opaque`]: one without a schema, versioned by
//! hand.

use schemars::{JsonSchema, SchemaGenerator};
use serde::de::DeserializeOwned;
use serde::Serialize;

use super::serde_bridge::{decode_json, decode_msgpack, encode_json, encode_msgpack, json_schema};
use crate::codec::Schema;
use crate::decode::Decode;
use crate::encode::Encode;
use crate::error::{DecodeError, EncodeError};
use crate::json::{JsonReader, JsonWriter};
use crate::kind::WireKind;
use crate::msgpack::{MsgpackReader, MsgpackWriter};

/// A serde type as a codec value: the wrapper form of [`crate::serde_bridge`].
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Serde<T>(pub T);

impl<T: Serialize + DeserializeOwned + JsonSchema> Encode for Serde<T> {
    fn encode_msgpack(&self, w: &mut MsgpackWriter) -> Result<(), EncodeError> {
        encode_msgpack(&self.0, w)
    }

    fn encode_json(&self, w: &mut JsonWriter) -> Result<(), EncodeError> {
        encode_json(&self.0, w)
    }
}

impl<'de, T: Serialize + DeserializeOwned + JsonSchema> Decode<'de> for Serde<T> {
    fn decode_msgpack(r: &mut MsgpackReader<'de>) -> Result<Self, DecodeError> {
        decode_msgpack(r).map(Serde)
    }

    fn decode_json(r: &mut JsonReader<'de>) -> Result<Self, DecodeError> {
        decode_json(r).map(Serde)
    }
}

impl<T: Serialize + DeserializeOwned + JsonSchema> Schema for Serde<T> {
    const KIND: WireKind = WireKind::ANY;

    fn json_schema(generator: &mut SchemaGenerator) -> schemars::Schema {
        json_schema::<T>(generator)
    }
}

/// A serde type as a codec value, for a type that has serde but not
/// schemars' `JsonSchema`: encoded as [`Serde`] encodes it (rmp-serde,
/// serde_json), with a schema that says nothing of the type but the
/// `VERSION` you declare (1 unless given).
///
/// codec cannot see a change to `T`, so the fingerprint, the diff and the
/// drift check see only `VERSION`: raise it when `T`'s serde form changes,
/// as a memo's version is raised. A stored value written with another
/// version is then refused, never read as something else. Python's classes
/// read the value as `typing.Any`.
///
/// ```
/// # #[cfg(feature = "serde")] {
/// #[derive(serde::Serialize, serde::Deserialize, Debug, PartialEq)]
/// struct Point { x: i32, y: i32 } // no JsonSchema
///
/// #[derive(codec::Codec, Debug, PartialEq)]
/// struct Shape {
///     name: String,
///     origin: codec::Opaque<Point>,
///     end: codec::Opaque<Point, 2>,
/// }
///
/// let shape = Shape {
///     name: "line".into(),
///     origin: codec::Opaque(Point { x: 0, y: 0 }),
///     end: codec::Opaque(Point { x: 3, y: 4 }),
/// };
/// let json = codec::to_json(&shape).unwrap();
/// assert_eq!(json, r#"{"name":"line","origin":{"x":0,"y":0},"end":{"x":3,"y":4}}"#);
/// assert_eq!(codec::from_json::<Shape>(&json).unwrap(), shape);
/// assert_eq!(codec::schema_of::<Shape>()["properties"]["end"]["x-codec-opaque"], 2);
/// # }
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Opaque<T, const VERSION: u32 = 1>(pub T);

impl<T: Serialize + DeserializeOwned, const VERSION: u32> Encode for Opaque<T, VERSION> {
    fn encode_msgpack(&self, w: &mut MsgpackWriter) -> Result<(), EncodeError> {
        encode_msgpack(&self.0, w)
    }

    fn encode_json(&self, w: &mut JsonWriter) -> Result<(), EncodeError> {
        encode_json(&self.0, w)
    }
}

impl<'de, T: Serialize + DeserializeOwned, const VERSION: u32> Decode<'de> for Opaque<T, VERSION> {
    fn decode_msgpack(r: &mut MsgpackReader<'de>) -> Result<Self, DecodeError> {
        decode_msgpack(r).map(Opaque)
    }

    fn decode_json(r: &mut JsonReader<'de>) -> Result<Self, DecodeError> {
        decode_json(r).map(Opaque)
    }
}

impl<T: Serialize + DeserializeOwned, const VERSION: u32> Schema for Opaque<T, VERSION> {
    const KIND: WireKind = WireKind::ANY;

    fn json_schema(_: &mut SchemaGenerator) -> schemars::Schema {
        let description = format!(
            "a serde value of `{}`, opaque to codec: version {VERSION}",
            std::any::type_name::<T>()
        );
        schemars::json_schema!({
            crate::schema::build::OPAQUE: VERSION,
            "description": description,
        })
    }
}
