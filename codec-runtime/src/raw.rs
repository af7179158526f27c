//! [`Raw`]: a value kept encoded, msgspec's `Raw`.

use schemars::SchemaGenerator;

use crate::codec::{Codec, Schema};
use crate::decode::Decode;
use crate::encode::Encode;
use crate::error::{DecodeError, EncodeError, Format};
use crate::json::{JsonReader, JsonWriter};
use crate::kind::WireKind;
use crate::msgpack::{MsgpackReader, MsgpackWriter};
use crate::value::Value;

/// One encoded value, kept as its bytes: decoding a `Raw` field only checks
/// where the value ends, and encoding writes the bytes back unchanged.
///
/// Use it for a part of a message to decode later ([`Raw::decode`]), once
/// its type is known, or to pass through untouched. It remembers its format:
/// written into the other format it is translated through [`Value`], so
/// JSON kept from one message can go into a MessagePack one.
///
/// ```
/// #[derive(codec::Codec)]
/// struct Envelope { kind: String, body: codec::Raw }
///
/// #[derive(codec::Codec, Debug, PartialEq)]
/// struct Click { x: i64 }
///
/// let text = r#"{"kind":"click","body":{"x":3}}"#;
/// let env: Envelope = codec::from_json(text).unwrap();
/// assert_eq!(env.body.as_bytes(), br#"{"x":3}"#);
/// assert_eq!(env.body.decode::<Click>().unwrap(), Click { x: 3 });
/// assert_eq!(codec::to_json(&env).unwrap(), text);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Raw {
    format: Format,
    bytes: Vec<u8>,
}

impl Raw {
    /// Keeps `bytes`, which must be exactly one MessagePack value.
    pub fn from_msgpack(bytes: &[u8]) -> Result<Raw, DecodeError> {
        let mut r = MsgpackReader::new(bytes);
        r.skip_value()?;
        r.finish()?;
        Ok(Raw {
            format: Format::MsgPack,
            bytes: bytes.to_vec(),
        })
    }

    /// Keeps `text`, which must be exactly one JSON value (whitespace
    /// around it is dropped).
    pub fn from_json(text: &str) -> Result<Raw, DecodeError> {
        let mut r = JsonReader::new(text);
        let value = r.read_raw_value()?;
        r.finish()?;
        Ok(Raw {
            format: Format::Json,
            bytes: value.as_bytes().to_vec(),
        })
    }

    /// The MessagePack encoding of `value`, kept.
    pub fn to_msgpack<T: Codec>(value: &T) -> Result<Raw, EncodeError> {
        Ok(Raw {
            format: Format::MsgPack,
            bytes: crate::convert::to_msgpack(value)?,
        })
    }

    /// The JSON encoding of `value`, kept.
    pub fn to_json<T: Codec>(value: &T) -> Result<Raw, EncodeError> {
        Ok(Raw {
            format: Format::Json,
            bytes: crate::convert::to_json_vec(value)?,
        })
    }

    /// The format of the kept bytes.
    pub fn format(&self) -> Format {
        self.format
    }

    /// The kept bytes (UTF-8 text for JSON).
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Decodes the kept bytes as a `T`, in their format.
    pub fn decode<T: Codec>(&self) -> Result<T, DecodeError> {
        match self.format {
            Format::MsgPack => crate::convert::from_msgpack(&self.bytes),
            Format::Json => crate::convert::from_json_slice(&self.bytes),
        }
    }

    fn translated(&self) -> Result<Value, EncodeError> {
        self.decode::<Value>()
            .map_err(|e| EncodeError::InvalidValue {
                message: format!("a kept value could not be translated to the other format: {e}"),
            })
    }
}

impl Encode for Raw {
    fn encode_msgpack(&self, w: &mut MsgpackWriter) -> Result<(), EncodeError> {
        match self.format {
            Format::MsgPack => {
                w.write_raw(&self.bytes);
                Ok(())
            }
            Format::Json => self.translated()?.encode_msgpack(w),
        }
    }

    fn encode_json(&self, w: &mut JsonWriter) -> Result<(), EncodeError> {
        match self.format {
            Format::Json => {
                w.write_raw(&self.bytes);
                Ok(())
            }
            Format::MsgPack => self.translated()?.encode_json(w),
        }
    }
}

impl<'de> Decode<'de> for Raw {
    fn decode_msgpack(r: &mut MsgpackReader<'de>) -> Result<Self, DecodeError> {
        Ok(Raw {
            format: Format::MsgPack,
            bytes: r.read_raw_value()?.to_vec(),
        })
    }

    fn decode_json(r: &mut JsonReader<'de>) -> Result<Self, DecodeError> {
        Ok(Raw {
            format: Format::Json,
            bytes: r.read_raw_value()?.as_bytes().to_vec(),
        })
    }
}

impl Schema for Raw {
    const KIND: WireKind = WireKind::ANY;

    /// Any JSON value, marked as kept encoded (msgspec's `Raw` in Python);
    /// the mark is not part of the fingerprint.
    fn json_schema(_: &mut SchemaGenerator) -> schemars::Schema {
        crate::schema::raw()
    }
}
