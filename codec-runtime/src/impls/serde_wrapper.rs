//! [`Serde`]: a serde type as a codec value, the wrapper form of
//! [`crate::serde_bridge`].

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::de::DeserializeOwned;
use serde::Serialize;

use super::serde_bridge::{decode_json, decode_msgpack, encode_json, encode_msgpack, json_schema};
use crate::codec::Codec;
use crate::error::{DecodeError, EncodeError};
use crate::json::{JsonReader, JsonWriter};
use crate::kind::WireKind;
use crate::msgpack::{MsgpackReader, MsgpackWriter};

/// A serde type as a codec value: the wrapper form of [`crate::serde_bridge`].
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Serde<T>(pub T);

crate::encode::encode_by_codec!([T: Serialize + DeserializeOwned + JsonSchema] Serde<T>);

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
