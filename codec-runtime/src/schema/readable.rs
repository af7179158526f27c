//! Whether a value stored with one schema can be read with today's type:
//! the one decision behind the envelope ([`from_stored`](crate::from_stored))
//! and the cache store's `get`.

use serde_json::Value;

use super::diff::diff_models;
use super::fingerprint::legacy;
use super::model::Model;
use super::{Change, Changes, Fingerprint, SchemaInfo};
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
    // The fingerprint earlier versions wrote for this very shape.
    if writer == reader.fingerprint || Some(writer) == reader.legacy_fingerprint {
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
        let changes = changes(writer, &writer_schema()?, reader);
        return match changes.iter().any(Change::is_breaking) {
            true => Err(wrong()),
            false => Ok(()),
        };
    }
    let changes = changes(writer, &writer_schema()?, reader);
    if changes.iter().any(Change::is_breaking) {
        return Err(unreadable(EnvelopeError::Incompatible {
            type_name: reader.name.clone(),
            writer,
            reader: reader.fingerprint,
            changes: Changes(changes),
        }));
    }
    Ok(())
}

/// The changes from the writer's schema to the reader's.
///
/// A value written by an earlier version of codec whose fingerprint left
/// out the fields named like annotations (`title`, `default`...) kept a
/// schema without them too, in its envelope: when that schema is what the
/// earlier version made of the reader's own, the value was written by this
/// shape as far as anything stored can tell, and reads as it always did.
/// A writer's whole schema (the store keeps it) still has those fields,
/// and is compared.
fn changes(writer: Fingerprint, writer_schema: &Value, reader: &SchemaInfo) -> Vec<Change> {
    let (reader_text, reader_exact) = legacy::canonical(&reader.schema);
    if !reader_exact && Fingerprint::of_canonical(&reader_text) == writer {
        // Exact: the writer's schema lost nothing more to the filter,
        // having lost the names already.
        let (writer_text, writer_exact) = legacy::canonical(writer_schema);
        if writer_exact && writer_text == reader_text {
            return Vec::new();
        }
    }
    diff_models(&Model::new(writer_schema), &Model::new(&reader.schema))
}
