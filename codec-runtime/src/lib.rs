//! Runtime of [codec](https://docs.rs/codec): the traits ([`Encode`],
//! [`Decode`], [`Schema`] and their sum [`Codec`], as serde's `Serialize`,
//! `Deserialize<'de>` and `DeserializeOwned`), the MessagePack and JSON
//! readers and writers, and the errors.
//!
//! Users depend on the `codec` crate, which re-exports this one together with
//! `#[derive(Codec)]` and the cache store (the `codec-store` crate, which
//! builds on this one and which this one never reaches into).
//!
//! Each public item has one path: the crate root for what most code uses
//! (the traits, encoding and decoding, schemas and fingerprints of types,
//! stored values), a module for the rest: [`schema`] (diffs, names, and
//! the drift check with the `drift` feature), `snapshot` (feature
//! `snapshot`), [`msgpack`] (markers and integers), [`constraints`].
//!
//! The tools (the drift check, snapshots) are features, on in `codec`'s
//! defaults: a program that only encodes and decodes compiles neither. The
//! Python generator is the crate `codec-python`.

#![warn(missing_docs)]

mod codec;
pub mod constraints;
mod convert;
mod decode;
mod encode;
mod envelope;
mod error;
mod hash;
mod impls;
mod json;
mod kind;
pub mod msgpack;
mod name;
mod raw;
pub mod schema;
#[cfg(feature = "serde")]
pub mod serde_traits;
#[cfg(feature = "snapshot")]
pub mod snapshot;
mod text;
// Calendar arithmetic and RFC 3339 / ISO 8601 text, shared with the `codec`
// command; not part of the library's interface.
#[doc(hidden)]
pub mod time;
mod value;
mod wire;

#[doc(hidden)]
pub mod __private;
#[doc(hidden)]
pub mod __store;

pub use crate::codec::schema_of;
pub use crate::codec::{Codec, Schema};
pub use crate::convert::{
    from_json, from_json_slice, from_msgpack, to_json, to_json_vec, to_msgpack, to_msgpack_into,
    DecodeOptions,
};
pub use crate::decode::Decode;
pub use crate::encode::Encode;
pub use crate::envelope::{envelope_header, from_stored, to_stored, EnvelopeError, EnvelopeHeader};
pub use crate::error::{DecodeError, DecodeErrorKind, EncodeError, Format, PathSegment};
pub use crate::hash::{content_hash, ContentHash};
pub use crate::impls::bytes::Bytes;
pub use crate::json::{JsonReader, JsonWriter};
pub use crate::kind::WireKind;
pub use crate::msgpack::read::MsgpackReader;
pub use crate::msgpack::write::MsgpackWriter;
pub use crate::raw::Raw;
pub use crate::schema::fingerprint::{fingerprint_of, Fingerprint};
pub use crate::value::Value;
/// schemars, for the signatures of `Schema::json_schema` and the derive:
/// its items keep their paths in schemars, not listed as codec's (a
/// hidden module, since rustdoc lists a crate re-exported whole even when
/// hidden).
#[doc(hidden)]
pub mod schemars {
    pub use ::schemars::*;
}

#[cfg(feature = "chrono")]
pub use crate::impls::chrono::{keep_offset, KeepOffset, OffsetTime};
#[cfg(feature = "ndarray")]
pub use crate::impls::ndarray::Element as ArrayElement;
#[cfg(feature = "serde")]
pub use crate::impls::serde_bridge;
#[cfg(feature = "serde")]
pub use crate::impls::serde_opaque;
#[cfg(feature = "serde")]
pub use crate::impls::serde_wrapper::{Opaque, Serde};
