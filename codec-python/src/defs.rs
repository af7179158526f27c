//! The definitions of a module: their shapes, the references between them,
//! the order Python needs them in, and their class names.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde_json::{Map, Value};

use super::names::{class_name, pascal_case};
use super::Error;

/// Where in a type an error is: the type's wire name, and the field.
pub(super) struct At<'a> {
    pub(super) ty: &'a str,
    pub(super) field: Option<&'a str>,
}

impl At<'_> {
    pub(super) fn error(&self, what: impl std::fmt::Display) -> Error {
        let message = match self.field {
            Some(field) => format!("`{}`, field `{field}`: {what}", self.ty),
            None => format!("`{}`: {what}", self.ty),
        };
        Error::new(message)
    }
}

/// How a definition is written.
pub(super) enum Shape<'a> {
    /// A `msgspec.Struct` with fields from an object's properties.
    Struct(&'a Map<String, Value>),
    /// A `msgspec.Struct` with `array_like=True`, fields by position.
    ArrayLike(&'a Map<String, Value>),
    /// Tagged Structs, one per variant, and their union.
    Union(&'a [Value]),
    /// `Name = <annotation>`.
    Alias(&'a Value),
}

pub(super) fn shape_of<'a>(schema: &'a Value) -> Shape<'a> {
    let obj = schema.as_object();
    let get = |key: &str| obj.and_then(|o| o.get(key));
    if let Some(Value::Array(variants)) = get("oneOf") {
        return Shape::Union(variants);
    }
    match (get("type").and_then(Value::as_str), obj) {
        (Some("object"), Some(o)) if o.contains_key("properties") => Shape::Struct(o),
        (Some("array"), Some(o)) if o.contains_key("prefixItems") => Shape::ArrayLike(o),
        _ => Shape::Alias(schema),
    }
}

/// The `$defs` names a schema references, in order of appearance.
pub(super) fn references<'a>(schema: &'a Value, out: &mut Vec<&'a str>) {
    match schema {
        Value::Object(map) => {
            for (key, value) in map {
                if key == "$ref" {
                    if let Some(r) = value.as_str() {
                        out.push(r);
                    }
                } else {
                    references(value, out);
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|i| references(i, out)),
        _ => {}
    }
}

/// The definition a `$ref` points to (`#/$defs/<name>`, JSON Pointer escapes
/// undone).
pub(super) fn ref_name(reference: &str) -> Option<String> {
    let name = reference.strip_prefix("#/$defs/")?;
    Some(percent_decode(name).replace("~1", "/").replace("~0", "~"))
}

pub(super) fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok());
        match (bytes[i], hex.and_then(|h| u8::from_str_radix(h, 16).ok())) {
            (b'%', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Definitions ordered so that each comes after what it needs at import
/// time: depth first from the roots, then aliases moved after the types they
/// name. A Struct's fields may name a later type (its annotation is then a
/// string, resolved on first use); an alias may not, so of aliases that
/// name each other (a type recursive through unions and collections only),
/// the first is placed before the others, and names them as it can (see
/// `render`).
pub(super) fn dependency_order(
    defs: &BTreeMap<String, Value>,
    roots: &[String],
) -> Result<Vec<String>, Error> {
    fn targets(name: &str, schema: &Value) -> Result<Vec<String>, Error> {
        let mut refs = Vec::new();
        references(schema, &mut refs);
        refs.into_iter()
            .map(|r| {
                ref_name(r).ok_or_else(|| {
                    Error::new(format!("`{name}`: reference `{r}` is not into `$defs`"))
                })
            })
            .collect()
    }
    fn visit(
        name: &str,
        defs: &BTreeMap<String, Value>,
        seen: &mut BTreeSet<String>,
        order: &mut Vec<String>,
    ) -> Result<(), Error> {
        if !seen.insert(name.to_owned()) {
            return Ok(());
        }
        let schema = defs.get(name).ok_or_else(|| {
            Error::new(format!(
                "`{name}` is referenced but has no definition in the schema"
            ))
        })?;
        for target in targets(name, schema)? {
            visit(&target, defs, seen, order)?;
        }
        order.push(name.to_owned());
        Ok(())
    }
    let mut seen = BTreeSet::new();
    let mut preferred = Vec::new();
    for root in roots {
        visit(root, defs, &mut seen, &mut preferred)?;
    }
    let mut needs: HashMap<&str, Vec<String>> = HashMap::new();
    for name in &preferred {
        let schema = &defs[name];
        if matches!(shape_of(schema), Shape::Alias(_)) {
            needs.insert(name, targets(name, schema)?);
        }
    }
    let mut order: Vec<String> = Vec::new();
    let mut placed: BTreeSet<&str> = BTreeSet::new();
    while order.len() < preferred.len() {
        let ready = preferred.iter().find(|n| {
            !placed.contains(n.as_str())
                && needs
                    .get(n.as_str())
                    .is_none_or(|t| t.iter().all(|t| placed.contains(t.as_str())))
        });
        // Aliases that wait for each other: the first goes first.
        let next = ready.or_else(|| preferred.iter().find(|n| !placed.contains(n.as_str())));
        let Some(next) = next else { break };
        placed.insert(next);
        order.push(next.clone());
    }
    Ok(order)
}

/// The Python names of definitions and of their variant classes, checked
/// for clashes.
pub(super) struct Names {
    pub(super) classes: HashMap<String, String>,
    pub(super) variants: HashMap<(String, usize), String>,
}

/// Names the generated module uses itself, which a class may not take.
pub(super) const RESERVED: &[&str] = &[
    "datetime",
    "decimal",
    "importlib",
    "typing",
    "uuid",
    "msgspec",
    "int",
    "float",
    "str",
    "bytes",
    "bool",
    "list",
    "dict",
    "set",
    "tuple",
    "None",
    "object",
    "type",
];

impl Names {
    pub(super) fn assign(defs: &BTreeMap<String, Value>, order: &[String]) -> Result<Names, Error> {
        let mut taken: HashMap<String, String> = HashMap::new();
        let mut classes = HashMap::new();
        for name in order {
            let class = class_name(name);
            if RESERVED.contains(&class.as_str()) {
                return Err(Error::new(format!(
                    "`{name}` would be the Python class `{class}`, a name the module needs; give the type another #[codec(name = \"...\")]"
                )));
            }
            if let Some(other) = taken.insert(class.clone(), name.clone()) {
                return Err(Error::new(format!(
                    "`{other}` and `{name}` would both be the Python class `{class}`; give one another #[codec(name = \"...\")]"
                )));
            }
            classes.insert(name.clone(), class);
        }
        let mut variants = HashMap::new();
        for name in order {
            let Shape::Union(list) = shape_of(&defs[name]) else {
                continue;
            };
            let union = &classes[name];
            for (i, variant) in list.iter().enumerate() {
                let at = At {
                    ty: name,
                    field: None,
                };
                let tag = variant_tag(variant, &at)?.1;
                let base = match &tag {
                    Value::String(s) => pascal_case(s),
                    other => format!("{union}{other}"),
                };
                let mut class = base.clone();
                if class.is_empty()
                    || RESERVED.contains(&class.as_str())
                    || taken.contains_key(&class)
                    || !class.starts_with(|c: char| c.is_ascii_alphabetic())
                {
                    class = format!("{union}{base}");
                }
                if let Some(other) = taken.insert(class.clone(), name.clone()) {
                    return Err(Error::new(format!(
                        "a variant of `{name}` and `{other}` would both be the Python class `{class}`; rename the variant"
                    )));
                }
                variants.insert((name.clone(), i), class);
            }
        }
        Ok(Names { classes, variants })
    }
}

/// A variant's tag field and tag: `{"properties": {"type": {"const": "A"}}}`
/// in a map union (the first property), or the first element of an
/// `array_like` one (no tag field).
pub(super) fn variant_tag<'a>(
    variant: &'a Value,
    at: &At<'_>,
) -> Result<(Option<&'a str>, Value), Error> {
    let constant = |v: Option<&'a Value>| v.and_then(|v| v.get("const")).cloned();
    if let Some(first) = variant.get("prefixItems").and_then(|p| p.get(0))
        && let Some(tag) = constant(Some(first))
    {
        return Ok((None, tag));
    }
    let tag_field = variant
        .get("required")
        .and_then(|r| r.get(0))
        .and_then(Value::as_str);
    if let Some(field) = tag_field
        && let Some(tag) = constant(variant.get("properties").and_then(|p| p.get(field)))
    {
        return Ok((Some(field), tag));
    }
    Err(at.error("a variant of a tagged union without a constant tag"))
}
