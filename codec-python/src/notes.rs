//! What a generated module says in words: the doc comments of types and
//! fields, and notes on what msgspec reads but cannot check as codec does.

use serde_json::{Map, Value};

/// The note on an alias that names itself through unions and collections.
pub(super) const RECURSIVE_ALIAS: &str =
    "Recursive through unions and collections only, which msgspec \
     cannot spell (its recursive types go through Structs): mypy checks the \
     whole type, msgspec reads what it holds of itself as typing.Any, so \
     there Python accepts values Rust refuses, and reads Structs as dicts.";

/// Whether an integer schema is a `u128`'s as codec wrote them before its
/// upper bound was left open: `maximum` `-1` (`u128::MAX` cast to `i128`),
/// below its `minimum` of 0, a bound that says nothing of the values codec
/// reads. Schema files kept from then still say it.
pub(super) fn u128_maximum(obj: &Map<String, Value>) -> bool {
    obj.get("minimum").and_then(Value::as_i64) == Some(0)
        && obj.get("maximum").and_then(Value::as_i64) == Some(-1)
}

/// A schema's `description`: the doc comment of its type or field.
pub(super) fn description(schema: &Value) -> Option<&str> {
    schema.as_object().and_then(description_of)
}

pub(super) fn description_of(obj: &Map<String, Value>) -> Option<&str> {
    obj.get("description").and_then(Value::as_str)
}

/// The note on an integer without bounds in its schema: one beyond 64 bits.
const WIDE_INTEGER: &str =
    "An integer beyond 64 bits in Rust (i128, u128): msgspec bounds integers \
     only within 64 bits, so JSON numbers outside the Rust type's range decode \
     here and are refused in Rust.";

/// The note on a `rust_decimal::Decimal`, which msgspec cannot bound.
const DECIMAL: &str = "A rust_decimal::Decimal in Rust: 96 bits of digits, a scale up to 28, \
     finite. msgspec's decimal.Decimal takes any, so NaN, infinities and larger \
     decimals decode here and are refused in Rust.";

/// The note on a `codec::Opaque` value, which has no schema.
const OPAQUE: &str = "A serde value opaque to codec (codec::Opaque in Rust): no schema \
     says what it holds, so any value decodes here, and Rust's serde decides.";

/// What Python does not check of the values of a schema, if anything: an
/// integer with a side unbounded (an `i128` or `u128`, whose bounds the
/// schema leaves out and msgspec could not check), a decimal.
pub(super) fn unchecked(schema: &Value) -> Option<&'static str> {
    match schema {
        Value::Object(obj) if obj.get("type").and_then(Value::as_str) == Some("integer") => {
            let has = |a: &str, b: &str| obj.contains_key(a) || obj.contains_key(b);
            let bounded = has("minimum", "exclusiveMinimum") && has("maximum", "exclusiveMaximum");
            (!bounded || u128_maximum(obj)).then_some(WIDE_INTEGER)
        }
        Value::Object(obj) if obj.get("format").and_then(Value::as_str) == Some("decimal") => {
            Some(DECIMAL)
        }
        Value::Object(obj) if obj.contains_key(codec_runtime::schema::__tools::OPAQUE) => {
            Some(OPAQUE)
        }
        Value::Object(obj) => obj
            .iter()
            .filter(|(key, _)| *key != "default")
            .find_map(|(_, value)| unchecked(value)),
        Value::Array(items) => items.iter().find_map(unchecked),
        _ => None,
    }
}

/// A doc comment as `#` lines, above an alias (which has no docstring).
pub(super) fn doc_comment(text: &str) -> String {
    text.lines()
        .map(|line| match line {
            "" => "#\n".to_owned(),
            line => format!("# {line}\n"),
        })
        .collect()
}

/// `text` as `#` lines of at most 79 characters, each after `indent`.
pub(super) fn comment(text: &str, indent: &str) -> String {
    let mut out = String::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && indent.len() + 2 + line.len() + 1 + word.len() > 79 {
            out.push_str(&format!("{indent}# {line}\n"));
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        out.push_str(&format!("{indent}# {line}\n"));
    }
    out
}
