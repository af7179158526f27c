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

mod bounds;
mod diff;
mod drift;
mod fingerprint;
mod name;
mod readable;
mod registry;

use std::any::TypeId;
use std::borrow::Cow;
use std::collections::HashMap;
use std::marker::PhantomData;
use std::sync::{Arc, OnceLock, RwLock};

use schemars::{Schema, SchemaGenerator};
use serde_json::{json, Map, Value};

use crate::codec::Codec;

pub use diff::{diff, Change, Compatibility};
pub use drift::{DriftCheck, DriftError, UPDATE_ENV};
pub use fingerprint::{canonical_json, Fingerprint};
pub use name::structural_name;
pub use readable::check_readable;
#[doc(hidden)]
pub use registry::Registered;

/// The JSON Schema of `T`'s JSON encoding, with the definitions it uses under `$defs`.
pub fn schema_of<T: Codec>() -> Value {
    let generator = schemars::generate::SchemaSettings::draft2020_12().into_generator();
    generator
        .into_root_schema_for::<CodecSchema<T>>()
        .to_value()
}

/// The fingerprint of `T`'s schema: equal for equal wire shapes, across runs,
/// platforms and compiler versions. See [`Fingerprint`].
pub fn fingerprint_of<T: Codec + 'static>() -> Fingerprint {
    info::<T>().fingerprint
}

/// The wire name of `T`: its `#[codec(name = "...")]`, else its Rust name,
/// with a generic type's arguments by their wire names (`Page<Vec<string>>`);
/// for standard types, a name spelled from their schema (`u32`, `string`,
/// `bytes`, `Vec<f64>`... see [`structural_name`]), the same across
/// compiler versions.
pub fn wire_name<T: Codec>() -> Cow<'static, str> {
    T::__wire_name().unwrap_or_else(|| {
        let mut generator = schemars::generate::SchemaSettings::draft2020_12().into_generator();
        Cow::Owned(structural_name(T::json_schema(&mut generator).as_value()))
    })
}

/// What a stored value's reader needs about a type, computed once per type.
#[derive(Debug)]
pub struct SchemaInfo {
    /// The wire name.
    pub name: String,
    /// Other wire names the type accepts (`#[codec(alias = "...")]` on the type).
    pub aliases: &'static [&'static str],
    /// The schema, as [`schema_of`] gives it.
    pub schema: Value,
    /// The canonical text of the schema, whose hash is the fingerprint.
    pub canonical: String,
    /// The fingerprint.
    pub fingerprint: Fingerprint,
    /// The fingerprint as hex, as index lines and file names spell it.
    pub fingerprint_hex: String,
    /// The name earlier versions wrote for a standard type or a generic
    /// one: `std::any::type_name`, still read.
    pub legacy_name: &'static str,
}

impl SchemaInfo {
    fn compute<T: Codec>() -> SchemaInfo {
        let schema = schema_of::<T>();
        let canonical = canonical_json(&schema);
        let fingerprint = Fingerprint::of_canonical(&canonical);
        SchemaInfo {
            name: wire_name::<T>().into_owned(),
            aliases: T::__WIRE_ALIASES,
            fingerprint,
            fingerprint_hex: fingerprint.to_string(),
            schema,
            canonical,
            legacy_name: std::any::type_name::<T>(),
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

/// The schema facts of `T`, computed on first use and cached for the process.
pub fn info<T: Codec + 'static>() -> Arc<SchemaInfo> {
    static CACHE: OnceLock<RwLock<HashMap<TypeId, Arc<SchemaInfo>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    let id = TypeId::of::<T>();
    if let Some(info) = cache.read().unwrap_or_else(|e| e.into_inner()).get(&id) {
        return info.clone();
    }
    let info = Arc::new(SchemaInfo::compute::<T>());
    cache
        .write()
        .unwrap_or_else(|e| e.into_inner())
        .entry(id)
        .or_insert(info)
        .clone()
}

/// Adapts a [`Codec`] type to `schemars::JsonSchema`, so a schemars generator
/// files derived types under `$defs` and inlines the others.
pub struct CodecSchema<T>(PhantomData<T>);

impl<T: Codec> schemars::JsonSchema for CodecSchema<T> {
    fn inline_schema() -> bool {
        T::__wire_name().is_none()
    }

    fn schema_name() -> Cow<'static, str> {
        wire_name::<T>()
    }

    fn schema_id() -> Cow<'static, str> {
        Cow::Owned(format!("codec::{}", std::any::type_name::<T>()))
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        T::json_schema(generator)
    }
}

/// The schema of a value of type `T` inside another schema: a `$ref` for
/// derived types, the schema itself for the others.
pub fn subschema<T: Codec>(generator: &mut SchemaGenerator) -> Schema {
    generator.subschema_for::<CodecSchema<T>>()
}

fn schema(value: Value) -> Schema {
    Schema::try_from(value).unwrap_or_else(|_| Schema::from(true))
}

/// `{"type": ty}` plus extra keywords.
pub fn typed(ty: &str, extra: Value) -> Schema {
    let mut map = Map::new();
    map.insert("type".into(), ty.into());
    if let Value::Object(extra) = extra {
        map.extend(extra);
    }
    schema(Value::Object(map))
}

/// An integer schema bounded to the range of a Rust integer type.
pub fn integer(min: i128, max: i128) -> Schema {
    let mut map = Map::new();
    map.insert("type".into(), "integer".into());
    for (key, bound) in [("minimum", min), ("maximum", max)] {
        // Bounds beyond 64 bits (i128, u128) are left open: JSON numbers that
        // large are not portable.
        if let Ok(v) = i64::try_from(bound) {
            map.insert(key.into(), v.into());
        } else if let Ok(v) = u64::try_from(bound) {
            map.insert(key.into(), v.into());
        }
    }
    schema(Value::Object(map))
}

/// One field of an object schema, as the derive describes it.
pub struct FieldSchema {
    /// The wire name.
    pub name: &'static str,
    /// Other keys accepted when decoding.
    pub aliases: &'static [&'static str],
    /// The value's schema.
    pub schema: Schema,
    /// Whether encoded values always have it and decoding requires it.
    pub required: bool,
}

/// Adds the decoding aliases of a field as an annotation.
fn with_aliases(schema: Schema, aliases: &[&str]) -> Value {
    let mut value = schema.to_value();
    if !aliases.is_empty() {
        let list: Vec<Value> = aliases.iter().map(|a| Value::from(*a)).collect();
        match &mut value {
            Value::Object(obj) => {
                obj.insert(ALIASES.into(), Value::Array(list));
            }
            other => {
                *other = json!({ "allOf": [other.clone()], ALIASES: list });
            }
        }
    }
    value
}

/// The annotation keyword listing a field's or type's decoding aliases.
pub const ALIASES: &str = "x-codec-aliases";
/// The annotation keyword holding a type's `#[codec(version = N)]`.
pub const VERSION: &str = "x-codec-version";

/// An object with the given fields; `deny_unknown` closes it.
pub fn object(fields: Vec<FieldSchema>, deny_unknown: bool) -> Schema {
    let mut properties = Map::new();
    let mut required = Vec::new();
    for field in fields {
        if field.required {
            required.push(Value::from(field.name));
        }
        properties.insert(field.name.into(), with_aliases(field.schema, field.aliases));
    }
    let mut map = Map::new();
    map.insert("type".into(), "object".into());
    map.insert("properties".into(), Value::Object(properties));
    if !required.is_empty() {
        map.insert("required".into(), Value::Array(required));
    }
    if deny_unknown {
        map.insert("additionalProperties".into(), false.into());
    }
    schema(Value::Object(map))
}

/// An array whose elements are, by position, `items`; the first `required`
/// are always present; `closed` forbids more.
pub fn tuple(items: Vec<Schema>, required: usize, closed: bool) -> Schema {
    let count = items.len();
    let prefix: Vec<Value> = items.into_iter().map(Schema::to_value).collect();
    let mut map = Map::new();
    map.insert("type".into(), "array".into());
    map.insert("prefixItems".into(), Value::Array(prefix));
    map.insert("minItems".into(), required.into());
    if closed {
        map.insert("maxItems".into(), count.into());
        map.insert("items".into(), false.into());
    }
    schema(Value::Object(map))
}

/// A homogeneous array; `unique` for sets; `len` for fixed-size arrays.
pub fn array(items: Schema, unique: bool, len: Option<usize>) -> Schema {
    let mut map = Map::new();
    map.insert("type".into(), "array".into());
    map.insert("items".into(), items.to_value());
    if unique {
        map.insert("uniqueItems".into(), true.into());
    }
    if let Some(len) = len {
        map.insert("minItems".into(), len.into());
        map.insert("maxItems".into(), len.into());
    }
    schema(Value::Object(map))
}

/// A map: an object whose values are `values`; integer keys are decimal strings.
pub fn map(values: Schema, integer_keys: bool) -> Schema {
    let mut map = Map::new();
    map.insert("type".into(), "object".into());
    map.insert("additionalProperties".into(), values.to_value());
    if integer_keys {
        map.insert("propertyNames".into(), json!({ "pattern": "^-?[0-9]+$" }));
    }
    schema(Value::Object(map))
}

/// `T` or null.
pub fn nullable(inner: Schema) -> Schema {
    schema(json!({ "anyOf": [inner.to_value(), { "type": "null" }] }))
}

/// One of fixed values (a unit-only enum).
pub fn enumeration(values: Vec<Value>) -> Schema {
    schema(json!({ "enum": values }))
}

/// A variant of a tagged map union: the variant's object schema with the tag
/// property first in `required`. `payload` is the schema of the variant's
/// fields (an object, possibly behind a `$ref` when a struct merges in).
pub fn tagged_variant(
    generator: &SchemaGenerator,
    tag_field: &str,
    tag: Value,
    aliases: &'static [&'static str],
    payload: Schema,
) -> Value {
    let mut object = resolve(generator, payload.to_value());
    let obj = object
        .as_object_mut()
        .expect("a variant's payload is an object schema");
    let mut tag_schema = json!({ "const": tag });
    if !aliases.is_empty() {
        tag_schema[ALIASES] = json!(aliases);
    }
    let mut properties = Map::new();
    properties.insert(tag_field.into(), tag_schema);
    if let Some(Value::Object(props)) = obj.remove("properties") {
        properties.extend(props);
    }
    obj.insert("properties".into(), Value::Object(properties));
    let mut required = vec![Value::from(tag_field)];
    if let Some(Value::Array(req)) = obj.remove("required") {
        required.extend(req);
    }
    obj.insert("required".into(), Value::Array(required));
    obj.insert("type".into(), "object".into());
    object
}

/// A tagged map union over the given variant schemas (from [`tagged_variant`]).
pub fn tagged_union(tag_field: &str, variants: Vec<Value>) -> Schema {
    schema(json!({
        "type": "object",
        "oneOf": variants,
        "discriminator": { "propertyName": tag_field },
        "required": [tag_field],
    }))
}

/// A variant of an `array_like` union: an array starting with its tag.
pub fn tagged_array_variant(
    tag: Value,
    items: Vec<Schema>,
    required: usize,
    closed: bool,
) -> Value {
    let mut all = vec![schema(json!({ "const": tag }))];
    all.extend(items);
    tuple(all, required + 1, closed).to_value()
}

/// One of the given schemas, told apart by the shape of the value.
pub fn one_of(variants: Vec<Value>) -> Schema {
    schema(json!({ "oneOf": variants }))
}

/// Any of the given schemas (an untagged union).
pub fn any_of(variants: Vec<Schema>) -> Schema {
    let variants: Vec<Value> = variants.into_iter().map(Schema::to_value).collect();
    schema(json!({ "anyOf": variants }))
}

/// Adds type-level annotations (aliases of the wire name, version) to a schema.
pub fn annotate(schema: Schema, aliases: &[&str], version: Option<u32>) -> Schema {
    let mut value = schema.to_value();
    if let Value::Object(obj) = &mut value {
        if !aliases.is_empty() {
            obj.insert(ALIASES.into(), json!(aliases));
        }
        if let Some(version) = version {
            obj.insert(VERSION.into(), version.into());
        }
    }
    self::schema(value)
}

/// Follows a `$ref` into the generator's definitions (one level: definitions
/// of derived types are never themselves bare references).
fn resolve(generator: &SchemaGenerator, value: Value) -> Value {
    let Some(reference) = value.get("$ref").and_then(Value::as_str) else {
        return value;
    };
    let name = reference.rsplit('/').next().unwrap_or_default();
    let name = name.replace("~1", "/").replace("~0", "~");
    match generator.definitions().get(&name) {
        Some(def) if def.is_object() => {
            let mut def = def.clone();
            if let Some(obj) = def.as_object_mut() {
                obj.remove(ALIASES);
                obj.remove(VERSION);
            }
            def
        }
        _ => value,
    }
}
