//! The building blocks of schemas: the pieces the derive's generated code and
//! the standard impls assemble. Not public: generated code reaches them
//! through `__private::schema`.

use schemars::{Schema, SchemaGenerator};
use serde_json::{json, Map, Value};

use super::subschema;
use crate::error::EncodeError;
use crate::json::JsonWriter;
use crate::kind::WireKind;

/// The schema of a sequence of `T` (`len` for fixed-size arrays): an array of
/// `T`, or a base64 string when `T` makes sequences byte buffers (`u8`).
pub fn sequence<T: crate::codec::Schema>(
    generator: &mut SchemaGenerator,
    len: Option<usize>,
) -> Schema {
    if T::__SEQ_KIND.is(WireKind::BYTES) {
        bytes()
    } else {
        array(subschema::<T>(generator), false, len)
    }
}

/// A byte buffer: a base64 string.
pub fn bytes() -> Schema {
    typed("string", json!({ "contentEncoding": "base64" }))
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

/// The JSON of a field's default value, as `write` encodes it: `None` when
/// `write` writes nothing (the field is left out at its default) or fails.
pub fn default_json(
    write: impl FnOnce(&mut JsonWriter) -> Result<(), EncodeError>,
) -> Option<Value> {
    let mut w = JsonWriter::new(Vec::new());
    write(&mut w).ok()?;
    serde_json::from_slice(&w.into_inner()).ok()
}

/// `schema` with a `"default"` annotation, when there is one. It does not
/// count in the fingerprint (`IGNORED` in `fingerprint.rs`): a default is read
/// only where the value is missing, and changing it changes no wire shape.
pub fn with_default(schema: Schema, default: Option<Value>) -> Schema {
    let Some(default) = default else {
        return schema;
    };
    let mut value = schema.to_value();
    match &mut value {
        Value::Object(obj) => {
            obj.insert("default".into(), default);
        }
        // `true` accepts anything, as `{}` does; `false` has no value to default to.
        Value::Bool(true) => value = json!({ "default": default }),
        _ => {}
    }
    self::schema(value)
}

/// Adds the decoding aliases of a field as an annotation.
fn with_aliases(schema: Schema, aliases: &[&str]) -> Value {
    let mut value = schema.to_value();
    if !aliases.is_empty() {
        let list: Vec<Value> = aliases.iter().map(|a| Value::from(*a)).collect();
        match &mut value {
            // A `Raw` is `true` to the fingerprint: wrapped as `true` is.
            Value::Object(obj) if !is_raw(obj) => {
                obj.insert(ALIASES.into(), Value::Array(list));
            }
            other => {
                *other = json!({ "allOf": [other.clone()], ALIASES: list });
            }
        }
    }
    value
}

/// The schema of a [`Raw`](crate::Raw) value: any value, as `true`, marked
/// with [`RAW`] so that generated Python reads it as `msgspec.Raw`.
pub fn raw() -> Schema {
    schema(json!({ RAW: true }))
}

/// Whether a schema object is [`raw`]'s, described or not, which the
/// fingerprint reads as `true`.
pub(crate) fn is_raw(obj: &Map<String, Value>) -> bool {
    obj.get(RAW) == Some(&Value::Bool(true)) && obj.keys().all(|k| k == RAW || k == "description")
}

/// `schema` with a doc comment as its `description`, an annotation the
/// fingerprint leaves out. A `true` schema (any value) stays as it is:
/// `{"description": ...}` would be another schema to the fingerprint.
pub fn describe(schema: Schema, description: &str) -> Schema {
    self::schema(describe_variant(schema.to_value(), description))
}

/// A variant's schema (from [`tagged_variant`] or [`tagged_array_variant`])
/// with its doc comment as its `description`.
pub fn describe_variant(mut schema: Value, description: &str) -> Value {
    if let Value::Object(obj) = &mut schema {
        obj.insert("description".into(), description.into());
    }
    schema
}

/// The annotation keyword marking a value kept encoded ([`raw`]).
pub const RAW: &str = "x-codec-raw";

/// The keyword of a value codec keeps through serde without a schema of
/// its own ([`crate::Opaque`]): its value is the version the user declares,
/// so the fingerprint and the diff see a new version, and nothing else of
/// the type.
pub const OPAQUE: &str = "x-codec-opaque";

/// The annotation keyword listing a field's or type's decoding aliases.
pub const ALIASES: &str = "x-codec-aliases";

/// In a unit-only enum's schema, the former names of each value
/// (`{"Bee": ["B"]}`), accepted when decoding.
pub const VALUE_ALIASES: &str = "x-codec-value-aliases";
/// The annotation keyword holding a type's `#[codec(version = N)]`.
pub const VERSION: &str = "x-codec-version";
/// In an object's schema, its fields in declaration order (the order of the
/// wire), when that is not the sorted order `properties` keeps and some field
/// is optional (else `required` has it).
pub const ORDER: &str = "x-codec-order";
/// In the schema of an `array_like` struct or struct variant, the names of
/// the fields its elements hold, in order (after the tag of a variant).
pub const FIELDS: &str = "x-codec-fields";
/// In an object's schema, `true` when fields equal to their default are
/// left out (`#[codec(omit_defaults)]`).
pub const OMIT_DEFAULTS: &str = "x-codec-omit-defaults";

/// An object with the given fields; `deny_unknown` closes it.
pub fn object(fields: Vec<FieldSchema>, deny_unknown: bool) -> Schema {
    let mut properties = Map::new();
    let mut required = Vec::new();
    let names: Vec<&str> = fields.iter().map(|f| f.name).collect();
    let sorted = names.windows(2).all(|w| w[0] <= w[1]);
    let order = (!sorted && fields.iter().any(|f| !f.required)).then(|| json!(names));
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
    if let Some(order) = order {
        map.insert(ORDER.into(), order);
    }
    schema(Value::Object(map))
}

/// Names the elements of an `array_like` struct's schema by their fields.
pub fn field_names(schema: Schema, names: &[&str]) -> Schema {
    self::schema(variant_field_names(schema.to_value(), names))
}

/// Names the elements of an `array_like` struct variant (from
/// [`tagged_array_variant`]) by their fields.
pub fn variant_field_names(mut variant: Value, names: &[&str]) -> Value {
    if let Value::Object(obj) = &mut variant {
        obj.insert(FIELDS.into(), json!(names));
    }
    variant
}

/// Marks an object's schema as leaving out fields equal to their default.
pub fn omit_defaults(schema: Schema) -> Schema {
    let mut value = schema.to_value();
    if let Value::Object(obj) = &mut value {
        obj.insert(OMIT_DEFAULTS.into(), true.into());
    }
    self::schema(value)
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
pub fn enumeration(values: Vec<Value>, aliases: &[&[&str]]) -> Schema {
    let mut renamed = Map::new();
    for (value, aliases) in values.iter().zip(aliases) {
        if !aliases.is_empty() {
            renamed.insert(enum_value_key(value), json!(aliases));
        }
    }
    let mut out = json!({ "enum": values });
    if !renamed.is_empty() {
        out[VALUE_ALIASES] = Value::Object(renamed);
    }
    schema(out)
}

/// The key of a unit-only enum's value in its [`VALUE_ALIASES`] map: the
/// string itself, or an integer's digits.
pub fn enum_value_key(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
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
    aliases: &'static [&'static str],
    items: Vec<Schema>,
    required: usize,
    closed: bool,
) -> Value {
    let mut tag_schema = json!({ "const": tag });
    if !aliases.is_empty() {
        tag_schema[ALIASES] = json!(aliases);
    }
    let mut all = vec![schema(tag_schema)];
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
