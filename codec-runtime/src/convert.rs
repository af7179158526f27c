//! Values to bytes and back: `to_msgpack`, `from_json` and the rest, with
//! their decoding options.

use crate::codec::Codec;
use crate::decode::Decode;
use crate::encode::Encode;
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
pub fn to_msgpack<T: Encode + ?Sized>(value: &T) -> Result<Vec<u8>, EncodeError> {
    encode_fresh(|buf| to_msgpack_into(value, buf))
}

/// Encodings up to this size are copied out of the per-thread buffer; a
/// larger one takes the buffer itself, so no thread keeps more than this.
const SCRATCH_KEEP: usize = 64 * 1024;

thread_local! {
    static SCRATCH: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Runs `encode` on a per-thread buffer that keeps its capacity between
/// calls, and returns the bytes in a new `Vec` of their exact size: one
/// allocation per value, never a regrowth, and no slack kept by the caller.
fn encode_fresh(
    encode: impl FnOnce(&mut Vec<u8>) -> Result<(), EncodeError>,
) -> Result<Vec<u8>, EncodeError> {
    SCRATCH.with(|cell| match cell.try_borrow_mut() {
        Ok(mut scratch) => {
            scratch.clear();
            encode(&mut scratch)?;
            Ok(if scratch.len() <= SCRATCH_KEEP {
                scratch.to_vec()
            } else {
                std::mem::take(&mut *scratch)
            })
        }
        // An encoder that calls `to_msgpack` itself (a `with` module): the
        // scratch buffer is in use further up the stack.
        Err(_) => {
            let mut buf = Vec::new();
            encode(&mut buf)?;
            Ok(buf)
        }
    })
}

/// The MessagePack encoding of `value`, and where its `bin` values of at
/// least `min` bytes are (see [`MsgpackWriter::tracking_large_bins`]).
pub fn to_msgpack_tracking<T: Codec>(
    value: &T,
    min: usize,
) -> Result<(Vec<u8>, Vec<crate::msgpack::LargeBin>), EncodeError> {
    let mut large = Vec::new();
    let bytes = encode_fresh(|buf| {
        let mut w = MsgpackWriter::new(std::mem::take(buf));
        let (result, found) = w.tracking_large_bins(min, |w| value.encode_msgpack(w));
        large = found;
        *buf = w.into_inner();
        result
    })?;
    Ok((bytes, large))
}

/// [`to_msgpack_tracking`], each value of a type with a store handler
/// inside `value` (not `value` itself) given to `divert`: see
/// [`MsgpackWriter::diverting`].
pub fn to_msgpack_diverting<T: Codec + 'static>(
    value: &T,
    min: usize,
    divert: &mut dyn crate::msgpack::handled::Divert,
) -> Result<(Vec<u8>, Vec<crate::msgpack::LargeBin>), EncodeError> {
    let mut large = Vec::new();
    let root = Some(std::any::TypeId::of::<T>());
    let bytes = encode_fresh(|buf| {
        let mut w = MsgpackWriter::new(std::mem::take(buf));
        let (result, found) = w.diverting(root, divert, |w| {
            w.tracking_large_bins(min, |w| value.encode_msgpack(w))
        });
        large = found;
        *buf = w.into_inner();
        result
    })?;
    Ok((bytes, large))
}

/// Appends the MessagePack encoding of `value` to `buf`, reusing its capacity.
///
/// On error, `buf` keeps its previous contents.
pub fn to_msgpack_into<T: Encode + ?Sized>(
    value: &T,
    buf: &mut Vec<u8>,
) -> Result<(), EncodeError> {
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
///
/// `T` may borrow from `bytes` (see [`Decode`]).
pub fn from_msgpack<'de, T: Decode<'de>>(bytes: &'de [u8]) -> Result<T, DecodeError> {
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
pub fn to_json<T: Encode + ?Sized>(value: &T) -> Result<String, EncodeError> {
    let bytes = to_json_vec(value)?;
    // The writer emits only ASCII structure and the UTF-8 of Rust strings.
    Ok(String::from_utf8(bytes).expect("JsonWriter writes UTF-8"))
}

/// Encodes `value` as compact JSON, as bytes.
pub fn to_json_vec<T: Encode + ?Sized>(value: &T) -> Result<Vec<u8>, EncodeError> {
    encode_fresh(|buf| {
        let mut w = JsonWriter::new(std::mem::take(buf));
        let result = value.encode_json(&mut w);
        *buf = w.into_inner();
        result
    })
}

/// Decodes one value from JSON text; anything but whitespace after it is an error.
///
/// `T` may borrow from `text` (see [`Decode`]).
pub fn from_json<'de, T: Decode<'de>>(text: &'de str) -> Result<T, DecodeError> {
    decode_json(JsonReader::new(text))
}

/// Decodes one value from JSON bytes, which must be UTF-8.
pub fn from_json_slice<'de, T: Decode<'de>>(bytes: &'de [u8]) -> Result<T, DecodeError> {
    decode_json(JsonReader::from_slice(bytes)?)
}

fn decode_json<'de, T: Decode<'de>>(mut r: JsonReader<'de>) -> Result<T, DecodeError> {
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

    fn check_size(&self, len: usize, format: crate::error::Format) -> Result<(), DecodeError> {
        match self.max_input {
            Some(limit) if len > limit => Err(DecodeError::new(
                crate::error::DecodeErrorKind::InputTooLarge { len, limit },
            )
            .at(format, 0)),
            _ => Ok(()),
        }
    }

    /// [`from_msgpack`] with these options.
    pub fn from_msgpack<'de, T: Decode<'de>>(&self, bytes: &'de [u8]) -> Result<T, DecodeError> {
        self.check_size(bytes.len(), crate::error::Format::MsgPack)?;
        let mut r = MsgpackReader::with_depth_limit(bytes, self.depth_limit);
        let value = T::decode_msgpack(&mut r).map_err(|e| r.locate(e))?;
        r.finish()?;
        Ok(value)
    }

    /// [`from_json`] with these options.
    pub fn from_json<'de, T: Decode<'de>>(&self, text: &'de str) -> Result<T, DecodeError> {
        self.check_size(text.len(), crate::error::Format::Json)?;
        decode_json(JsonReader::with_depth_limit(text, self.depth_limit))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Encodes a `u32` through a nested `to_msgpack` call, as a `with` module might.
    struct Nested(u32);

    impl Encode for Nested {
        fn encode_msgpack(&self, w: &mut MsgpackWriter) -> Result<(), EncodeError> {
            let inner = to_msgpack(&self.0)?;
            w.write_bin(&inner)
        }

        fn encode_json(&self, w: &mut JsonWriter) -> Result<(), EncodeError> {
            self.0.encode_json(w)
        }
    }

    impl<'de> Decode<'de> for Nested {
        fn decode_msgpack(r: &mut MsgpackReader<'de>) -> Result<Self, DecodeError> {
            from_msgpack(r.read_bin()?).map(Nested)
        }

        fn decode_json(r: &mut JsonReader<'de>) -> Result<Self, DecodeError> {
            u32::decode_json(r).map(Nested)
        }
    }

    impl crate::codec::Schema for Nested {
        const KIND: crate::kind::WireKind = crate::kind::WireKind::BYTES;

        fn json_schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
            u32::json_schema(g)
        }
    }

    #[test]
    fn fresh_buffers_are_exact_and_independent_of_earlier_calls() {
        let big = vec![7u8; SCRATCH_KEEP * 2];
        let big_bytes = to_msgpack(&big).unwrap();
        assert_eq!(from_msgpack::<Vec<u8>>(&big_bytes).unwrap(), big);
        let small = to_msgpack(&String::from("abc")).unwrap();
        assert_eq!(small, b"\xa3abc");
        assert_eq!(small.capacity(), small.len());
        assert_eq!(to_json_vec(&String::from("abc")).unwrap(), b"\"abc\"");
    }

    #[test]
    fn an_encoder_may_call_to_msgpack_itself() {
        let bytes = to_msgpack(&vec![Nested(1), Nested(300)]).unwrap();
        assert_eq!(bytes, b"\x92\xc4\x01\x01\xc4\x03\xcd\x01\x2c");
        let back: Vec<Nested> = from_msgpack(&bytes).unwrap();
        assert_eq!(back.iter().map(|n| n.0).collect::<Vec<_>>(), [1, 300]);
    }
}
