//! The documented entry points: encode to and decode from whole buffers.

use crate::codec::Codec;
use crate::error::{DecodeError, EncodeError};
use crate::json::{JsonReader, JsonWriter};
use crate::msgpack::{MsgpackReader, MsgpackWriter};

/// Encodes `value` as MessagePack.
///
/// ```
/// #[derive(codec::Codec)]
/// struct A { x: i64 }
/// assert_eq!(codec::to_msgpack(&A { x: 1 }).unwrap(), b"\x81\xa1x\x01");
/// ```
pub fn to_msgpack<T: Codec>(value: &T) -> Result<Vec<u8>, EncodeError> {
    // One allocation covers most single records; larger values grow from it.
    let mut buf = Vec::with_capacity(128);
    to_msgpack_into(value, &mut buf)?;
    Ok(buf)
}

/// Appends the MessagePack encoding of `value` to `buf`, reusing its capacity.
///
/// On error, `buf` keeps its previous contents.
pub fn to_msgpack_into<T: Codec>(value: &T, buf: &mut Vec<u8>) -> Result<(), EncodeError> {
    let start = buf.len();
    let mut w = MsgpackWriter::new(std::mem::take(buf));
    let result = value.encode_msgpack(&mut w);
    *buf = w.into_inner();
    if result.is_err() {
        buf.truncate(start);
    }
    result
}

/// Decodes one value from MessagePack; bytes after it are an error.
pub fn from_msgpack<T: Codec>(bytes: &[u8]) -> Result<T, DecodeError> {
    let mut r = MsgpackReader::new(bytes);
    let value = T::decode_msgpack(&mut r).map_err(|e| r.locate(e))?;
    r.finish()?;
    Ok(value)
}

/// Encodes `value` as compact JSON text.
///
/// ```
/// #[derive(codec::Codec)]
/// enum Event { Click { x: i64, y: i64 } }
/// let text = codec::to_json(&Event::Click { x: 3, y: -4 }).unwrap();
/// assert_eq!(text, r#"{"type":"Click","x":3,"y":-4}"#);
/// ```
pub fn to_json<T: Codec>(value: &T) -> Result<String, EncodeError> {
    let bytes = to_json_vec(value)?;
    // The writer emits only ASCII structure and the UTF-8 of Rust strings.
    Ok(String::from_utf8(bytes).expect("JsonWriter writes UTF-8"))
}

/// Encodes `value` as compact JSON, as bytes.
pub fn to_json_vec<T: Codec>(value: &T) -> Result<Vec<u8>, EncodeError> {
    let mut w = JsonWriter::new(Vec::with_capacity(128));
    value.encode_json(&mut w)?;
    Ok(w.into_inner())
}

/// Decodes one value from JSON text; anything but whitespace after it is an error.
pub fn from_json<T: Codec>(text: &str) -> Result<T, DecodeError> {
    decode_json(JsonReader::new(text))
}

/// Decodes one value from JSON bytes, which must be UTF-8.
pub fn from_json_slice<T: Codec>(bytes: &[u8]) -> Result<T, DecodeError> {
    decode_json(JsonReader::from_slice(bytes)?)
}

fn decode_json<T: Codec>(mut r: JsonReader<'_>) -> Result<T, DecodeError> {
    let value = T::decode_json(&mut r).map_err(|e| r.locate(e))?;
    r.finish()?;
    Ok(value)
}

/// Decoding with limits other than the defaults: the nesting depth (128) and
/// the input size (none).
///
/// ```
/// let options = codec::DecodeOptions::new().depth_limit(16).max_input(1 << 20);
/// let v: Vec<Vec<u32>> = options.from_json("[[1], [2]]").unwrap();
/// assert_eq!(v, vec![vec![1], vec![2]]);
/// ```
#[derive(Debug, Clone, Copy)]
pub struct DecodeOptions {
    depth_limit: u32,
    max_input: Option<usize>,
}

impl Default for DecodeOptions {
    fn default() -> Self {
        DecodeOptions {
            depth_limit: crate::msgpack::DEFAULT_DEPTH_LIMIT,
            max_input: None,
        }
    }
}

impl DecodeOptions {
    /// The defaults.
    pub fn new() -> Self {
        Self::default()
    }

    /// How many levels values may nest (structs, enums, boxes, collections).
    pub fn depth_limit(mut self, limit: u32) -> Self {
        self.depth_limit = limit;
        self
    }

    /// The largest input accepted, in bytes.
    pub fn max_input(mut self, bytes: usize) -> Self {
        self.max_input = Some(bytes);
        self
    }

    fn check_size(&self, len: usize, format: crate::Format) -> Result<(), DecodeError> {
        match self.max_input {
            Some(limit) if len > limit => Err(DecodeError::new(
                crate::DecodeErrorKind::InputTooLarge { len, limit },
            )
            .at(format, 0)),
            _ => Ok(()),
        }
    }

    /// [`from_msgpack`] with these options.
    pub fn from_msgpack<T: Codec>(&self, bytes: &[u8]) -> Result<T, DecodeError> {
        self.check_size(bytes.len(), crate::Format::MsgPack)?;
        let mut r = MsgpackReader::with_depth_limit(bytes, self.depth_limit);
        let value = T::decode_msgpack(&mut r).map_err(|e| r.locate(e))?;
        r.finish()?;
        Ok(value)
    }

    /// [`from_json`] with these options.
    pub fn from_json<T: Codec>(&self, text: &str) -> Result<T, DecodeError> {
        self.check_size(text.len(), crate::Format::Json)?;
        decode_json(JsonReader::with_depth_limit(text, self.depth_limit))
    }
}
