//! Whether a value stored with one schema can be read with today's type:
//! the one decision behind the envelope ([`from_stored`](crate::from_stored))
//! and the cache store's `get`.

use serde_json::Value;

use super::{diff, Change, Fingerprint, SchemaInfo};
use crate::envelope::EnvelopeError;

/// Checks that a value written as the type `found` (its wire name), with
/// the schema fingerprint `writer`, can be read as the type `reader`
/// describes: when the fingerprints differ, the same name (or an alias)
/// for a derived type, then no breaking change from the writer's schema to
/// the reader's.
///
/// `writer_schema` gives the writer's schema, asked for only when the
/// fingerprints differ; `unreadable` turns the reason
/// a value cannot be read into the caller's error.
pub fn check_readable<E>(
    found: &str,
    writer: Fingerprint,
    reader: &SchemaInfo,
    writer_schema: impl FnOnce() -> Result<Value, E>,
    unreadable: impl FnOnce(EnvelopeError) -> E,
) -> Result<(), E> {
    if writer == reader.fingerprint {
        return Ok(());
    }
    if !reader.accepts_name(found) {
        // A standard type (`u64`, `Option<T>`, `Vec<T>`) has no name of its
        // own to keep, and widens as a field does: `u32` -> `u64`, `f32` ->
        // `f64`, `T` -> `Option<T>`. Its schema decides.
        let wrong = || {
            unreadable(EnvelopeError::WrongType {
                found: found.to_owned(),
                expected: reader.name.clone(),
                renamable: reader.nominal,
            })
        };
        if reader.nominal {
            return Err(wrong());
        }
        let changes = diff(&writer_schema()?, &reader.schema);
        return match changes.iter().any(Change::is_breaking) {
            true => Err(wrong()),
            false => Ok(()),
        };
    }
    let changes = diff(&writer_schema()?, &reader.schema);
    if changes.iter().any(Change::is_breaking) {
        return Err(unreadable(EnvelopeError::Incompatible {
            type_name: reader.name.clone(),
            writer,
            reader: reader.fingerprint,
            changes,
        }));
    }
    Ok(())
}
