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
/// Decoding needs the owned type: [`crate::Codec`], which requires
/// `Encode`. The derive implements both; a type implementing `Codec` by
/// hand implements `Encode` by its `Codec` methods:
///
/// ```
/// # use codec::{Codec, EncodeError, JsonWriter, MsgpackWriter};
/// # struct Semver(String);
/// impl codec::Encode for Semver {
///     fn write_msgpack(&self, w: &mut MsgpackWriter) -> Result<(), EncodeError> {
///         self.encode_msgpack(w)
///     }
///
///     fn write_json(&self, w: &mut JsonWriter) -> Result<(), EncodeError> {
///         self.encode_json(w)
///     }
/// }
/// # impl Codec for Semver {
/// #     fn encode_msgpack(&self, w: &mut MsgpackWriter) -> Result<(), EncodeError> { self.0.encode_msgpack(w) }
/// #     fn decode_msgpack(r: &mut codec::MsgpackReader<'_>) -> Result<Self, codec::DecodeError> { String::decode_msgpack(r).map(Semver) }
/// #     fn encode_json(&self, w: &mut JsonWriter) -> Result<(), EncodeError> { self.0.encode_json(w) }
/// #     fn decode_json(r: &mut codec::JsonReader<'_>) -> Result<Self, codec::DecodeError> { String::decode_json(r).map(Semver) }
/// # }
/// # impl codec::Schema for Semver {
/// #     const KIND: codec::WireKind = codec::WireKind::STR;
/// #     fn json_schema(g: &mut codec::schemars::SchemaGenerator) -> codec::schemars::Schema { String::json_schema(g) }
/// # }
/// ```
///
/// Its methods are named apart from `Codec`'s, so a module may import both
/// traits.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no codec encoding",
    label = "`{Self}` does not implement `codec::Encode`",
    note = "if `{Self}` is from uuid, chrono, rust_decimal, ndarray, num-complex or arrow, enable codec's feature of that name (`decimal` for rust_decimal) in Cargo.toml: `codec = {{ version = \"..\", features = [\"chrono\"] }}` for chrono",
    note = "else add #[derive(Codec)] to `{Self}`; a type that implements `Codec` by hand implements `codec::Encode` too, with `write_msgpack` and `write_json` calling its `encode_msgpack` and `encode_json`"
)]
pub trait Encode {
    /// Appends the MessagePack encoding of `self`.
    fn write_msgpack(&self, w: &mut MsgpackWriter) -> Result<(), EncodeError>;

    /// Appends the JSON encoding of `self`.
    fn write_json(&self, w: &mut JsonWriter) -> Result<(), EncodeError>;

    // Sequences of `Self`: `u8` overrides them so that `Vec<u8>`, `[u8]`,
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
            item.write_msgpack(w)?;
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
            item.write_json(w)?;
        }
        w.write_byte(b']');
        Ok(())
    }
}

/// `Encode` for a [`crate::Codec`] type, by its `Codec` methods:
/// `encode_by_codec!(Type)`, or `encode_by_codec!([T: Codec] Type<T>)`
/// for a generic one. Exported for the store's types; not a public
/// interface.
#[doc(hidden)]
#[macro_export]
macro_rules! __encode_by_codec {
    ([$($generics:tt)*] $ty:ty $(where $($bounds:tt)*)?) => {
        impl<$($generics)*> $crate::Encode for $ty $(where $($bounds)*)? {
            #[inline]
            fn write_msgpack(
                &self,
                w: &mut $crate::MsgpackWriter,
            ) -> ::core::result::Result<(), $crate::EncodeError> {
                $crate::Codec::encode_msgpack(self, w)
            }

            #[inline]
            fn write_json(
                &self,
                w: &mut $crate::JsonWriter,
            ) -> ::core::result::Result<(), $crate::EncodeError> {
                $crate::Codec::encode_json(self, w)
            }
        }
    };
    ($ty:ty) => {
        $crate::__encode_by_codec!([] $ty);
    };
}
pub(crate) use crate::__encode_by_codec as encode_by_codec;

/// As a `String`.
impl Encode for str {
    #[inline]
    fn write_msgpack(&self, w: &mut MsgpackWriter) -> Result<(), EncodeError> {
        w.write_str(self)
    }

    #[inline]
    fn write_json(&self, w: &mut JsonWriter) -> Result<(), EncodeError> {
        w.write_str(self)
    }
}

/// As a `Vec<T>` (bytes as `bin` / base64).
impl<T: Encode> Encode for [T] {
    #[inline]
    fn write_msgpack(&self, w: &mut MsgpackWriter) -> Result<(), EncodeError> {
        T::__encode_msgpack_slice(self, w)
    }

    #[inline]
    fn write_json(&self, w: &mut JsonWriter) -> Result<(), EncodeError> {
        T::__encode_json_slice(self, w)
    }
}

/// Implements `Encode` for references and pointers as the value they
/// point to (as their `Codec` impls encode, where they have one).
macro_rules! encode_as_pointee {
    ($([$($generics:tt)*] $ptr:ty),*) => {$(
        impl<$($generics)*> Encode for $ptr {
            #[inline]
            fn write_msgpack(&self, w: &mut MsgpackWriter) -> Result<(), EncodeError> {
                T::write_msgpack(self, w)
            }

            #[inline]
            fn write_json(&self, w: &mut JsonWriter) -> Result<(), EncodeError> {
                T::write_json(self, w)
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
