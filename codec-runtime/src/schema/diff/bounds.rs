//! Constraint keywords in a schema diff: a bound narrowed or added is
//! breaking (stored values may fall outside it), widened or removed is
//! compatible. `minimum` and `maximum` are the integer ranges' own, compared
//! with the type (see `Differ::scalar`).

use serde_json::{Map, Value};

use super::change::Compatibility;

/// Lower bounds: a larger new value narrows.
const LOWER: &[&str] = &["exclusiveMinimum", "minLength", "minItems", "minProperties"];
/// Upper bounds: a smaller new value narrows.
const UPPER: &[&str] = &["exclusiveMaximum", "maxLength", "maxItems", "maxProperties"];

/// Each change of a constraint keyword from `old` to `new`, in words.
/// `minItems` and `maxItems` of fixed-length arrays (`prefixItems`) are
/// their elements' business, not constraints, and are left out.
pub(super) fn changes(
    old: &Map<String, Value>,
    new: &Map<String, Value>,
) -> Vec<(String, Compatibility)> {
    let tuple = old.contains_key("prefixItems") || new.contains_key("prefixItems");
    let mut out = Vec::new();
    for (keys, lower) in [(LOWER, true), (UPPER, false)] {
        for &key in keys {
            if tuple && matches!(key, "minItems" | "maxItems") {
                continue;
            }
            let (o, n) = (
                old.get(key).and_then(Value::as_f64),
                new.get(key).and_then(Value::as_f64),
            );
            let narrowed = match (o, n) {
                (None, Some(_)) => true,
                (Some(o), Some(n)) => (lower && n > o) || (!lower && n < o),
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
    let (o, n) = (
        old.get("multipleOf").and_then(Value::as_f64),
        new.get("multipleOf").and_then(Value::as_f64),
    );
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
    let (o, n) = (old.get("pattern"), new.get("pattern"));
    if o != n {
        let text = |p: Option<&Value>| p.map_or_else(|| "none".to_owned(), ToString::to_string);
        out.push((
            format!("`pattern` {} -> {}", text(o), text(n)),
            verdict(n.is_some()),
        ));
    }
    out
}

fn verdict(breaking: bool) -> Compatibility {
    if breaking {
        Compatibility::Breaking
    } else {
        Compatibility::Compatible
    }
}

fn show(v: Option<f64>) -> String {
    v.map_or_else(|| "none".to_owned(), |v| format!("{v}"))
}
