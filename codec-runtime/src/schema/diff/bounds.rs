//! Constraint keywords in a schema diff: a bound narrowed or added is
//! breaking (stored values may fall outside it), widened or removed is
//! compatible. `minimum` and `maximum` are the integer ranges' own, compared
//! with the type (see `Differ::scalar`).

use serde_json::Value;

use super::change::Compatibility;
use crate::schema::model::Keywords;

/// Lower bounds: a larger new value narrows.
const LOWER: &[&str] = &["exclusiveMinimum", "minLength", "minItems", "minProperties"];
/// Upper bounds: a smaller new value narrows.
const UPPER: &[&str] = &["exclusiveMaximum", "maxLength", "maxItems", "maxProperties"];

/// Each change of a constraint keyword from `old` to `new`, in words.
/// `minItems` and `maxItems` of fixed-length arrays (`prefixItems`) are
/// their elements' business, not constraints, and are left out.
pub(super) fn changes(old: &Keywords, new: &Keywords) -> Vec<(String, Compatibility)> {
    let tuple = old.has("prefixItems") || new.has("prefixItems");
    let number = Bound::of;
    let mut out = Vec::new();
    for (keys, lower) in [(LOWER, true), (UPPER, false)] {
        for &key in keys {
            if tuple && matches!(key, "minItems" | "maxItems") {
                continue;
            }
            let (o, n) = (number(old, key), number(new, key));
            let narrowed = match (o, n) {
                (None, Some(_)) => true,
                (Some(o), Some(n)) => (lower && n.above(o)) || (!lower && o.above(n)),
                _ => false,
            };
            if o != n {
                let word = if narrowed { "narrowed" } else { "widened" };
                out.push((
                    format!("`{key}` {word}: {} -> {}", show(o), show(n)),
                    verdict(narrowed),
                ));
            }
        }
    }
    let float = |k: &Keywords, key: &str| k.value(key).and_then(Value::as_f64);
    let (o, n) = (float(old, "multipleOf"), float(new, "multipleOf"));
    if o != n {
        // Every multiple of the old step is one of the new if the new divides it.
        let compatible = match (o, n) {
            (_, None) => true,
            (Some(o), Some(n)) => n != 0.0 && (o / n).fract() == 0.0,
            (None, Some(_)) => false,
        };
        out.push((
            format!("`multipleOf` {} -> {}", show(o), show(n)),
            verdict(!compatible),
        ));
    }
    let (o, n) = (old.value("pattern"), new.value("pattern"));
    if o != n {
        let text = |p: Option<&Value>| p.map_or_else(|| "none".to_owned(), ToString::to_string);
        out.push((
            format!("`pattern` {} -> {}", text(o), text(n)),
            verdict(n.is_some()),
        ));
    }
    out
}

/// A bound of a schema: exact for integers (an `i64`'s `-2^63` and
/// `-2^63 + 1` are one `f64`), else a float.
#[derive(Clone, Copy, PartialEq, Debug)]
pub(super) enum Bound {
    Int(i128),
    Float(f64),
}

impl Bound {
    pub(super) fn of(k: &Keywords, key: &str) -> Option<Bound> {
        let v = k.value(key)?;
        if let Some(i) = v.as_i64() {
            Some(Bound::Int(i.into()))
        } else if let Some(u) = v.as_u64() {
            Some(Bound::Int(u.into()))
        } else {
            v.as_f64().map(Bound::Float)
        }
    }

    fn float(self) -> f64 {
        match self {
            Bound::Int(i) => i as f64,
            Bound::Float(f) => f,
        }
    }

    /// Whether `self` is greater than `other`.
    pub(super) fn above(self, other: Bound) -> bool {
        match (self, other) {
            (Bound::Int(a), Bound::Int(b)) => a > b,
            (a, b) => a.float() > b.float(),
        }
    }
}

impl std::fmt::Display for Bound {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Bound::Int(i) => write!(f, "{i}"),
            Bound::Float(x) => write!(f, "{x}"),
        }
    }
}

fn verdict(breaking: bool) -> Compatibility {
    if breaking {
        Compatibility::Breaking
    } else {
        Compatibility::Compatible
    }
}

fn show(v: Option<impl std::fmt::Display>) -> String {
    v.map_or_else(|| "none".to_owned(), |v| v.to_string())
}
