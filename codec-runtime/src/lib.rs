//! Runtime of [codec](https://docs.rs/codec): the [`Codec`] trait, the
//! MessagePack and JSON readers and writers, and the errors.
//!
//! Users depend on the `codec` crate, which re-exports this one together with
//! `#[derive(Codec)]`.

#![warn(missing_docs)]

mod api;
mod codec;
pub mod constraints;
mod encode;
mod error;
mod hash;
mod impls;
pub mod json;
pub mod msgpack;
mod raw;
pub mod schema;
#[cfg(feature = "serde")]
pub mod serde_traits;
pub mod snapshot;
#[cfg(feature = "store")]
pub mod store;
pub mod stored;
pub mod time;
mod value;

#[doc(hidden)]
pub mod __private;

pub use crate::api::{
    from_json, from_json_slice, from_msgpack, to_json, to_json_vec, to_msgpack, to_msgpack_into,
    DecodeOptions,
};
pub use crate::codec::{Codec, WireKind};
pub use crate::encode::Encode;
pub use crate::error::{DecodeError, DecodeErrorKind, EncodeError, Format, PathSegment};
pub use crate::hash::{content_hash, ContentHash};
pub use crate::impls::bytes::Bytes;
pub use crate::json::{JsonReader, JsonWriter};
pub use crate::msgpack::{MsgpackReader, MsgpackWriter};
pub use crate::raw::Raw;
pub use crate::schema::{fingerprint_of, schema_of, Fingerprint};
#[cfg(feature = "store")]
pub use crate::store::{Cache, CacheOptions, PutOptions, StoreError};
pub use crate::stored::{from_stored, to_stored, StoredError};
pub use crate::value::Value;
pub use schemars;

#[cfg(feature = "chrono")]
pub use crate::impls::chrono::{keep_offset, KeepOffset, OffsetTime};
#[cfg(feature = "ndarray")]
pub use crate::impls::ndarray::Element as ArrayElement;
#[cfg(feature = "serde")]
pub use crate::impls::serde_bridge::{self, Serde};
