//! The fingerprint of a schema: SHA-256 of its canonical text, first 16 bytes.
//!
//! The canonical text is the schema as compact JSON with object keys sorted,
//! the order-free lists (`required`, `enum`) sorted, and the annotations that
//! do not change the wire shape removed: `title`, `description`, `examples`,
//! `$comment`, `default`, `$schema` and codec's own `x-codec-aliases`,
//! `x-codec-version`, `x-codec-order`, `x-codec-fields`,
//! `x-codec-omit-defaults` (which name fields or change what is written,
//! never what is read) and `x-codec-raw` (a `Raw` value's schema, which is
//! `true`). Field order therefore counts only where the wire has an
//! order: the elements of an `array_like` type (`prefixItems`).

use std::fmt;
use std::str::FromStr;

use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::codec::HasSchema;

const IGNORED: &[&str] = &[
    "title",
    "description",
    "examples",
    "$comment",
    "default",
    "$schema",
    super::ALIASES,
    super::VERSION,
    super::ORDER,
    super::FIELDS,
    super::OMIT_DEFAULTS,
    super::RAW,
];

/// The fingerprint of `T`'s schema: equal for equal wire shapes, across runs,
/// platforms and compiler versions. See [`Fingerprint`].
pub fn fingerprint_of<T: HasSchema>() -> Fingerprint {
    super::info::<T>().fingerprint
}

/// A schema fingerprint: 16 bytes, shown as 32 lowercase hex digits.
///
/// ```
/// #[derive(codec::Codec)]
/// struct A { x: i64 }
/// let fp = codec::fingerprint_of::<A>();
/// assert_eq!(fp.to_string().len(), 32);
/// assert_eq!(fp.to_string().parse::<codec::Fingerprint>().unwrap(), fp);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Fingerprint(pub [u8; 16]);

impl Fingerprint {
    /// The fingerprint of a canonical schema text (see [`canonical_json`]).
    pub fn of_canonical(canonical: &str) -> Fingerprint {
        let digest = Sha256::digest(canonical.as_bytes());
        let mut out = [0u8; 16];
        out.copy_from_slice(&digest[..16]);
        Fingerprint(out)
    }

    /// The fingerprint of any schema value.
    pub fn of_schema(schema: &Value) -> Fingerprint {
        Self::of_canonical(&canonical_json(schema))
    }
}

impl fmt::Display for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for b in self.0 {
            write!(f, "{b:02x}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Fingerprint({self})")
    }
}

/// A string that is not 32 hex digits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseFingerprintError;

impl fmt::Display for ParseFingerprintError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a fingerprint is 32 hexadecimal digits")
    }
}

impl std::error::Error for ParseFingerprintError {}

impl FromStr for Fingerprint {
    type Err = ParseFingerprintError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bytes = s.as_bytes();
        if bytes.len() != 32 {
            return Err(ParseFingerprintError);
        }
        let mut out = [0u8; 16];
        for (i, pair) in bytes.chunks(2).enumerate() {
            let text = std::str::from_utf8(pair).map_err(|_| ParseFingerprintError)?;
            out[i] = u8::from_str_radix(text, 16).map_err(|_| ParseFingerprintError)?;
        }
        Ok(Fingerprint(out))
    }
}

/// The canonical text of a schema: see the module documentation.
pub fn canonical_json(schema: &Value) -> String {
    let mut out = String::new();
    write_canonical(schema, None, &mut out);
    out
}

fn write_canonical(value: &Value, key: Option<&str>, out: &mut String) {
    match value {
        Value::Object(map) if super::is_raw(map) => out.push_str("true"),
        Value::Object(map) => {
            let mut keys: Vec<&String> = map
                .keys()
                .filter(|k| !IGNORED.contains(&k.as_str()))
                .collect();
            keys.sort();
            out.push('{');
            for (i, k) in keys.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::from(k.as_str()).to_string());
                out.push(':');
                write_canonical(&map[*k], Some(k), out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            let mut parts: Vec<String> = items
                .iter()
                .map(|item| {
                    let mut s = String::new();
                    write_canonical(item, None, &mut s);
                    s
                })
                .collect();
            if matches!(key, Some("required" | "enum")) {
                parts.sort();
            }
            out.push('[');
            out.push_str(&parts.join(","));
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn key_order_and_annotations_do_not_count() {
        let a = json!({"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "string"}}, "required": ["a", "b"]});
        let b = json!({"required": ["b", "a"], "title": "T", "properties": {"b": {"type": "string", "description": "x"}, "a": {"type": "integer"}}, "type": "object"});
        assert_eq!(Fingerprint::of_schema(&a), Fingerprint::of_schema(&b));
    }

    #[test]
    fn a_raw_value_is_any_value() {
        let raw = json!({"items": crate::schema::raw().to_value()});
        assert_eq!(canonical_json(&raw), r#"{"items":true}"#);
    }

    #[test]
    fn array_positions_count() {
        let a = json!({"prefixItems": [{"type": "integer"}, {"type": "string"}]});
        let b = json!({"prefixItems": [{"type": "string"}, {"type": "integer"}]});
        assert_ne!(Fingerprint::of_schema(&a), Fingerprint::of_schema(&b));
    }

    #[test]
    fn golden_value_is_stable() {
        let fp = Fingerprint::of_schema(&json!({"type": "integer"}));
        assert_eq!(
            fp.to_string(),
            Fingerprint::of_canonical(r#"{"type":"integer"}"#).to_string()
        );
        assert_eq!(fp.to_string(), "f0765dbf409c74f001806c446f2cf171");
    }
}
