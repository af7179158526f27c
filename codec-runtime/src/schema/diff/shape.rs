//! What a schema node describes, as far as compatibility goes, and its name
//! in the text of a change.

use serde_json::{Map, Value};

use crate::schema::ALIASES;

/// What a schema node describes, as far as compatibility goes.
pub(super) enum Shape<'a> {
    Nullable(&'a Value),
    TaggedMap(&'a str, Vec<&'a Value>),
    TaggedArray(Vec<&'a Value>),
    Untagged(&'a Vec<Value>),
    Enum(&'a Vec<Value>),
    Const(&'a Value),
    Object(&'a Map<String, Value>),
    Map(&'a Value),
    Array(&'a Map<String, Value>),
    Scalar(&'a str, &'a Map<String, Value>),
    Any,
}

pub(super) fn shape(v: &Value) -> Shape<'_> {
    let Some(obj) = v.as_object() else {
        return Shape::Any;
    };
    if let Some(Value::Array(any)) = obj.get("anyOf") {
        let null = any
            .iter()
            .position(|s| s.get("type") == Some(&Value::from("null")));
        if let (2, Some(i)) = (any.len(), null) {
            return Shape::Nullable(&any[1 - i]);
        }
        return Shape::Untagged(any);
    }
    if let Some(Value::Array(variants)) = obj.get("oneOf") {
        let tag = obj
            .get("discriminator")
            .and_then(|d| d.get("propertyName"))
            .and_then(Value::as_str);
        return match tag {
            Some(tag) => Shape::TaggedMap(tag, variants.iter().collect()),
            None => Shape::TaggedArray(variants.iter().collect()),
        };
    }
    if let Some(Value::Array(values)) = obj.get("enum") {
        return Shape::Enum(values);
    }
    if let Some(c) = obj.get("const") {
        return Shape::Const(c);
    }
    match obj.get("type").and_then(Value::as_str) {
        Some("object") if obj.contains_key("properties") => Shape::Object(obj),
        Some("object") => match obj.get("additionalProperties") {
            Some(values) => Shape::Map(values),
            None => Shape::Object(obj),
        },
        Some("array") => Shape::Array(obj),
        Some(ty) => Shape::Scalar(ty, obj),
        None => Shape::Any,
    }
}

pub(super) fn describe(v: &Value) -> String {
    match shape(v) {
        Shape::Nullable(inner) => format!("Option<{}>", describe(inner)),
        Shape::TaggedMap(..) | Shape::TaggedArray(_) => "tagged union".into(),
        Shape::Untagged(_) => "untagged union".into(),
        Shape::Enum(_) => "enum".into(),
        Shape::Const(c) => format!("constant {c}"),
        Shape::Object(_) => "object".into(),
        Shape::Map(_) => "map".into(),
        Shape::Array(_) => "array".into(),
        Shape::Scalar(ty, obj) => describe_map(ty, obj),
        Shape::Any => "any value".into(),
    }
}

pub(super) fn aliases(v: &Value) -> Vec<&str> {
    v.get(ALIASES)
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

pub(super) fn string_list(v: Option<&Value>) -> Vec<&str> {
    v.and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// A scalar's name in diff text: strings that carry bytes, times or ids are
/// named for what they hold, with their JSON form.
pub(super) fn describe_map(ty: &str, m: &Map<String, Value>) -> String {
    if m.get("contentEncoding").and_then(Value::as_str) == Some("base64") {
        return "bytes (base64 string)".to_owned();
    }
    match (ty, m.get("format").and_then(Value::as_str)) {
        ("string", Some("date-time")) => "timestamp (RFC 3339 string)".to_owned(),
        ("string", Some("date")) => "date (ISO 8601 string)".to_owned(),
        ("string", Some("time")) => "time of day (ISO 8601 string)".to_owned(),
        ("string", Some("duration")) => "duration (ISO 8601 string)".to_owned(),
        ("string", Some("uuid")) => "uuid (string)".to_owned(),
        (ty, Some(f)) => format!("{ty} ({f})"),
        (ty, None) => ty.to_owned(),
    }
}
