//! JSON Schemas (draft 2020-12) of codec types, describing exactly their JSON
//! encoding, and what is built on them: fingerprints, diffs between versions,
//! and the drift check of committed schema files.
//!
//! Schemas are generated with a [`schemars::SchemaGenerator`], so codec types
//! and foreign `schemars::JsonSchema` types compose: derived types land in
//! `$defs` under their wire name, and every derived type also implements
//! `schemars::JsonSchema`.
//!
//! ```
//! #[derive(codec::Codec)]
//! struct Settings { port: u16, #[codec(default)] verbose: bool }
//!
//! let schema = codec::schema_of::<Settings>();
//! assert_eq!(schema["type"], "object");
//! assert_eq!(schema["required"], serde_json::json!(["port"]));
//! ```

pub(crate) mod build;
mod diff;
#[cfg(feature = "drift")]
mod drift;
pub(crate) mod fingerprint;
pub(crate) mod model;
pub(crate) mod readable;
pub(crate) mod registry;

#[doc(hidden)]
pub mod __tools;

use std::any::TypeId;
use std::cell::RefCell;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::{OnceLock, RwLock};

use schemars::SchemaGenerator;
use serde_json::Value;

use crate::codec::{CodecSchema, Schema};

pub use crate::codec::wire_name;
pub use crate::name::structural_name;
pub use diff::{diff, Change, Changes, Compatibility};
/// The drift check's environment variable, for the Python generator's.
#[cfg(feature = "drift")]
#[doc(hidden)]
pub use drift::UPDATE_ENV;
#[cfg(feature = "drift")]
pub use drift::{DriftCheck, DriftError};
pub use fingerprint::canonical_json;
#[doc(hidden)]
pub(crate) use readable::check_readable;

pub(crate) use crate::codec::schema_of;
pub(crate) use build::*;
pub(crate) use fingerprint::Fingerprint;

/// What a stored value's reader needs about a type, computed once per type.
#[doc(hidden)]
#[derive(Debug)]
pub struct SchemaInfo {
    /// The wire name.
    pub name: String,
    /// Other wire names the type accepts (`#[codec(alias = "...")]` on the type).
    pub aliases: &'static [&'static str],
    /// The schema, as [`schema_of`] gives it.
    pub schema: Value,
    /// The schema as a stored value keeps it: compact JSON, without
    /// descriptions (see `model::without_descriptions`).
    pub stored_schema: String,
    /// The fingerprint.
    pub fingerprint: Fingerprint,
    /// The fingerprint earlier versions of codec wrote for this schema,
    /// when it was exact (see `fingerprint::legacy`): a value written with
    /// it has this very shape.
    pub legacy_fingerprint: Option<Fingerprint>,
    /// The fingerprint as hex, as index lines and file names spell it.
    pub fingerprint_hex: String,
    /// The name earlier versions wrote for a standard type or a generic
    /// one: `std::any::type_name`, still read.
    pub legacy_name: &'static str,
    /// Whether the type has a wire name of its own (a derived type), which
    /// a stored value must carry; a standard type's name only describes its
    /// schema.
    pub nominal: bool,
}

impl SchemaInfo {
    fn compute<T: Schema>() -> SchemaInfo {
        let schema = schema_of::<T>();
        let fingerprint = Fingerprint::of_schema(&schema);
        let legacy_fingerprint =
            fingerprint::legacy::fingerprint(&schema).filter(|legacy| *legacy != fingerprint);
        let stored_schema = model::without_descriptions(&schema).to_string();
        SchemaInfo {
            legacy_fingerprint,
            name: wire_name::<T>().into_owned(),
            aliases: T::__WIRE_ALIASES,
            fingerprint,
            fingerprint_hex: fingerprint.to_string(),
            schema,
            stored_schema,
            legacy_name: std::any::type_name::<T>(),
            nominal: T::__wire_name().is_some(),
        }
    }

    /// Whether a value written under the wire name `found` may be read as
    /// this type (its schema then decides): the name, an alias, the name an
    /// earlier version wrote, or, for a generic type, the same declared name
    /// (or an alias of it) with other arguments (`Page<u32>` read as
    /// `Page<u64>`, the way a field widens).
    pub fn accepts_name(&self, found: &str) -> bool {
        fn declared(name: &str) -> Option<&str> {
            name.split_once('<').map(|(base, _)| base)
        }
        found == self.name
            || self.aliases.contains(&found)
            || found == self.legacy_name
            || match (declared(found), declared(&self.name)) {
                (Some(found), Some(ours)) => {
                    found == ours
                        || self.aliases.contains(&found)
                        || declared(self.legacy_name) == Some(found)
                }
                _ => false,
            }
    }
}

/// The schema facts of `T`, computed on first use and kept for the
/// process (one allocation per type, never freed: a schema is as static as
/// its type). Each thread keeps the ones it looked up, so a lookup (on
/// every `get` of the store) takes no lock and no reference count, which
/// threads getting at once would pass back and forth.
///
/// A type that borrows (`Record<'a>`) has the facts of every one of its
/// lifetimes: they are looked up by its type with the lifetimes erased.
#[doc(hidden)]
pub fn info<T: Schema>() -> &'static SchemaInfo {
    type Infos = HashMap<TypeId, &'static SchemaInfo, BuildHasherDefault<TypeIdHasher>>;
    thread_local! {
        static SEEN: RefCell<Infos> =
            const { RefCell::new(HashMap::with_hasher(BuildHasherDefault::new())) };
    }
    static ALL: OnceLock<RwLock<Infos>> = OnceLock::new();
    let id = typeid::of::<T>();
    // `try_with`: in a thread's teardown the thread's copy is gone, and the
    // shared map serves.
    if let Ok(Some(info)) = SEEN.try_with(|seen| seen.borrow().get(&id).copied()) {
        return info;
    }
    let all = ALL.get_or_init(Default::default);
    let known = all
        .read()
        .unwrap_or_else(|e| e.into_inner())
        .get(&id)
        .copied();
    let info = known.unwrap_or_else(|| {
        let computed = SchemaInfo::compute::<T>();
        *all.write()
            .unwrap_or_else(|e| e.into_inner())
            .entry(id)
            .or_insert_with(|| Box::leak(Box::new(computed)))
    });
    let _ = SEEN.try_with(|seen| seen.borrow_mut().insert(id, info));
    info
}

/// A `TypeId` is a hash already: the map of them in [`info`] uses it as
/// is rather than hashing it again with SipHash (looked up on every `get`
/// of the store).
#[derive(Default)]
struct TypeIdHasher(u64);

impl Hasher for TypeIdHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        // Whatever else a `TypeId` writes, folded in whole.
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 ^= n;
    }
}

/// The schema of a value of type `T` inside another schema: a `$ref` for
/// derived types, the schema itself for the others.
#[doc(hidden)]
pub fn subschema<T: Schema + ?Sized>(generator: &mut SchemaGenerator) -> schemars::Schema {
    generator.subschema_for::<CodecSchema<T>>()
}

#[cfg(test)]
mod tests {
    use super::info;

    #[test]
    fn schema_facts_are_found_in_a_threads_teardown() {
        struct GetsOnDrop;
        impl Drop for GetsOnDrop {
            fn drop(&mut self) {
                assert_eq!(info::<String>().fingerprint, info::<String>().fingerprint);
                assert!(!info::<Vec<u8>>().name.is_empty());
            }
        }
        thread_local! {
            static GUARD: GetsOnDrop = const { GetsOnDrop };
        }
        std::thread::spawn(|| {
            // The guard's destructor is registered first, so it runs after
            // the thread's copy of the facts is gone (destructors run last
            // registered, first run).
            GUARD.with(|_| ());
            let _ = info::<String>();
        })
        .join()
        .unwrap();
    }
}
