//! Names of the types that have no `#[codec(name)]` (the standard ones),
//! spelled from their schema: what they are on the wire, not their Rust path.
//! `std::any::type_name` is not promised to stay the same across compiler
//! versions; these are. A generic derived type's name lists its arguments'
//! names: `Page<Vec<string>>`.

use serde_json::{Map, Value};

/// The name of the value a schema describes: `u32`, `string`, `bytes`,
/// `timestamp`, `Vec<f64>`, `Option<Point>`, `Map<string, u8>`, `(u8, string)`.
#[doc(hidden)]
pub fn structural_name(schema: &Value) -> String {
    let Some(obj) = schema.as_object() else {
        return "any".to_owned();
    };
    if let Some(reference) = obj.get("$ref").and_then(Value::as_str) {
        let name = reference.rsplit('/').next().unwrap_or(reference);
        return unescape_pointer(name);
    }
    if let Some(any_of) = obj.get("anyOf").and_then(Value::as_array) {
        let non_null: Vec<&Value> = any_of.iter().filter(|v| !is_null(v)).collect();
        if let [inner] = non_null.as_slice()
            && non_null.len() < any_of.len()
        {
            return format!("Option<{}>", structural_name(inner));
        }
        let names: Vec<String> = any_of.iter().map(structural_name).collect();
        return format!("Union<{}>", names.join(", "));
    }
    if let Some(values) = obj.get("enum").and_then(Value::as_array) {
        let names: Vec<String> = values.iter().map(ToString::to_string).collect();
        return format!("Literal<{}>", names.join(", "));
    }
    match obj.get("type").and_then(Value::as_str) {
        Some("integer") => integer_name(obj),
        Some("number") => "float".to_owned(),
        Some("boolean") => "bool".to_owned(),
        Some("null") => "null".to_owned(),
        Some("string") => string_name(obj),
        Some("array") => array_name(obj),
        Some("object") => object_name(obj),
        _ => "any".to_owned(),
    }
}

/// A `$defs` key as a `$ref` spells it: percent-encoded as a URI fragment
/// (`Page%3Cu8%3E`), then `~1`/`~0` for `/` and `~` as a JSON pointer.
fn unescape_pointer(segment: &str) -> String {
    let bytes = segment.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| char::from(b).to_digit(16);
        match (
            bytes[i],
            bytes.get(i + 1).copied().and_then(hex),
            bytes.get(i + 2).copied().and_then(hex),
        ) {
            (b'%', Some(hi), Some(lo)) => {
                out.push(u8::try_from(hi * 16 + lo).unwrap_or(b'?'));
                i += 3;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out)
        .replace("~1", "/")
        .replace("~0", "~")
}

fn is_null(schema: &Value) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("null")
}

fn integer_name(obj: &Map<String, Value>) -> String {
    let min = obj.get("minimum").and_then(Value::as_i64);
    let max = obj.get("maximum").and_then(Value::as_u64);
    let known: [(&str, i64, u64); 8] = [
        ("u8", 0, u8::MAX.into()),
        ("u16", 0, u16::MAX.into()),
        ("u32", 0, u32::MAX.into()),
        ("u64", 0, u64::MAX),
        ("i8", i8::MIN.into(), 127),
        ("i16", i16::MIN.into(), 32_767),
        ("i32", i32::MIN.into(), 2_147_483_647),
        ("i64", i64::MIN, 9_223_372_036_854_775_807),
    ];
    known
        .iter()
        .find(|(_, lo, hi)| min == Some(*lo) && max == Some(*hi))
        .map_or_else(|| "int".to_owned(), |(name, _, _)| (*name).to_owned())
}

fn string_name(obj: &Map<String, Value>) -> String {
    if obj.get("contentEncoding").and_then(Value::as_str) == Some("base64") {
        return "bytes".to_owned();
    }
    let one_char = obj.get("minLength").and_then(Value::as_u64) == Some(1)
        && obj.get("maxLength").and_then(Value::as_u64) == Some(1);
    match obj.get("format").and_then(Value::as_str) {
        Some("date-time") => "timestamp".to_owned(),
        Some(format @ ("date" | "time" | "duration" | "uuid")) => format.to_owned(),
        _ if one_char => "char".to_owned(),
        _ => "string".to_owned(),
    }
}

fn array_name(obj: &Map<String, Value>) -> String {
    if let Some(prefix) = obj.get("prefixItems").and_then(Value::as_array) {
        let names: Vec<String> = prefix.iter().map(structural_name).collect();
        return format!("({})", names.join(", "));
    }
    let item = obj
        .get("items")
        .map_or_else(|| "any".to_owned(), structural_name);
    let min = obj.get("minItems").and_then(Value::as_u64);
    let max = obj.get("maxItems").and_then(Value::as_u64);
    match (min, max) {
        (Some(n), Some(m)) if n == m => format!("[{item}; {n}]"),
        _ if obj.get("uniqueItems") == Some(&Value::Bool(true)) => format!("Set<{item}>"),
        _ => format!("Vec<{item}>"),
    }
}

fn object_name(obj: &Map<String, Value>) -> String {
    let Some(values) = obj.get("additionalProperties").filter(|v| v.is_object()) else {
        return "object".to_owned();
    };
    let key = match obj.get("propertyNames") {
        Some(keys) if keys.get("pattern").is_some() => "int".to_owned(),
        Some(keys) => structural_name(keys),
        None => "string".to_owned(),
    };
    format!("Map<{key}, {}>", structural_name(values))
}

#[cfg(test)]
mod tests {
    use super::structural_name;
    use crate::schema::schema_of;
    use std::collections::{BTreeMap, HashSet};

    fn name<T: crate::codec::Codec>() -> String {
        structural_name(&schema_of::<T>())
    }

    #[test]
    fn standard_types_are_named_for_their_wire() {
        assert_eq!(name::<u32>(), "u32");
        assert_eq!(name::<i8>(), "i8");
        assert_eq!(name::<i128>(), "int");
        assert_eq!(name::<f32>(), "float");
        assert_eq!(name::<String>(), "string");
        assert_eq!(name::<char>(), "char");
        assert_eq!(name::<Vec<u8>>(), "bytes");
        assert_eq!(name::<Vec<String>>(), "Vec<string>");
        assert_eq!(name::<[u16; 2]>(), "[u16; 2]");
        assert_eq!(name::<HashSet<u8>>(), "Set<u8>");
        assert_eq!(name::<Option<u8>>(), "Option<u8>");
        assert_eq!(name::<(u8, String)>(), "(u8, string)");
        assert_eq!(name::<BTreeMap<String, u8>>(), "Map<string, u8>");
        assert_eq!(name::<BTreeMap<u32, bool>>(), "Map<int, bool>");
        assert_eq!(name::<std::time::SystemTime>(), "timestamp");
        assert_eq!(name::<std::time::Duration>(), "duration");
        assert_eq!(name::<()>(), "null");
    }
}
