//! A serde field without schemars, as an attribute:
//! `#[codec(with = "codec::serde_opaque")]` on a field of a type that has
//! serde but no `JsonSchema` encodes it as [`crate::Opaque`] does, without
//! wrapping the field's type. Its schema is an opaque node of version 1;
//! to raise the version when the type's serde form changes, use the
//! wrapper, `codec::Opaque<T, 2>`.
//!
//! ```
//! # #[cfg(feature = "serde")] {
//! #[derive(serde::Serialize, serde::Deserialize, Debug, PartialEq)]
//! struct Foreign { a: u32 }
//!
//! #[derive(codec::Codec, Debug, PartialEq)]
//! struct Mine {
//!     #[codec(with = "codec::serde_opaque")]
//!     foreign: Foreign,
//! }
//!
//! let v = Mine { foreign: Foreign { a: 1 } };
//! assert_eq!(codec::to_json(&v).unwrap(), r#"{"foreign":{"a":1}}"#);
//! assert_eq!(codec::from_msgpack::<Mine>(&codec::to_msgpack(&v).unwrap()).unwrap(), v);
//! assert_eq!(codec::schema_of::<Mine>()["properties"]["foreign"]["x-codec-opaque"], 1);
//! # }
//! ```

use schemars::{Schema, SchemaGenerator};
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::impls::serde_wrapper::Opaque;

#[doc(hidden)]
pub use super::serde_bridge::{decode_json, decode_msgpack, encode_json, encode_msgpack};

/// The opaque schema of version 1, [`crate::Opaque<T>`]'s.
#[doc(hidden)]
pub fn json_schema<T: Serialize + DeserializeOwned>(generator: &mut SchemaGenerator) -> Schema {
    <Opaque<T> as crate::codec::Schema>::json_schema(generator)
}
