//! [`Encode`]: what the encoding entry points take, borrowed values included.

use std::borrow::Cow;
use std::rc::Rc;
use std::sync::Arc;

use crate::error::EncodeError;
use crate::json::JsonWriter;
use crate::msgpack::MsgpackWriter;

/// A value that can be encoded, owned or borrowed, as serde's `Serialize`
/// takes it: every [`crate::Codec`] type, `str` and `[T]` (written as
/// `String` and `Vec<T>` are, bytes as `bin`), a reference to an `Encode`
/// value (written as the value), and tuples, `Option`s, `Vec`s and arrays
/// of them. The encoding entry points ([`crate::to_json`],
/// [`crate::to_msgpack`], [`crate::content_hash`],
/// [`crate::ContentHash::part`], the keys of `#[codec::memoize]`) take it,
/// so borrowed values need no copy:
///
/// ```
/// let text: &str = "hello";
/// assert_eq!(codec::to_json(&("x", 1u8)).unwrap(), r#"["x",1]"#);
/// assert_eq!(
///     codec::to_msgpack(&(text, 1u8)).unwrap(),
///     codec::to_msgpack(&(text.to_string(), 1u8)).unwrap()
/// );
/// let ids: &[u32] = &[1, 2];
/// assert_eq!(codec::to_msgpack(&ids).unwrap(), codec::to_msgpack(&vec![1u32, 2]).unwrap());
/// ```
///
/// [`crate::Codec`] is the sum of `Encode`, [`crate::Decode`] and
/// [`crate::Schema`]. The derive implements the three; a type implemented
/// by hand writes its two encoders here (see the `by_hand` example):
///
/// ```
/// # use codec::{EncodeError, JsonWriter, MsgpackWriter};
/// # struct Semver(String);
/// impl codec::Encode for Semver {
///     fn encode_msgpack(&self, w: &mut MsgpackWriter) -> Result<(), EncodeError> {
///         w.write_str(&self.0)
///     }
///
///     fn encode_json(&self, w: &mut JsonWriter) -> Result<(), EncodeError> {
///         w.write_str(&self.0)
///     }
/// }
/// # impl<'de> codec::Decode<'de> for Semver {
/// #     fn decode_msgpack(r: &mut codec::MsgpackReader<'de>) -> Result<Self, codec::DecodeError> { String::decode_msgpack(r).map(Semver) }
/// #     fn decode_json(r: &mut codec::JsonReader<'de>) -> Result<Self, codec::DecodeError> { String::decode_json(r).map(Semver) }
/// # }
/// # impl codec::Schema for Semver {
/// #     const KIND: codec::WireKind = codec::WireKind::STR;
/// #     fn json_schema(g: &mut codec::schemars::SchemaGenerator) -> codec::schemars::Schema { String::json_schema(g) }
/// # }
/// ```
///
/// The hidden items whose names start with `__` are hooks for generated
/// code and the standard impls, with defaults that are right for a type
/// implemented by hand.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no codec encoding",
    label = "`{Self}` does not implement `codec::Encode`",
    note = "a type of this crate: add #[derive(codec::Codec)] to `{Self}`; of uuid, chrono, rust_decimal, ndarray, num-complex or arrow: enable codec's feature of that name (`decimal` for rust_decimal)"
)]
pub trait Encode {
    /// Appends the MessagePack encoding of `self`.
    fn encode_msgpack(&self, w: &mut MsgpackWriter) -> Result<(), EncodeError>;

    /// Appends the JSON encoding of `self`.
    fn encode_json(&self, w: &mut JsonWriter) -> Result<(), EncodeError>;

    // Hidden hooks, in three groups.

    // 1. The map body: a struct of named fields, which a tagged union's
    //    newtype variant merges after its tag ([`crate::Schema::__MAP_BODY`]).
    //    A type that is its inner value on the wire forwards these, with
    //    group 2 (`forward_encode!`).

    /// The number of map entries [`Self::__encode_msgpack_body`] writes.
    #[doc(hidden)]
    fn __map_body_len(&self) -> usize {
        0
    }

    /// Writes the map entries of `self` without the map header.
    #[doc(hidden)]
    fn __encode_msgpack_body(&self, _w: &mut MsgpackWriter) -> Result<(), EncodeError> {
        Ok(())
    }

    /// Writes `,"key":value` for each entry of `self`.
    #[doc(hidden)]
    fn __encode_json_body(&self, _w: &mut JsonWriter) -> Result<(), EncodeError> {
        Ok(())
    }

    // 2. JSON object keys: strings, integers and string-like types.

    /// Writes `self` as a JSON object key, quoted. Only strings, integers and
    /// string-like types can be keys.
    #[doc(hidden)]
    fn __encode_json_key(&self, _w: &mut JsonWriter) -> Result<(), EncodeError> {
        Err(EncodeError::UnsupportedKey {
            type_name: std::any::type_name::<Self>(),
        })
    }

    // 3. Sequences of `Self`: `u8` overrides them so that `Vec<u8>`, `[u8]`,
    // `[u8; N]` and `Box<[u8]>` are byte buffers. Never forwarded: a
    // sequence of newtypes of `u8`, boxes or references to `u8` stays an
    // array.

    /// Encodes a slice of `Self`.
    #[doc(hidden)]
    fn __encode_msgpack_slice(items: &[Self], w: &mut MsgpackWriter) -> Result<(), EncodeError>
    where
        Self: Sized,
    {
        w.write_array_len(items.len())?;
        for item in items {
            item.encode_msgpack(w)?;
        }
        Ok(())
    }

    /// Encodes a slice of `Self` as JSON.
    #[doc(hidden)]
    fn __encode_json_slice(items: &[Self], w: &mut JsonWriter) -> Result<(), EncodeError>
    where
        Self: Sized,
    {
        w.write_byte(b'[');
        for (i, item) in items.iter().enumerate() {
            if i > 0 {
                w.write_byte(b',');
            }
            item.encode_json(w)?;
        }
        w.write_byte(b']');
        Ok(())
    }
}

/// As a `String`, a JSON object key too (`Box<str>`, `Cow<str>`).
impl Encode for str {
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

/// As a `Vec<T>` (bytes as `bin` / base64).
impl<T: Encode> Encode for [T] {
    #[inline]
    fn encode_msgpack(&self, w: &mut MsgpackWriter) -> Result<(), EncodeError> {
        T::__encode_msgpack_slice(self, w)
    }

    #[inline]
    fn encode_json(&self, w: &mut JsonWriter) -> Result<(), EncodeError> {
        T::__encode_json_slice(self, w)
    }
}

/// Implements `Encode` for references and pointers as the value they
/// point to, its hooks too: a `Box` of a struct merges into a tagged union
/// as the struct does.
macro_rules! encode_as_pointee {
    ($([$($generics:tt)*] $ptr:ty),*) => {$(
        impl<$($generics)*> Encode for $ptr {
            #[inline]
            fn encode_msgpack(&self, w: &mut MsgpackWriter) -> Result<(), EncodeError> {
                T::encode_msgpack(self, w)
            }

            #[inline]
            fn encode_json(&self, w: &mut JsonWriter) -> Result<(), EncodeError> {
                T::encode_json(self, w)
            }

            #[inline]
            fn __map_body_len(&self) -> usize {
                T::__map_body_len(self)
            }

            #[inline]
            fn __encode_msgpack_body(&self, w: &mut MsgpackWriter) -> Result<(), EncodeError> {
                T::__encode_msgpack_body(self, w)
            }

            #[inline]
            fn __encode_json_body(&self, w: &mut JsonWriter) -> Result<(), EncodeError> {
                T::__encode_json_body(self, w)
            }

            #[inline]
            fn __encode_json_key(&self, w: &mut JsonWriter) -> Result<(), EncodeError> {
                T::__encode_json_key(self, w)
            }
        }
    )*};
}

encode_as_pointee!(
    [T: ?Sized + Encode] &T,
    [T: ?Sized + Encode] &mut T,
    [T: ?Sized + Encode] Box<T>,
    [T: ?Sized + Encode] Rc<T>,
    [T: ?Sized + Encode] Arc<T>,
    [T: ?Sized + ToOwned + Encode] Cow<'_, T>
);
