//! What a node of the model describes, as far as compatibility goes, and
//! its name in the text of a change.

use serde_json::Value;

use crate::schema::model::{Keywords, Model, Node};
use crate::schema::{ALIASES, OPAQUE};

/// What a resolved node describes, as far as compatibility goes.
pub(super) enum Shape<'m> {
    Nullable(&'m Node),
    TaggedMap(&'m str, &'m [Node]),
    TaggedArray(&'m [Node]),
    Untagged(&'m [Node]),
    Enum(&'m [Value]),
    Const(&'m Value),
    Object(&'m Keywords),
    Map(&'m Keywords),
    Array(&'m Keywords),
    Scalar(&'m str, &'m Keywords),
    /// A serde value codec keeps without a schema (`codec::Opaque`), by
    /// the version its user declares.
    Opaque(&'m Value),
    /// Any value: `true`, or a schema object that constrains nothing.
    Any,
    /// No value: `false`.
    Never,
    /// A schema of another form (a foreign type's): compared whole.
    Other,
}

/// The shape of `node`, resolved in `model`.
pub(super) fn shape<'m>(model: &'m Model, node: &'m Node) -> Shape<'m> {
    let (node, _) = model.resolve(node);
    let obj = match node {
        Node::Bool(true) => return Shape::Any,
        Node::Bool(false) => return Shape::Never,
        Node::Ref(_) => return Shape::Any, // a cycle of references to nothing
        Node::Object(obj) => obj,
    };
    if let Some(any) = obj.schemas("anyOf") {
        let null = any.iter().position(|s| is_null(model, s));
        if let (2, Some(i)) = (any.len(), null) {
            return Shape::Nullable(&any[1 - i]);
        }
        return Shape::Untagged(any);
    }
    if let Some(variants) = obj.schemas("oneOf") {
        let tag = obj
            .value("discriminator")
            .and_then(|d| d.get("propertyName"))
            .and_then(Value::as_str);
        return match tag {
            Some(tag) => Shape::TaggedMap(tag, variants),
            None => Shape::TaggedArray(variants),
        };
    }
    if let Some(version) = obj.value(OPAQUE) {
        return Shape::Opaque(version);
    }
    if let Some(Value::Array(values)) = obj.value("enum") {
        return Shape::Enum(values);
    }
    if let Some(c) = obj.value("const") {
        return Shape::Const(c);
    }
    match obj.value("type") {
        Some(Value::String(ty)) => match ty.as_str() {
            "object" if obj.has("properties") => Shape::Object(obj),
            "object" if obj.schema("additionalProperties").is_some() => Shape::Map(obj),
            "object" => Shape::Object(obj),
            "array" => Shape::Array(obj),
            ty => Shape::Scalar(ty, obj),
        },
        Some(_) => Shape::Other,
        None if obj.0.keys().all(|k| crate::schema::model::is_annotation(k)) => Shape::Any,
        None => Shape::Other,
    }
}

fn is_null(model: &Model, node: &Node) -> bool {
    let (node, _) = model.resolve(node);
    node.keywords()
        .and_then(|k| k.value("type"))
        .is_some_and(|t| t == "null")
}

/// A node's name in the text of a change.
pub(super) fn describe(model: &Model, node: &Node) -> String {
    match shape(model, node) {
        Shape::Nullable(inner) => format!("Option<{}>", describe(model, inner)),
        Shape::TaggedMap(..) | Shape::TaggedArray(_) => "tagged union".into(),
        Shape::Untagged(_) => "untagged union".into(),
        Shape::Enum(_) => "enum".into(),
        Shape::Const(c) => format!("constant {c}"),
        Shape::Object(_) => "object".into(),
        Shape::Map(_) => "map".into(),
        Shape::Array(_) => "array".into(),
        Shape::Scalar(ty, obj) => describe_scalar(ty, obj),
        Shape::Opaque(version) => {
            format!("an opaque serde value (codec::Opaque), version {version}")
        }
        Shape::Any => "any value".into(),
        Shape::Never => "no value".into(),
        Shape::Other => "a schema of another form".into(),
    }
}

/// The aliases a node lists (a field's former names, a tag's), before
/// references are followed: they sit beside the reference.
pub(super) fn aliases(node: &Node) -> Vec<&str> {
    node.keywords()
        .map(|k| k.strings(ALIASES))
        .unwrap_or_default()
}

/// A scalar's name in diff text: strings that carry bytes, times or ids are
/// named for what they hold, with their JSON form.
pub(super) fn describe_scalar(ty: &str, m: &Keywords) -> String {
    if m.value("contentEncoding").and_then(Value::as_str) == Some("base64") {
        return "bytes (base64 string)".to_owned();
    }
    match (ty, m.value("format").and_then(Value::as_str)) {
        ("string", Some("date-time")) => "timestamp (RFC 3339 string)".to_owned(),
        ("string", Some("date")) => "date (ISO 8601 string)".to_owned(),
        ("string", Some("time")) => "time of day (ISO 8601 string)".to_owned(),
        ("string", Some("duration")) => "duration (ISO 8601 string)".to_owned(),
        ("string", Some("uuid")) => "uuid (string)".to_owned(),
        ("number", Some("float")) => "number (32-bit float)".to_owned(),
        ("number", Some("double")) => "number (64-bit float)".to_owned(),
        (ty, Some(f)) => format!("{ty} ({f})"),
        (ty, None) => ty.to_owned(),
    }
}
