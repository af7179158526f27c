//! codec makes Rust values safe to keep: `#[derive(Codec)]` gives a type a
//! tagged MessagePack and JSON encoding, wire-compatible with Python's msgspec.
//!
//! ```
//! use codec::Codec;
//!
//! #[derive(Codec, Debug, PartialEq)]
//! struct Chunk { text: String, start: u32, end: u32 }
//!
//! #[derive(Codec, Debug, PartialEq)]
//! enum Event { Click { x: i64, y: i64 }, Key { code: String }, Scroll { delta: f64 } }
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let chunk = Chunk { text: "hello".into(), start: 0, end: 5 };
//! let bytes: Vec<u8> = codec::to_msgpack(&chunk)?;
//! assert_eq!(codec::from_msgpack::<Chunk>(&bytes)?, chunk);
//!
//! let event = Event::Click { x: 3, y: -4 };
//! let text: String = codec::to_json(&event)?;
//! assert_eq!(text, r#"{"type":"Click","x":3,"y":-4}"#);
//! assert_eq!(codec::from_json::<Event>(&text)?, event);
//! # Ok(())
//! # }
//! ```
//!
//! See the README for the attributes and the wire conventions.

pub use codec_derive::Codec;
pub use codec_runtime::*;

#[cfg(feature = "insta")]
#[doc(hidden)]
pub use insta as __insta;

/// Asserts a value's encodings (pretty JSON and annotated MessagePack, as
/// [`snapshot::render`] gives them) against an `insta` snapshot; needs the
/// `insta` feature. A value that does not encode fails the test with the
/// error. With a name first, the snapshot is named.
///
/// ```ignore
/// #[derive(codec::Codec)]
/// struct Point { x: i64, y: i64 }
///
/// #[test]
/// fn point_encoding() {
///     codec::assert_snapshot!(Point { x: 1, y: -2 });            // tests/snapshots/<file>__point_encoding.snap
///     codec::assert_snapshot!("origin", Point { x: 0, y: 0 });  // tests/snapshots/<file>__origin.snap
/// }
/// ```
///
/// Without the feature, the same in one line:
/// `insta::assert_snapshot!(codec::snapshot::render(&value).unwrap());`
#[cfg(feature = "insta")]
#[macro_export]
macro_rules! assert_snapshot {
    ($name:expr, $value:expr $(,)?) => {
        $crate::__insta::assert_snapshot!(
            $name,
            $crate::__private::render_for_test(&$value),
            ::core::stringify!($value)
        )
    };
    ($value:expr $(,)?) => {
        $crate::__insta::assert_snapshot!(
            $crate::__insta::_macro_support::AutoName,
            $crate::__private::render_for_test(&$value),
            ::core::stringify!($value)
        )
    };
}
