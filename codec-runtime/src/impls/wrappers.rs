//! Option and the smart pointers: `Box`, `Rc`, `Arc`, `Cow`.

use std::borrow::Cow;
use std::rc::Rc;
use std::sync::Arc;

use crate::codec::Schema;
use crate::decode::Decode;
use crate::encode::Encode;
use crate::error::{DecodeError, EncodeError};
use crate::json::{JsonReader, JsonWriter};
use crate::kind::WireKind;
use crate::msgpack::{MsgpackReader, MsgpackWriter};
use crate::schema;
use schemars::SchemaGenerator;

/// Nil or the value.
impl<T: Encode> Encode for Option<T> {
    #[inline]
    fn encode_msgpack(&self, w: &mut MsgpackWriter) -> Result<(), EncodeError> {
        match self {
            Some(v) => v.encode_msgpack(w),
            None => {
                w.write_nil();
                Ok(())
            }
        }
    }

    #[inline]
    fn encode_json(&self, w: &mut JsonWriter) -> Result<(), EncodeError> {
        match self {
            Some(v) => v.encode_json(w),
            None => {
                w.write_nil();
                Ok(())
            }
        }
    }
}

impl<'de, T: Decode<'de>> Decode<'de> for Option<T> {
    #[inline(always)]
    fn decode_msgpack(r: &mut MsgpackReader<'de>) -> Result<Self, DecodeError> {
        if r.try_read_nil() {
            Ok(None)
        } else {
            T::decode_msgpack(r).map(Some)
        }
    }

    #[inline]
    fn decode_json(r: &mut JsonReader<'de>) -> Result<Self, DecodeError> {
        if r.try_read_nil() {
            Ok(None)
        } else {
            T::decode_json(r).map(Some)
        }
    }
}

impl<T: Schema> Schema for Option<T> {
    const KIND: WireKind = WireKind::NIL.union(T::KIND);

    fn json_schema(g: &mut SchemaGenerator) -> schemars::Schema {
        schema::nullable(schema::subschema::<T>(g))
    }
}

/// Pointers encode as their pointee (their `Encode` impls are beside the
/// references', in `encode.rs`). Decoding counts one level of nesting, so
/// recursive types through a pointer stay within the depth limit.
macro_rules! pointer_impl {
    ($($ptr:ident),*) => {$(
        impl<'de, T: Decode<'de>> Decode<'de> for $ptr<T> {
            #[inline]
            fn decode_msgpack(r: &mut MsgpackReader<'de>) -> Result<Self, DecodeError> {
                r.nested(T::decode_msgpack).map($ptr::new)
            }

            #[inline]
            fn decode_json(r: &mut JsonReader<'de>) -> Result<Self, DecodeError> {
                r.nested(T::decode_json).map($ptr::new)
            }

            crate::__forward_decode!(inner: T, wrap: $ptr::new, de: 'de);
        }

        impl<T: Schema> Schema for $ptr<T> {
            crate::__forward_shape!(inner: T);

            fn json_schema(g: &mut SchemaGenerator) -> schemars::Schema {
                schema::subschema::<T>(g)
            }
        }
    )*};
}

pointer_impl!(Box, Rc, Arc);

impl<'de> Decode<'de> for Cow<'_, str> {
    fn decode_msgpack(r: &mut MsgpackReader<'de>) -> Result<Self, DecodeError> {
        String::decode_msgpack(r).map(Cow::Owned)
    }

    fn decode_json(r: &mut JsonReader<'de>) -> Result<Self, DecodeError> {
        String::decode_json(r).map(Cow::Owned)
    }

    fn __decode_json_key(
        _r: &mut JsonReader<'de>,
        key: Cow<'de, str>,
    ) -> Result<Self, DecodeError> {
        Ok(Cow::Owned(key.into_owned()))
    }
}

impl Schema for Cow<'_, str> {
    const KIND: WireKind = WireKind::STR;

    fn json_schema(g: &mut SchemaGenerator) -> schemars::Schema {
        String::json_schema(g)
    }
}

impl<'de, T: Decode<'de> + Clone> Decode<'de> for Cow<'_, [T]> {
    fn decode_msgpack(r: &mut MsgpackReader<'de>) -> Result<Self, DecodeError> {
        T::__decode_msgpack_vec(r).map(Cow::Owned)
    }

    fn decode_json(r: &mut JsonReader<'de>) -> Result<Self, DecodeError> {
        T::__decode_json_vec(r).map(Cow::Owned)
    }
}

impl<T: Schema + Clone> Schema for Cow<'_, [T]> {
    const KIND: WireKind = T::__SEQ_KIND;

    fn json_schema(g: &mut SchemaGenerator) -> schemars::Schema {
        schema::sequence::<T>(g, None)
    }
}
