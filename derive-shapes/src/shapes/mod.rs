//! The shapes, by theme. Every type here derives `Codec`; the tests of each
//! module round-trip a value of each through both formats.

pub mod attrs;
pub mod borrowed;
pub mod generics;
pub mod macros;
pub mod memoize;
pub mod memoize_bodies;
pub mod names;
pub mod no_prelude;
#[cfg(feature = "serde")]
pub mod serde_traits;
pub mod shadowed;

/// Encodes `value` in both formats, decodes each back, checks the result
/// equals `value`, and returns the JSON text for checks of the wire form.
#[cfg(test)]
#[track_caller]
pub(crate) fn roundtrip<T>(value: &T) -> String
where
    T: codec::Codec + PartialEq + core::fmt::Debug,
{
    let bytes = codec::to_msgpack(value).expect("encodes to MessagePack");
    let back: T = codec::from_msgpack(&bytes).expect("decodes from MessagePack");
    assert_eq!(&back, value, "MessagePack round trip");
    let text = codec::to_json(value).expect("encodes to JSON");
    let back: T = codec::from_json(&text).expect("decodes from JSON");
    assert_eq!(&back, value, "JSON round trip of {text}");
    text
}
