//! Items used by the code `#[derive(Codec)]` generates. Not a public interface.

pub use crate::codec::{Codec, WireKind};
pub use crate::error::{DecodeError, DecodeErrorKind, EncodeError};
pub use crate::json::{JsonReader, JsonWriter};
pub use crate::msgpack::{MsgpackReader, MsgpackWriter};
pub use core::default::Default;
pub use core::option::Option::{self, None, Some};
pub use core::result::Result::{self, Err, Ok};
pub use std::borrow::Cow;
pub use std::string::String;

/// Decodes a JSON key into a struct field's bytes for matching.
#[inline]
pub fn key_bytes<'a>(key: &'a Cow<'_, str>) -> &'a [u8] {
    key.as_bytes()
}
