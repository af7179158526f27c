//! What codec's own tools (the `codec-python` generator, the drift check)
//! read of the schema layer: the registered types and the schema keywords
//! codec adds. Not part of the library's interface.

use serde_json::Value;

pub use super::build::{
    ALIASES, FIELDS, OMIT_DEFAULTS, OPAQUE, ORDER, RAW, VALUE_ALIASES, VERSION,
};
use super::Fingerprint;
pub use super::SchemaInfo;

/// Every type of the program the derive registered, but codec's own
/// (the store's records): its Rust name and schema facts, in no set order.
pub fn registered() -> impl Iterator<Item = (&'static str, &'static SchemaInfo)> {
    super::registry::registered()
        .filter(|r| !r.is_codecs_own())
        .map(|r| ((r.rust_name)(), (r.info)()))
}

/// `schema` as a stored value and a store keep it: compact JSON without
/// the annotations that only describe ([`SchemaInfo::stored_schema`]).
pub fn stored_schema(schema: &Value) -> String {
    super::model::without_descriptions(schema).to_string()
}

/// The fingerprint earlier versions of codec gave `schema`, when it was exact.
pub fn legacy_fingerprint(schema: &Value) -> Option<Fingerprint> {
    super::fingerprint::legacy::fingerprint(schema)
}

#[cfg(feature = "drift")]
pub use super::drift::update_requested;
