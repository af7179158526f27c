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
