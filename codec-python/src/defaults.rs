//! Fields' defaults in Python: the value msgspec decodes from the JSON the
//! schema gives under `"default"` (the Rust default, encoded), written as a
//! literal where Python has one, else decoded by msgspec: once for an
//! immutable value, in a factory for a mutable one.

use std::collections::BTreeMap;

use serde_json::Value;

use super::defs::{ref_name, shape_of, At, Shape};
use super::names::{python_literal, python_str};
use super::Error;

/// Whether a missing value reads as `None`: the schema takes null.
pub(super) fn takes_none(schema: &Value, defs: &BTreeMap<String, Value>) -> bool {
    match schema {
        Value::Bool(true) => true,
        Value::Object(obj) if obj.is_empty() => true,
        Value::Object(obj) => {
            if obj.get("type").and_then(Value::as_str) == Some("null") {
                return true;
            }
            if let Some(Value::Array(options)) = obj.get("anyOf") {
                return options.iter().any(|o| takes_none(o, defs));
            }
            match obj.get("$ref").and_then(Value::as_str).and_then(ref_name) {
                Some(name) => defs.get(&name).is_some_and(|d| takes_none(d, defs)),
                None => false,
            }
        }
        _ => false,
    }
}

/// A field's default: `= <literal>`, or `default_factory=<factory>`.
pub(super) enum Default {
    Literal(String),
    Factory(String),
}

/// How a default value of a field's type is written in Python.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum DefaultKind {
    /// Its JSON is its Python literal: `bool`, `int`, `str`, a `Literal`.
    Literal,
    /// A `float` (codec writes its JSON with a point, as Python does).
    Float,
    /// An immutable value msgspec decodes from its JSON: a time, `bytes`, a
    /// tuple, a `uuid.UUID`.
    Decoded,
    /// A `list`, `set` or `dict`: from a factory, as msgspec wants mutable
    /// defaults.
    Collection(&'static str),
    /// A Struct or a union of them: mutable too, from a factory.
    Struct,
}

/// The kind of the values of a field's schema, through references and
/// aliases.
pub(super) fn default_kind(schema: &Value, defs: &BTreeMap<String, Value>) -> DefaultKind {
    let Some(obj) = schema.as_object() else {
        return DefaultKind::Decoded;
    };
    if let Some(name) = obj.get("$ref").and_then(Value::as_str).and_then(ref_name) {
        return match defs.get(&name).map(shape_of) {
            Some(Shape::Alias(inner)) => default_kind(inner, defs),
            _ => DefaultKind::Struct,
        };
    }
    if let Some(Value::Array(options)) = obj.get("anyOf") {
        let inner = options
            .iter()
            .find(|o| o.get("type") != Some(&"null".into()));
        return inner.map_or(DefaultKind::Literal, |o| default_kind(o, defs));
    }
    if obj.contains_key("enum") {
        return DefaultKind::Literal;
    }
    match obj.get("type").and_then(Value::as_str) {
        Some("boolean" | "integer") => DefaultKind::Literal,
        Some("number") => DefaultKind::Float,
        Some("string") if !obj.contains_key("format") && !obj.contains_key("contentEncoding") => {
            DefaultKind::Literal
        }
        Some("array") if obj.contains_key("prefixItems") => DefaultKind::Decoded,
        Some("array") if obj.get("uniqueItems") == Some(&Value::Bool(true)) => {
            DefaultKind::Collection("set")
        }
        Some("array") => DefaultKind::Collection("list"),
        Some("object") => DefaultKind::Collection("dict"),
        // `typing.Any`: the default's JSON says what it holds.
        None => match schema.get("default") {
            Some(Value::Array(_)) => DefaultKind::Collection("list"),
            Some(Value::Object(_)) => DefaultKind::Collection("dict"),
            _ => DefaultKind::Literal,
        },
        Some(_) => DefaultKind::Decoded,
    }
}

/// The Python default of a field whose default value has the JSON `value`:
/// the value msgspec decodes from that JSON, so that both sides hold (and
/// write) the same value.
pub(super) fn python_default(
    value: &Value,
    kind: DefaultKind,
    annotation: &str,
    forward: bool,
    omit_defaults: bool,
    at: &At<'_>,
) -> Result<Default, Error> {
    // The default, decoded by msgspec from its JSON when the class is used.
    let decoded = || {
        format!(
            "msgspec.json.decode({}, type={})",
            python_str(&value.to_string()),
            annotation
        )
    };
    let empty = match value {
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
        _ => false,
    };
    Ok(match (kind, value) {
        (DefaultKind::Float, Value::Null) => {
            return Err(
                at.error("a default that is not a finite number, which msgspec writes otherwise")
            )
        }
        (_, Value::Null) => Default::Literal("None".into()),
        (DefaultKind::Literal | DefaultKind::Float, scalar) => {
            Default::Literal(python_literal(scalar))
        }
        // A forward reference is not defined yet where the class is: decoded
        // on first use instead.
        (DefaultKind::Decoded, _) if !forward => Default::Literal(decoded()),
        (DefaultKind::Collection(factory), _) if empty => Default::Factory(factory.into()),
        (_, _) if omit_defaults => {
            return Err(at.error(format!(
                "the default {value} comes from a factory, which msgspec's omit_defaults never \
                 leaves out; drop #[codec(omit_defaults)] or make the default empty"
            )))
        }
        _ => Default::Factory(format!("lambda: {}", decoded())),
    })
}
