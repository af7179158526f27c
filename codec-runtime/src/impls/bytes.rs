//! Byte buffers: MessagePack `bin`, base64 strings in JSON, never arrays of ints.
//!
//! `u8` overrides the sequence hooks of [`Codec`] and [`Encode`], so `Vec<u8>`, `[u8; N]`,
//! `Box<[u8]>` and [`Bytes`] all take the byte-buffer encoding.

use crate::codec::Schema;
use crate::decode::Decode;
use crate::encode::Encode;
use crate::error::{DecodeError, DecodeErrorKind, EncodeError};
use crate::json::{JsonReader, JsonWriter};
use crate::kind::WireKind;
use crate::msgpack::{MsgpackReader, MsgpackWriter};
use crate::schema;
use schemars::SchemaGenerator;

/// An integer alone; sequences of `u8` are byte buffers.
impl Encode for u8 {
    #[inline]
    fn encode_msgpack(&self, w: &mut MsgpackWriter) -> Result<(), EncodeError> {
        w.write_u64(*self as u64);
        Ok(())
    }

    #[inline]
    fn encode_json(&self, w: &mut JsonWriter) -> Result<(), EncodeError> {
        w.write_u64(*self as u64);
        Ok(())
    }

    fn __encode_json_key(&self, w: &mut JsonWriter) -> Result<(), EncodeError> {
        w.write_byte(b'"');
        w.write_u64(*self as u64);
        w.write_byte(b'"');
        Ok(())
    }

    fn __encode_msgpack_slice(items: &[Self], w: &mut MsgpackWriter) -> Result<(), EncodeError> {
        w.write_bin(items)
    }

    fn __encode_json_slice(items: &[Self], w: &mut JsonWriter) -> Result<(), EncodeError> {
        w.write_base64(items);
        Ok(())
    }
}

impl<'de> Decode<'de> for u8 {
    #[inline]
    fn decode_msgpack(r: &mut MsgpackReader<'de>) -> Result<Self, DecodeError> {
        r.read_int("u8")
    }

    #[inline]
    fn decode_json(r: &mut JsonReader<'de>) -> Result<Self, DecodeError> {
        r.read_int("u8")
    }

    fn __decode_msgpack_vec(r: &mut MsgpackReader<'de>) -> Result<Vec<Self>, DecodeError> {
        r.read_bin().map(<[u8]>::to_vec)
    }

    fn __decode_json_vec(r: &mut JsonReader<'de>) -> Result<Vec<Self>, DecodeError> {
        use base64::Engine as _;
        let text = r.read_str()?;
        base64::engine::general_purpose::STANDARD
            .decode(text.as_bytes())
            .map_err(|e| {
                r.error(DecodeErrorKind::InvalidValue {
                    message: format!("bytes must be a base64 string: {e}"),
                })
            })
    }

    fn __decode_json_key(
        r: &mut JsonReader<'de>,
        key: std::borrow::Cow<'de, str>,
    ) -> Result<Self, DecodeError> {
        let key: &str = &key;
        key.parse().map_err(|_| {
            r.error(DecodeErrorKind::InvalidValue {
                message: format!("object key `{key}` is not a valid u8"),
            })
        })
    }
}

impl Schema for u8 {
    const KIND: WireKind = WireKind::INT;
    const __SEQ_KIND: WireKind = WireKind::BYTES;

    fn json_schema(_: &mut SchemaGenerator) -> schemars::Schema {
        schema::integer(0, 255)
    }
}

/// An owned byte buffer: `bin` in MessagePack, a base64 string in JSON.
///
/// `Vec<u8>` fields already encode this way; `Bytes` names the intent and
/// gives byte-oriented `Debug` output.
///
/// ```
/// let b = codec::Bytes::from(vec![1, 2, 3]);
/// assert_eq!(codec::to_msgpack(&b).unwrap(), [0xc4, 3, 1, 2, 3]);
/// assert_eq!(codec::to_json(&b).unwrap(), r#""AQID""#);
/// ```
#[derive(Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Bytes(pub Vec<u8>);

impl Bytes {
    /// An empty buffer.
    pub fn new() -> Self {
        Bytes(Vec::new())
    }

    /// The buffer.
    pub fn into_vec(self) -> Vec<u8> {
        self.0
    }
}

impl std::fmt::Debug for Bytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "b\"{}\"", self.0.escape_ascii())
    }
}

impl std::ops::Deref for Bytes {
    type Target = Vec<u8>;
    fn deref(&self) -> &Vec<u8> {
        &self.0
    }
}

impl std::ops::DerefMut for Bytes {
    fn deref_mut(&mut self) -> &mut Vec<u8> {
        &mut self.0
    }
}

impl From<Vec<u8>> for Bytes {
    fn from(v: Vec<u8>) -> Self {
        Bytes(v)
    }
}

impl From<&[u8]> for Bytes {
    fn from(v: &[u8]) -> Self {
        Bytes(v.to_vec())
    }
}

impl From<Bytes> for Vec<u8> {
    fn from(b: Bytes) -> Self {
        b.0
    }
}

impl AsRef<[u8]> for Bytes {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

impl Encode for Bytes {
    fn encode_msgpack(&self, w: &mut MsgpackWriter) -> Result<(), EncodeError> {
        w.write_bin(&self.0)
    }

    fn encode_json(&self, w: &mut JsonWriter) -> Result<(), EncodeError> {
        w.write_base64(&self.0);
        Ok(())
    }
}

impl<'de> Decode<'de> for Bytes {
    fn decode_msgpack(r: &mut MsgpackReader<'de>) -> Result<Self, DecodeError> {
        u8::__decode_msgpack_vec(r).map(Bytes)
    }

    fn decode_json(r: &mut JsonReader<'de>) -> Result<Self, DecodeError> {
        u8::__decode_json_vec(r).map(Bytes)
    }
}

impl Schema for Bytes {
    const KIND: WireKind = WireKind::BYTES;

    fn json_schema(_: &mut SchemaGenerator) -> schemars::Schema {
        schema::bytes()
    }
}
