//! The fingerprint of a schema: SHA-256 of the canonical text of its
//! resolved model (see `model/canonical.rs`), first 16 bytes. Two schemas
//! fingerprint equal exactly when their wire shapes are equal: references
//! followed, annotations (titles, descriptions, examples, defaults,
//! codec's aliases, versions and field orders) left out where they are
//! annotations, never where they are names. Field order counts only where
//! the wire has an order: the elements of an `array_like` type
//! (`prefixItems`).
//!
//! Earlier versions hashed the schema's JSON with a key filter that also
//! dropped fields named like annotations (`title`, `default`...), and did
//! not follow references. Their fingerprint of a type is its
//! legacy fingerprint (`legacy`), still recognised where it was exact.

use std::fmt;
use std::str::FromStr;

use serde_json::Value;
use sha2::{Digest, Sha256};

use super::model::{Canonical, Model};
use crate::codec::Schema;

/// The fingerprint of `T`'s schema: equal for equal wire shapes, across runs,
/// platforms and compiler versions. See [`Fingerprint`].
pub fn fingerprint_of<T: Schema>() -> Fingerprint {
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

/// The canonical text of a schema, whose hash is its fingerprint: see the
/// module documentation.
#[doc(hidden)]
pub fn canonical_json(schema: &Value) -> String {
    Canonical::new(&Model::new(schema)).root()
}

/// The fingerprint earlier versions gave a schema, when it was exact: a
/// key filter over the JSON that dropped annotations, and with them any
/// field or definition named like one. `None` when the filter dropped a
/// name: that fingerprint is shared by other shapes, and says nothing.
pub(crate) mod legacy {
    use serde_json::Value;

    use super::Fingerprint;
    use crate::schema::{ALIASES, FIELDS, OMIT_DEFAULTS, ORDER, RAW, VERSION};

    const IGNORED: &[&str] = &[
        "title",
        "description",
        "examples",
        "$comment",
        "default",
        "$schema",
        ALIASES,
        VERSION,
        ORDER,
        FIELDS,
        OMIT_DEFAULTS,
        RAW,
    ];

    /// Keywords whose keys are names.
    const NAMES: &[&str] = &["properties", "patternProperties", "$defs", "definitions"];

    /// The earlier fingerprint of `schema`, when it was exact.
    pub fn fingerprint(schema: &Value) -> Option<Fingerprint> {
        let (text, exact) = canonical(schema);
        exact.then(|| Fingerprint::of_canonical(&text))
    }

    /// The earlier canonical text, and whether no name was dropped.
    pub fn canonical(schema: &Value) -> (String, bool) {
        let mut out = String::new();
        let mut exact = true;
        write(schema, None, &mut out, &mut exact);
        (out, exact)
    }

    fn write(value: &Value, key: Option<&str>, out: &mut String, exact: &mut bool) {
        match value {
            Value::Object(map) if crate::schema::is_raw(map) => out.push_str("true"),
            Value::Object(map) => {
                let names = key.is_some_and(|k| NAMES.contains(&k));
                // Floats had no width in their schema then.
                let width = map.get("type").is_some_and(|t| t == "number")
                    && map
                        .get("format")
                        .is_some_and(|f| f == "float" || f == "double");
                let mut keys: Vec<&String> = map
                    .keys()
                    .filter(|k| {
                        let dropped = IGNORED.contains(&k.as_str());
                        *exact &= !(dropped && names);
                        let width_format = width && *k == "format";
                        !(dropped || width_format)
                    })
                    .collect();
                keys.sort();
                out.push('{');
                for (i, k) in keys.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(&Value::from(k.as_str()).to_string());
                    out.push(':');
                    write(&map[*k], Some(k), out, exact);
                }
                out.push('}');
            }
            Value::Array(items) => {
                let mut parts: Vec<String> = items
                    .iter()
                    .map(|item| {
                        let mut s = String::new();
                        write(item, None, &mut s, exact);
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
