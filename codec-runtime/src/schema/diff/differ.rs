//! The walk over two schemas side by side, from their roots through `$ref`s,
//! that records each difference with its path.

use std::collections::HashSet;

use serde_json::{Map, Value};

use super::bounds;
use super::change::{Change, Compatibility};
use super::shape::{aliases, describe, describe_map, shape, string_list, Shape};
use crate::schema::build::enum_value_key;
use crate::schema::{canonical_json, VALUE_ALIASES};

/// The changes from `old` to `new`, two root schemas as [`crate::schema_of`]
/// gives them. Empty when the wire shapes are equal.
pub fn diff(old: &Value, new: &Value) -> Vec<Change> {
    let root = new
        .get("title")
        .or_else(|| old.get("title"))
        .and_then(Value::as_str)
        .unwrap_or("$")
        .to_owned();
    let mut cx = Differ {
        old_root: old,
        new_root: new,
        seen: HashSet::new(),
        changes: Vec::new(),
    };
    cx.node(old, new, &root);
    cx.changes
}

struct Differ<'a> {
    old_root: &'a Value,
    new_root: &'a Value,
    seen: HashSet<(String, String)>,
    changes: Vec<Change>,
}

impl<'a> Differ<'a> {
    fn push(
        &mut self,
        path: &str,
        description: impl Into<String>,
        compatibility: Compatibility,
        fix: Option<String>,
    ) {
        self.changes.push(Change {
            path: path.to_owned(),
            description: description.into(),
            compatibility,
            fix,
        });
    }

    fn breaking(&mut self, path: &str, description: impl Into<String>) {
        self.push(path, description, Compatibility::Breaking, None);
    }

    /// A breaking change that `fix` (an attribute) makes compatible.
    fn breaking_fixable(&mut self, path: &str, description: impl Into<String>, fix: String) {
        self.push(path, description, Compatibility::Breaking, Some(fix));
    }

    fn compatible(&mut self, path: &str, description: impl Into<String>) {
        self.push(path, description, Compatibility::Compatible, None);
    }

    /// Follows `$ref`s into the root's `$defs`.
    fn resolve<'b>(root: &'b Value, mut v: &'b Value) -> (&'b Value, Option<String>) {
        let mut name = None;
        for _ in 0..32 {
            let Some(reference) = v.get("$ref").and_then(Value::as_str) else {
                break;
            };
            name = Some(reference.to_owned());
            v = if reference == "#" {
                root
            } else {
                let key = reference.rsplit('/').next().unwrap_or_default();
                let key = key.replace("~1", "/").replace("~0", "~");
                match root.get("$defs").and_then(|d| d.get(&key)) {
                    Some(def) => def,
                    None => break,
                }
            };
        }
        (v, name)
    }

    fn node<'b>(&mut self, old: &'b Value, new: &'b Value, path: &str)
    where
        'a: 'b,
    {
        let (old, old_ref) = Self::resolve(self.old_root, old);
        let (new, new_ref) = Self::resolve(self.new_root, new);
        if let (Some(a), Some(b)) = (&old_ref, &new_ref)
            && !self.seen.insert((a.clone(), b.clone()))
        {
            return; // a recursive type, already compared on this path
        }
        if canonical_json(old) == canonical_json(new) {
            return;
        }
        if let (Some(o), Some(n)) = (old.as_object(), new.as_object()) {
            for (description, compatibility) in bounds::changes(o, n) {
                self.push(path, description, compatibility, None);
            }
        }
        match (shape(old), shape(new)) {
            (Shape::Nullable(o), Shape::Nullable(n)) => self.node(o, n, path),
            (Shape::Nullable(_), _) => self.breaking(
                path,
                format!(
                    "{} -> {}: stored nulls no longer decode",
                    describe(old),
                    describe(new)
                ),
            ),
            (_, Shape::Nullable(n)) => {
                self.compatible(path, format!("{} -> {}", describe(old), describe(new)));
                self.node(old, n, path);
            }
            (Shape::Object(o), Shape::Object(n)) => self.object(o, n, path),
            (Shape::TaggedMap(ot, ov), Shape::TaggedMap(nt, nv)) if ot == nt => {
                self.tagged_maps(ot, &ov, &nv, path)
            }
            (Shape::TaggedMap(ot, _), Shape::TaggedMap(nt, _)) => {
                self.breaking(path, format!("tag field `{ot}` -> `{nt}`"))
            }
            (Shape::TaggedArray(ov), Shape::TaggedArray(nv)) => self.tagged_arrays(&ov, &nv, path),
            (Shape::Enum(o), Shape::Enum(n)) => self.enums(o, n, new.get(VALUE_ALIASES), path),
            (Shape::Map(o), Shape::Map(n)) => self.node(o, n, &format!("{path}.*")),
            (Shape::Array(o), Shape::Array(n)) => self.array(o, n, path),
            (Shape::Scalar(ot, o), Shape::Scalar(nt, n)) => self.scalar(ot, o, nt, n, path),
            (Shape::Untagged(o), Shape::Untagged(n)) => self.untagged(o, n, path),
            (_, Shape::Any) => self.compatible(path, format!("{} -> any value", describe(old))),
            _ => self.breaking(path, format!("{} -> {}", describe(old), describe(new))),
        }
    }

    /// Tagged map unions with the same tag field: variants by tag value.
    fn tagged_maps<'b>(&mut self, tag: &str, old: &[&'b Value], new: &[&'b Value], path: &str)
    where
        'a: 'b,
    {
        self.tagged(
            old,
            new,
            path,
            |v| v.get("properties")?.get(tag)?.get("const").cloned(),
            |v| v.get("properties").and_then(|p| p.get(tag)),
            |v| {
                let mut v = v.clone();
                if let Some(Value::Object(props)) = v.get_mut("properties") {
                    props.remove(tag);
                }
                v
            },
        )
    }

    /// `array_like` unions: variants by the tag in their first element.
    fn tagged_arrays<'b>(&mut self, old: &[&'b Value], new: &[&'b Value], path: &str)
    where
        'a: 'b,
    {
        self.tagged(
            old,
            new,
            path,
            |v| v.get("prefixItems")?.get(0)?.get("const").cloned(),
            |v| v.get("prefixItems").and_then(|p| p.get(0)),
            |v| {
                let mut v = v.clone();
                if let Some(Value::Array(items)) = v.get_mut("prefixItems")
                    && !items.is_empty()
                {
                    items[0] = Value::Bool(true);
                }
                v
            },
        )
    }

    /// Unit-only enums: a removed value is breaking, an added one
    /// compatible, and one renamed with its old name as an alias compatible.
    fn enums(&mut self, old: &[Value], new: &[Value], aliases: Option<&Value>, path: &str) {
        // The new value that lists `value` among its former names.
        let renamed_to = |value: &Value| {
            new.iter().find(|n| {
                aliases
                    .and_then(|a| a.get(enum_value_key(n)))
                    .and_then(Value::as_array)
                    .is_some_and(|names| {
                        names
                            .iter()
                            .any(|name| *name == Value::String(enum_value_key(value)))
                    })
            })
        };
        let mut renamed = Vec::new();
        for value in old.iter().filter(|v| !new.contains(v)) {
            match renamed_to(value) {
                Some(to) => {
                    renamed.push(to);
                    self.compatible(path, format!("value {value} renamed to {to} (an alias)"));
                }
                None => self.breaking(path, format!("value {value} removed")),
            }
        }
        for value in new
            .iter()
            .filter(|v| !old.contains(v) && !renamed.contains(v))
        {
            self.compatible(path, format!("value {value} added"));
        }
    }

    /// Untagged unions: every old variant must still be there, unchanged.
    fn untagged(&mut self, old: &[Value], new: &[Value], path: &str) {
        let new_forms: Vec<String> = new.iter().map(canonical_json).collect();
        for variant in old {
            if !new_forms.contains(&canonical_json(variant)) {
                self.breaking(
                    path,
                    format!("untagged variant {} changed or removed", describe(variant)),
                );
            }
        }
        if new.len() > old.len() {
            self.compatible(path, "untagged variant added");
        }
    }

    fn object<'b>(&mut self, old: &'b Map<String, Value>, new: &'b Map<String, Value>, path: &str)
    where
        'a: 'b,
    {
        let empty = Map::new();
        let old_props = old
            .get("properties")
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        let new_props = new
            .get("properties")
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        let old_required = string_list(old.get("required"));
        let new_required = string_list(new.get("required"));
        let closed = new.get("additionalProperties") == Some(&Value::Bool(false));
        let mut matched_old: HashSet<&str> = HashSet::new();
        for (name, new_schema) in new_props {
            let field = format!("{path}.{name}");
            let (old_name, old_schema) = match old_props.get(name) {
                Some(s) => (name.as_str(), s),
                None => match aliases(new_schema)
                    .into_iter()
                    .find_map(|a| old_props.get_key_value(a))
                {
                    Some((old_name, s)) => {
                        self.compatible(&field, format!("renamed from `{old_name}` (an alias)"));
                        (old_name.as_str(), s)
                    }
                    None => {
                        let required = new_required.contains(&name.as_str());
                        self.added_field(&field, name, new_schema, required, old_props, new_props);
                        continue;
                    }
                },
            };
            matched_old.insert(old_name);
            if new_required.contains(&name.as_str()) && !old_required.contains(&old_name) {
                self.breaking_fixable(
                    &field,
                    format!("field `{name}` lost its default"),
                    format!("give `{name}` its #[codec(default)] back"),
                );
            }
            self.node(old_schema, new_schema, &field);
        }
        for name in old_props
            .keys()
            .filter(|k| !matched_old.contains(k.as_str()))
        {
            let field = format!("{path}.{name}");
            if closed {
                self.breaking_fixable(
                    &field,
                    format!("field `{name}` removed, and the type denies unknown fields"),
                    "remove #[codec(deny_unknown_fields)], or keep the field".to_owned(),
                );
            } else {
                self.compatible(&field, format!("field `{name}` removed"));
            }
        }
    }

    /// A field the new schema has and the old one does not (nor under an
    /// alias): compatible with a default; else breaking, with a hint when a
    /// removed field of the same shape looks like its old name.
    fn added_field(
        &mut self,
        field: &str,
        name: &str,
        new_schema: &Value,
        required: bool,
        old_props: &Map<String, Value>,
        new_props: &Map<String, Value>,
    ) {
        if !required {
            self.compatible(field, format!("field `{name}` added with a default"));
            return;
        }
        // A removed field of the same shape: likely a rename.
        let renamed_from = old_props.iter().find(|(old_name, old_schema)| {
            !new_props.contains_key(*old_name)
                && canonical_json(old_schema) == canonical_json(new_schema)
        });
        let (hint, fix) = match renamed_from {
            Some((old_name, _)) => (
                format!("; if it is `{old_name}` renamed, add #[codec(alias = \"{old_name}\")]"),
                format!("add #[codec(alias = \"{old_name}\")] to `{name}` if it is `{old_name}` renamed, else give `{name}` a #[codec(default)]"),
            ),
            None => (
                String::new(),
                format!("give `{name}` a #[codec(default)]"),
            ),
        };
        self.breaking_fixable(
            field,
            format!("field `{name}` added without a default{hint}"),
            fix,
        );
    }

    fn tagged<'b>(
        &mut self,
        old: &[&'b Value],
        new: &[&'b Value],
        path: &str,
        tag_of: impl Fn(&Value) -> Option<Value>,
        tag_schema: impl Fn(&Value) -> Option<&Value>,
        strip_tag: impl Fn(&Value) -> Value,
    ) where
        'a: 'b,
    {
        let resolve_old: Vec<&Value> = old
            .iter()
            .map(|v| Self::resolve(self.old_root, v).0)
            .collect();
        let resolve_new: Vec<&Value> = new
            .iter()
            .map(|v| Self::resolve(self.new_root, v).0)
            .collect();
        let mut matched = HashSet::new();
        for o in &resolve_old {
            let Some(tag) = tag_of(o) else { continue };
            let label = tag
                .as_str()
                .map(str::to_owned)
                .unwrap_or_else(|| tag.to_string());
            let variant_path = format!("{path}<{label}>");
            let found = resolve_new.iter().enumerate().find(|(_, n)| {
                tag_of(n) == Some(tag.clone())
                    || tag_schema(n).is_some_and(|s| aliases(s).contains(&label.as_str()))
            });
            match found {
                Some((i, n)) => {
                    matched.insert(i);
                    if tag_of(n) != Some(tag.clone()) {
                        self.compatible(
                            &variant_path,
                            format!("variant `{label}` renamed (an alias)"),
                        );
                    }
                    let (o, n) = (strip_tag(o), strip_tag(n));
                    self.node(&o, &n, &variant_path);
                }
                None => self.breaking_fixable(
                    &variant_path,
                    format!("variant `{label}` removed"),
                    format!("keep the variant, or if another one replaces it, give that one #[codec(alias = \"{label}\")]"),
                ),
            }
        }
        for (i, n) in resolve_new.iter().enumerate() {
            if !matched.contains(&i)
                && let Some(tag) = tag_of(n)
            {
                let label = tag
                    .as_str()
                    .map(str::to_owned)
                    .unwrap_or_else(|| tag.to_string());
                self.compatible(
                    &format!("{path}<{label}>"),
                    format!("variant `{label}` added"),
                );
            }
        }
    }

    fn array<'b>(&mut self, old: &'b Map<String, Value>, new: &'b Map<String, Value>, path: &str)
    where
        'a: 'b,
    {
        let old_prefix = old.get("prefixItems").and_then(Value::as_array);
        let new_prefix = new.get("prefixItems").and_then(Value::as_array);
        match (old_prefix, new_prefix) {
            (Some(o), Some(n)) => {
                for (i, (os, ns)) in o.iter().zip(n).enumerate() {
                    self.node(os, ns, &format!("{path}[{i}]"));
                }
                let new_min = new.get("minItems").and_then(Value::as_u64).unwrap_or(0) as usize;
                for i in o.len()..n.len() {
                    if i < new_min {
                        self.breaking(&format!("{path}[{i}]"), "element added without a default");
                    } else {
                        self.compatible(&format!("{path}[{i}]"), "element added with a default");
                    }
                }
                if n.len() < o.len() {
                    if new.get("items") == Some(&Value::Bool(false)) {
                        self.breaking(path, format!("{} elements -> {}", o.len(), n.len()));
                    } else {
                        self.compatible(
                            path,
                            format!("trailing elements removed ({} -> {})", o.len(), n.len()),
                        );
                    }
                }
            }
            (None, None) => {
                if let (Some(o), Some(n)) = (old.get("items"), new.get("items")) {
                    self.node(o, n, &format!("{path}[]"));
                }
                for key in ["uniqueItems"] {
                    if old.get(key) != new.get(key) {
                        self.breaking(path, format!("`{key}` changed"));
                    }
                }
            }
            _ => self.breaking(path, "sequence -> fixed array, or the reverse"),
        }
    }

    fn scalar(
        &mut self,
        old_ty: &str,
        old: &Map<String, Value>,
        new_ty: &str,
        new: &Map<String, Value>,
        path: &str,
    ) {
        if old_ty != new_ty {
            if old_ty == "integer" && new_ty == "number" {
                self.compatible(path, "integer -> number");
            } else {
                self.breaking(path, format!("{old_ty} -> {new_ty}"));
            }
            return;
        }
        let bound = |m: &Map<String, Value>, k: &str| m.get(k).and_then(Value::as_f64);
        let (old_min, new_min) = (bound(old, "minimum"), bound(new, "minimum"));
        let (old_max, new_max) = (bound(old, "maximum"), bound(new, "maximum"));
        let narrower = matches!((old_min, new_min), (None, Some(_)))
            || matches!((old_min, new_min), (Some(o), Some(n)) if n > o)
            || matches!((old_max, new_max), (None, Some(_)))
            || matches!((old_max, new_max), (Some(o), Some(n)) if n < o);
        if narrower {
            self.breaking(
                path,
                format!(
                    "range narrowed: {} -> {}",
                    range(old_min, old_max),
                    range(new_min, new_max)
                ),
            );
        } else if (old_min, old_max) != (new_min, new_max) {
            self.compatible(
                path,
                format!(
                    "range widened: {} -> {}",
                    range(old_min, old_max),
                    range(new_min, new_max)
                ),
            );
        }
        for key in ["format", "contentEncoding", "not"] {
            if old.get(key) != new.get(key) {
                self.breaking(
                    path,
                    format!(
                        "{} -> {}",
                        describe_map(old_ty, old),
                        describe_map(new_ty, new)
                    ),
                );
                return;
            }
        }
    }
}

fn range(min: Option<f64>, max: Option<f64>) -> String {
    let show = |v: Option<f64>| v.map_or_else(|| "..".to_owned(), |v| format!("{v}"));
    format!("[{}, {}]", show(min), show(max))
}
