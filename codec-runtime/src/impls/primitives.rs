//! Integers, floats, booleans, chars, strings and the unit type.

use crate::codec::Schema;
use crate::decode::Decode;
use crate::encode::Encode;
use crate::error::{DecodeError, DecodeErrorKind, EncodeError};
use crate::json::{JsonReader, JsonWriter};
use crate::kind::WireKind;
use crate::msgpack::{MsgpackReader, MsgpackWriter};
use crate::schema;
use schemars::SchemaGenerator;
use serde_json::json;

fn write_quoted_int(w: &mut JsonWriter, text: &str) {
    w.write_byte(b'"');
    w.write_raw(text.as_bytes());
    w.write_byte(b'"');
}

fn parse_key<T: std::str::FromStr>(
    r: &mut JsonReader<'_>,
    key: &str,
    target: &'static str,
) -> Result<T, DecodeError> {
    key.parse().map_err(|_| {
        r.error(DecodeErrorKind::InvalidValue {
            message: format!("object key `{key}` is not a valid {target}"),
        })
    })
}

/// `$range` is the type whose range the schema states: `usize` and `isize`
/// state 64 bits on every platform, so fingerprints do not depend on it.
macro_rules! int_impl {
    ($($t:ty, $write:ident, $as:ty, $range:ty;)*) => {$(

        impl Encode for $t {
            #[inline]
            fn encode_msgpack(&self, w: &mut MsgpackWriter) -> Result<(), EncodeError> {
                w.$write(*self as $as);
                Ok(())
            }

            #[inline]
            fn encode_json(&self, w: &mut JsonWriter) -> Result<(), EncodeError> {
                w.$write(*self as $as);
                Ok(())
            }

            fn __encode_json_key(&self, w: &mut JsonWriter) -> Result<(), EncodeError> {
                write_quoted_int(w, itoa::Buffer::new().format(*self));
                Ok(())
            }
        }

        impl<'de> Decode<'de> for $t {
            #[inline]
            fn decode_msgpack(r: &mut MsgpackReader<'de>) -> Result<Self, DecodeError> {
                r.read_int(stringify!($t))
            }

            #[inline]
            fn decode_json(r: &mut JsonReader<'de>) -> Result<Self, DecodeError> {
                r.read_int(stringify!($t))
            }

            fn __decode_json_key(
                r: &mut JsonReader<'de>,
                key: std::borrow::Cow<'de, str>,
            ) -> Result<Self, DecodeError> {
                parse_key(r, &key, stringify!($t))
            }
        }

        impl Schema for $t {
            const KIND: WireKind = WireKind::INT;

            fn json_schema(_: &mut SchemaGenerator) -> schemars::Schema {
                schema::integer(<$range>::MIN as i128, <$range>::MAX as i128)
            }
        }
    )*};
}

int_impl! {
    i8, write_i64, i64, i8;
    i16, write_i64, i64, i16;
    i32, write_i64, i64, i32;
    i64, write_i64, i64, i64;
    isize, write_i64, i64, i64;
    u16, write_u64, u64, u16;
    u32, write_u64, u64, u32;
    u64, write_u64, u64, u64;
    usize, write_u64, u64, u64;
}

macro_rules! wide_int_impl {
    ($($t:ty;)*) => {$(

        impl Encode for $t {
            fn encode_msgpack(&self, w: &mut MsgpackWriter) -> Result<(), EncodeError> {
                if let Ok(v) = u64::try_from(*self) {
                    w.write_u64(v);
                } else if let Ok(v) = i64::try_from(*self) {
                    w.write_i64(v);
                } else {
                    return Err(EncodeError::InvalidValue {
                        message: format!(
                            "{} {self} does not fit MessagePack's 64-bit integers",
                            stringify!($t)
                        ),
                    });
                }
                Ok(())
            }

            fn encode_json(&self, w: &mut JsonWriter) -> Result<(), EncodeError> {
                w.write_raw(itoa::Buffer::new().format(*self).as_bytes());
                Ok(())
            }

            fn __encode_json_key(&self, w: &mut JsonWriter) -> Result<(), EncodeError> {
                write_quoted_int(w, itoa::Buffer::new().format(*self));
                Ok(())
            }
        }

        impl<'de> Decode<'de> for $t {
            fn decode_msgpack(r: &mut MsgpackReader<'de>) -> Result<Self, DecodeError> {
                r.read_int(stringify!($t))
            }

            fn decode_json(r: &mut JsonReader<'de>) -> Result<Self, DecodeError> {
                let start = r.position();
                let text = r.read_number_text()?;
                text.parse().map_err(|_| {
                    DecodeError::new(DecodeErrorKind::IntOutOfRange {
                        value: text.to_owned(),
                        target: stringify!($t),
                    })
                    .at(crate::error::Format::Json, start)
                })
            }

            fn __decode_json_key(
                r: &mut JsonReader<'de>,
                key: std::borrow::Cow<'de, str>,
            ) -> Result<Self, DecodeError> {
                parse_key(r, &key, stringify!($t))
            }
        }

        impl Schema for $t {
            const KIND: WireKind = WireKind::INT;

            fn json_schema(_: &mut SchemaGenerator) -> schemars::Schema {
                // `u128::MAX` is past `i128`'s: its bound is open anyway.
                schema::integer(<$t>::MIN as i128, <$t>::MAX.min(i128::MAX as $t) as i128)
            }
        }
    )*};
}

wide_int_impl! { i128; u128; }

impl Encode for f64 {
    #[inline]
    fn encode_msgpack(&self, w: &mut MsgpackWriter) -> Result<(), EncodeError> {
        w.write_f64(*self);
        Ok(())
    }

    #[inline]
    fn encode_json(&self, w: &mut JsonWriter) -> Result<(), EncodeError> {
        w.write_f64(*self);
        Ok(())
    }
}

impl<'de> Decode<'de> for f64 {
    #[inline]
    fn decode_msgpack(r: &mut MsgpackReader<'de>) -> Result<Self, DecodeError> {
        r.read_f64()
    }

    #[inline]
    fn decode_json(r: &mut JsonReader<'de>) -> Result<Self, DecodeError> {
        r.read_f64()
    }
}

impl Schema for f64 {
    const KIND: WireKind = WireKind::FLOAT;

    fn json_schema(_: &mut SchemaGenerator) -> schemars::Schema {
        // The width is part of the wire shape: a `f64` read as a `f32` loses
        // precision, so the two must not share a fingerprint.
        schema::typed("number", json!({ "format": "double" }))
    }
}

impl Encode for f32 {
    #[inline]
    fn encode_msgpack(&self, w: &mut MsgpackWriter) -> Result<(), EncodeError> {
        w.write_f32(*self);
        Ok(())
    }

    #[inline]
    fn encode_json(&self, w: &mut JsonWriter) -> Result<(), EncodeError> {
        w.write_f32(*self);
        Ok(())
    }
}

impl<'de> Decode<'de> for f32 {
    #[inline]
    fn decode_msgpack(r: &mut MsgpackReader<'de>) -> Result<Self, DecodeError> {
        r.read_f64().map(|v| v as f32)
    }

    #[inline]
    fn decode_json(r: &mut JsonReader<'de>) -> Result<Self, DecodeError> {
        r.read_f64().map(|v| v as f32)
    }
}

impl Schema for f32 {
    const KIND: WireKind = WireKind::FLOAT;

    fn json_schema(_: &mut SchemaGenerator) -> schemars::Schema {
        schema::typed("number", json!({ "format": "float" }))
    }
}

impl Encode for bool {
    #[inline]
    fn encode_msgpack(&self, w: &mut MsgpackWriter) -> Result<(), EncodeError> {
        w.write_bool(*self);
        Ok(())
    }

    #[inline]
    fn encode_json(&self, w: &mut JsonWriter) -> Result<(), EncodeError> {
        w.write_bool(*self);
        Ok(())
    }
}

impl<'de> Decode<'de> for bool {
    #[inline]
    fn decode_msgpack(r: &mut MsgpackReader<'de>) -> Result<Self, DecodeError> {
        r.read_bool()
    }

    #[inline]
    fn decode_json(r: &mut JsonReader<'de>) -> Result<Self, DecodeError> {
        r.read_bool()
    }
}

impl Schema for bool {
    const KIND: WireKind = WireKind::BOOL;

    fn json_schema(_: &mut SchemaGenerator) -> schemars::Schema {
        schema::typed("boolean", json!({}))
    }
}

impl Encode for String {
    #[inline]
    fn encode_msgpack(&self, w: &mut MsgpackWriter) -> Result<(), EncodeError> {
        w.write_str(self)
    }

    #[inline]
    fn encode_json(&self, w: &mut JsonWriter) -> Result<(), EncodeError> {
        w.write_str(self)
    }

    fn __encode_json_key(&self, w: &mut JsonWriter) -> Result<(), EncodeError> {
        w.write_str(self)
    }
}

impl<'de> Decode<'de> for String {
    #[inline]
    fn decode_msgpack(r: &mut MsgpackReader<'de>) -> Result<Self, DecodeError> {
        r.read_string()
    }

    #[inline]
    fn decode_json(r: &mut JsonReader<'de>) -> Result<Self, DecodeError> {
        r.read_str().map(|s| match s {
            std::borrow::Cow::Borrowed(s) => crate::text::owned_str(s),
            std::borrow::Cow::Owned(s) => s,
        })
    }

    fn __decode_json_key(
        _r: &mut JsonReader<'de>,
        key: std::borrow::Cow<'de, str>,
    ) -> Result<Self, DecodeError> {
        Ok(key.into_owned())
    }
}

impl Schema for String {
    const KIND: WireKind = WireKind::STR;

    fn json_schema(_: &mut SchemaGenerator) -> schemars::Schema {
        schema::typed("string", json!({}))
    }
}

impl<'de> Decode<'de> for Box<str> {
    fn decode_msgpack(r: &mut MsgpackReader<'de>) -> Result<Self, DecodeError> {
        r.read_str().map(Box::from)
    }

    fn decode_json(r: &mut JsonReader<'de>) -> Result<Self, DecodeError> {
        r.read_str().map(|s| Box::from(s.as_ref()))
    }

    fn __decode_json_key(
        _r: &mut JsonReader<'de>,
        key: std::borrow::Cow<'de, str>,
    ) -> Result<Self, DecodeError> {
        Ok(key.into_owned().into_boxed_str())
    }
}

impl Schema for Box<str> {
    const KIND: WireKind = WireKind::STR;

    fn json_schema(_: &mut SchemaGenerator) -> schemars::Schema {
        schema::typed("string", json!({}))
    }
}

fn one_char(s: &str) -> Option<char> {
    let mut chars = s.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) => Some(c),
        _ => None,
    }
}

fn char_error(s: &str) -> DecodeError {
    DecodeError::invalid_type(
        "a string of one character",
        format!("a string of {} characters", s.chars().count()),
    )
}

impl Encode for char {
    fn encode_msgpack(&self, w: &mut MsgpackWriter) -> Result<(), EncodeError> {
        w.write_str(self.encode_utf8(&mut [0; 4]))
    }

    fn encode_json(&self, w: &mut JsonWriter) -> Result<(), EncodeError> {
        w.write_str(self.encode_utf8(&mut [0; 4]))
    }

    fn __encode_json_key(&self, w: &mut JsonWriter) -> Result<(), EncodeError> {
        self.encode_json(w)
    }
}

impl<'de> Decode<'de> for char {
    fn decode_msgpack(r: &mut MsgpackReader<'de>) -> Result<Self, DecodeError> {
        let s = r.read_str()?;
        one_char(s).ok_or_else(|| r.locate(char_error(s)))
    }

    fn decode_json(r: &mut JsonReader<'de>) -> Result<Self, DecodeError> {
        let s = r.read_str()?;
        one_char(&s).ok_or_else(|| r.locate(char_error(&s)))
    }

    fn __decode_json_key(
        r: &mut JsonReader<'de>,
        key: std::borrow::Cow<'de, str>,
    ) -> Result<Self, DecodeError> {
        let key: &str = &key;
        one_char(key).ok_or_else(|| r.locate(char_error(key)))
    }
}

impl Schema for char {
    const KIND: WireKind = WireKind::STR;

    fn json_schema(_: &mut SchemaGenerator) -> schemars::Schema {
        schema::typed("string", json!({"minLength": 1, "maxLength": 1}))
    }
}

impl Encode for () {
    fn encode_msgpack(&self, w: &mut MsgpackWriter) -> Result<(), EncodeError> {
        w.write_nil();
        Ok(())
    }

    fn encode_json(&self, w: &mut JsonWriter) -> Result<(), EncodeError> {
        w.write_nil();
        Ok(())
    }
}

impl<'de> Decode<'de> for () {
    fn decode_msgpack(r: &mut MsgpackReader<'de>) -> Result<Self, DecodeError> {
        r.read_nil()
    }

    fn decode_json(r: &mut JsonReader<'de>) -> Result<Self, DecodeError> {
        r.read_nil()
    }
}

impl Schema for () {
    const KIND: WireKind = WireKind::NIL;

    fn json_schema(_: &mut SchemaGenerator) -> schemars::Schema {
        schema::typed("null", json!({}))
    }
}

impl<T: ?Sized> Encode for std::marker::PhantomData<T> {
    fn encode_msgpack(&self, w: &mut MsgpackWriter) -> Result<(), EncodeError> {
        w.write_nil();
        Ok(())
    }

    fn encode_json(&self, w: &mut JsonWriter) -> Result<(), EncodeError> {
        w.write_nil();
        Ok(())
    }
}

impl<'de, T: ?Sized> Decode<'de> for std::marker::PhantomData<T> {
    fn decode_msgpack(r: &mut MsgpackReader<'de>) -> Result<Self, DecodeError> {
        r.read_nil().map(|_| std::marker::PhantomData)
    }

    fn decode_json(r: &mut JsonReader<'de>) -> Result<Self, DecodeError> {
        r.read_nil().map(|_| std::marker::PhantomData)
    }
}

impl<T: ?Sized> Schema for std::marker::PhantomData<T> {
    const KIND: WireKind = WireKind::NIL;

    fn json_schema(_: &mut SchemaGenerator) -> schemars::Schema {
        schema::typed("null", json!({}))
    }
}
