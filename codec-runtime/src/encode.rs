//! [`Encode`]: what the encoding entry points take, borrowed values included.

use crate::codec::Codec;
use crate::error::EncodeError;
use crate::json::JsonWriter;
use crate::msgpack::MsgpackWriter;

/// A value that can be encoded, owned or borrowed: every [`Codec`] type,
/// and `str`, `[T]`, `&str` and `&[T]`, each encoded as the owned value
/// (`String`, `Vec<T>`) is. The encoding entry points ([`crate::to_json`],
/// [`crate::to_msgpack`], [`crate::content_hash`],
/// [`crate::ContentHash::part`]) take it, so borrowed text and slices need
/// no copy:
///
/// ```
/// let text: &str = "hello";
/// assert_eq!(codec::to_json(&text).unwrap(), codec::to_json(&text.to_string()).unwrap());
/// let ids: &[u32] = &[1, 2];
/// assert_eq!(codec::to_msgpack(&ids).unwrap(), codec::to_msgpack(&vec![1u32, 2]).unwrap());
/// ```
///
/// Decoding needs the owned type: [`Codec`]. Its methods are named apart
/// from `Codec`'s, so a module may import both traits.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no codec encoding",
    label = "`{Self}` does not implement `Codec`",
    note = "if `{Self}` is from uuid, chrono, rust_decimal, ndarray, num-complex or arrow, enable codec's feature of that name (`decimal` for rust_decimal) in Cargo.toml: `codec = {{ version = \"..\", features = [\"chrono\"] }}` for chrono",
    note = "else add #[derive(Codec)] to `{Self}`; borrowed values encode as `&str` and `&[T]`, else pass the owned value"
)]
pub trait Encode {
    /// Appends the MessagePack encoding of `self`.
    fn write_msgpack(&self, w: &mut MsgpackWriter) -> Result<(), EncodeError>;

    /// Appends the JSON encoding of `self`.
    fn write_json(&self, w: &mut JsonWriter) -> Result<(), EncodeError>;
}

impl<T: Codec> Encode for T {
    #[inline]
    fn write_msgpack(&self, w: &mut MsgpackWriter) -> Result<(), EncodeError> {
        self.encode_msgpack(w)
    }

    #[inline]
    fn write_json(&self, w: &mut JsonWriter) -> Result<(), EncodeError> {
        self.encode_json(w)
    }
}

/// As a `String`.
impl Encode for str {
    fn write_msgpack(&self, w: &mut MsgpackWriter) -> Result<(), EncodeError> {
        w.write_str(self)
    }

    fn write_json(&self, w: &mut JsonWriter) -> Result<(), EncodeError> {
        w.write_str(self);
        Ok(())
    }
}

/// As a `Vec<T>` (bytes as `bin` / base64).
impl<T: Codec> Encode for [T] {
    fn write_msgpack(&self, w: &mut MsgpackWriter) -> Result<(), EncodeError> {
        T::__encode_msgpack_slice(self, w)
    }

    fn write_json(&self, w: &mut JsonWriter) -> Result<(), EncodeError> {
        T::__encode_json_slice(self, w)
    }
}

// `&T` for any `T: Encode` would overlap the impl for every `Codec` type
// (a crate may implement `Codec` for a reference to its own type), so the
// two borrowed forms are spelled out.

/// As a `String`.
impl Encode for &str {
    fn write_msgpack(&self, w: &mut MsgpackWriter) -> Result<(), EncodeError> {
        str::write_msgpack(self, w)
    }

    fn write_json(&self, w: &mut JsonWriter) -> Result<(), EncodeError> {
        str::write_json(self, w)
    }
}

/// As a `Vec<T>`.
impl<T: Codec> Encode for &[T] {
    fn write_msgpack(&self, w: &mut MsgpackWriter) -> Result<(), EncodeError> {
        <[T]>::write_msgpack(self, w)
    }

    fn write_json(&self, w: &mut JsonWriter) -> Result<(), EncodeError> {
        <[T]>::write_json(self, w)
    }
}
