//! One random change to a root schema, at any depth: inside `$defs` types,
//! inside the payloads of `Vec`, `Option`, maps and variants. Each change
//! knows whether it changes the wire shape and which part of the old schema
//! an old value must go through to notice it (`target`).

use serde_json::{json, Map, Value};

use super::shapes::{integer, IntKind, FIELD_NAMES, PATTERNS, VARIANT_NAMES};

/// A path into a schema document, one JSON Pointer token per segment.
pub type Path = Vec<String>;

/// What was changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    ChangeType,
    IntRange,
    AddField,
    RemoveField,
    ToggleRequired,
    RenameField,
    WrapOption,
    UnwrapOption,
    AddEnumValue,
    RemoveEnumValue,
    AddVariant,
    RemoveVariant,
    RenameVariant,
    AddUntagged,
    RemoveUntagged,
    StringLimit,
    NumberLimit,
    ToggleUnique,
    FixedLength,
    MapKeys,
    BytesString,
    RenameDef,
    Annotate,
    Reorder,
}

impl Op {
    pub const ALL: [Op; 24] = [
        Op::ChangeType,
        Op::IntRange,
        Op::AddField,
        Op::RemoveField,
        Op::ToggleRequired,
        Op::RenameField,
        Op::WrapOption,
        Op::UnwrapOption,
        Op::AddEnumValue,
        Op::RemoveEnumValue,
        Op::AddVariant,
        Op::RemoveVariant,
        Op::RenameVariant,
        Op::AddUntagged,
        Op::RemoveUntagged,
        Op::StringLimit,
        Op::NumberLimit,
        Op::ToggleUnique,
        Op::FixedLength,
        Op::MapKeys,
        Op::BytesString,
        Op::RenameDef,
        Op::Annotate,
        Op::Reorder,
    ];

    /// Whether the change leaves the wire shape as it was.
    pub fn keeps_wire_shape(self) -> bool {
        matches!(self, Op::RenameDef | Op::Annotate | Op::Reorder)
    }
}

/// A schema changed once.
#[derive(Clone, Debug)]
pub struct Mutation {
    pub op: Op,
    pub new: Value,
    /// The change in words, with where.
    pub what: String,
    /// The part of the old schema that old values must go through to meet
    /// the change.
    pub target: Path,
}

/// A schema node and what it is to its parent.
struct Site {
    path: Path,
    /// A value position (a field, an element, an item, a map value, an
    /// `Option`'s or an untagged variant's payload), not a type's own body
    /// nor a tag.
    value: bool,
}

/// Every schema node of `root`, the root's own first.
fn sites(root: &Value) -> Vec<Site> {
    let mut out = Vec::new();
    walk(root, Vec::new(), false, &mut out);
    if let Some(Value::Object(defs)) = root.get("$defs") {
        for (name, def) in defs {
            walk(def, vec!["$defs".into(), name.clone()], false, &mut out);
        }
    }
    out
}

fn walk(node: &Value, path: Path, value: bool, out: &mut Vec<Site>) {
    let Some(obj) = node.as_object() else { return };
    out.push(Site {
        path: path.clone(),
        value,
    });
    let at = |keys: &[&str]| {
        let mut p = path.clone();
        p.extend(keys.iter().map(|k| (*k).to_owned()));
        p
    };
    if let Some(Value::Object(props)) = obj.get("properties") {
        for (name, schema) in props {
            let is_tag = schema.get("const").is_some();
            walk(schema, at(&["properties", name]), !is_tag, out);
        }
    }
    if let Some(items) = obj.get("items").filter(|i| i.is_object()) {
        walk(items, at(&["items"]), true, out);
    }
    if let Some(Value::Array(items)) = obj.get("prefixItems") {
        for (i, item) in items.iter().enumerate() {
            let is_tag = item.get("const").is_some();
            walk(item, at(&["prefixItems", &i.to_string()]), !is_tag, out);
        }
    }
    if let Some(values) = obj.get("additionalProperties").filter(|v| v.is_object()) {
        walk(values, at(&["additionalProperties"]), true, out);
    }
    if let Some(Value::Array(variants)) = obj.get("anyOf") {
        for (i, v) in variants.iter().enumerate() {
            if v.get("type") != Some(&json!("null")) {
                walk(v, at(&["anyOf", &i.to_string()]), true, out);
            }
        }
    }
    if let Some(Value::Array(variants)) = obj.get("oneOf") {
        for (i, v) in variants.iter().enumerate() {
            walk(v, at(&["oneOf", &i.to_string()]), false, out);
        }
    }
}

pub fn pointer(path: &[String]) -> String {
    path.iter()
        .map(|s| format!("/{}", s.replace('~', "~0").replace('/', "~1")))
        .collect()
}

fn tag_field(node: &Value) -> Option<&str> {
    node.get("discriminator")?.get("propertyName")?.as_str()
}

fn is_nullable(node: &Value) -> bool {
    node.get("anyOf")
        .and_then(Value::as_array)
        .is_some_and(|a| a.len() == 2 && a.iter().any(|s| s.get("type") == Some(&json!("null"))))
}

/// A tiny deterministic random source for the choices of one mutation.
pub struct Dice(u64);

impl Dice {
    pub fn new(seed: u64) -> Dice {
        Dice(seed)
    }

    pub fn next(&mut self) -> u64 {
        // splitmix64
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }

    pub fn chance(&mut self, one_in: u64) -> bool {
        self.next().is_multiple_of(one_in)
    }

    pub fn pick<'t, T>(&mut self, items: &'t [T]) -> &'t T {
        &items[self.below(items.len())]
    }
}

/// Applies the first change that fits, trying from the `op`-th kind of
/// change at the `site`-th node on: every schema has some change that fits.
pub fn mutate(old: &Value, op: usize, site: usize, seed: u64) -> Mutation {
    let sites = sites(old);
    for o in 0..Op::ALL.len() {
        let op = Op::ALL[(op + o) % Op::ALL.len()];
        for s in 0..sites.len() {
            let site = &sites[(site + s) % sites.len()];
            let mut dice = Dice::new(seed);
            if let Some(m) = apply(old, op, site, &mut dice) {
                return m;
            }
        }
    }
    unreachable!("an annotation fits every schema")
}

fn apply(old: &Value, op: Op, site: &Site, dice: &mut Dice) -> Option<Mutation> {
    let mut new = old.clone();
    let node = new.pointer_mut(&pointer(&site.path))?;
    let here = pointer(&site.path);
    let mut target = site.path.clone();
    let what = match op {
        Op::ChangeType => {
            if !site.value || site.path.is_empty() {
                return None;
            }
            let current = node
                .get("type")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned();
            let kinds: Vec<&str> = ["integer", "string", "number", "boolean"]
                .into_iter()
                .filter(|k| *k != current)
                .collect();
            let kind = *dice.pick(&kinds);
            // `integer -> number` is the widening codec allows; keep the
            // change a change of kind otherwise.
            *node = match kind {
                "integer" => integer(i64::MIN.into(), i64::MAX.into()),
                k => json!({ "type": k }),
            };
            format!("{here}: {current} -> {kind}")
        }
        Op::IntRange => {
            if node.get("type") != Some(&json!("integer")) {
                return None;
            }
            let (min, max) = (bound(node, "minimum"), bound(node, "maximum"));
            let (new_min, new_max) = match dice.below(3) {
                0 => IntKind::ALL[dice.below(IntKind::ALL.len())].range(),
                1 => (min.map_or(-1000, |m| m + 1), max.unwrap_or(i128::MAX)),
                _ => (min.unwrap_or(i128::MIN), max.map_or(1000, |m| m - 1)),
            };
            let replacement = integer(new_min, new_max);
            let mut replacement = replacement.as_object().cloned().unwrap_or_default();
            for (k, v) in node.as_object()? {
                if !["type", "minimum", "maximum"].contains(&k.as_str()) {
                    replacement.insert(k.clone(), v.clone());
                }
            }
            let replacement = Value::Object(replacement);
            if replacement == *node {
                return None;
            }
            let text = format!(
                "{here}: {} -> {}",
                range_text(node),
                range_text(&replacement)
            );
            *node = replacement;
            text
        }
        Op::AddField | Op::RemoveField | Op::ToggleRequired | Op::RenameField | Op::Reorder => {
            return object_change(old, new, op, site, dice);
        }
        Op::WrapOption => {
            if !site.value
                || is_nullable(node)
                || site.path.last().is_some_and(|l| l == "0")
                    && site.path.iter().rev().nth(1).is_some_and(|p| p == "anyOf")
            {
                return None;
            }
            let inner = strip_field_annotations(node);
            let mut wrapped = json!({"anyOf": [inner, {"type": "null"}]});
            copy_field_annotations(node, &mut wrapped);
            *node = wrapped;
            format!("{here}: T -> Option<T>")
        }
        Op::UnwrapOption => {
            if !is_nullable(node) {
                return None;
            }
            let inner = node["anyOf"]
                .as_array()?
                .iter()
                .find(|s| s.get("type") != Some(&json!("null")))?
                .clone();
            // `Option<Box<Self>>` unwrapped would have no finite value.
            if inner.get("$ref") == Some(&json!("#")) {
                return None;
            }
            let mut unwrapped = inner;
            copy_field_annotations(node, &mut unwrapped);
            if let Some(obj) = unwrapped.as_object_mut() {
                obj.remove("default");
            }
            *node = unwrapped;
            format!("{here}: Option<T> -> T")
        }
        Op::AddEnumValue | Op::RemoveEnumValue => {
            let values = node.get_mut("enum")?.as_array_mut()?;
            if op == Op::AddEnumValue {
                let fresh: Vec<&str> = VARIANT_NAMES
                    .iter()
                    .copied()
                    .filter(|n| !values.contains(&json!(n)))
                    .collect();
                let value = *dice.pick(&fresh);
                values.push(value.into());
                format!("{here}: enum value {value:?} added")
            } else {
                if values.len() < 2 {
                    return None;
                }
                let removed = values.remove(dice.below(values.len()));
                format!("{here}: enum value {removed} removed")
            }
        }
        Op::AddVariant | Op::RemoveVariant | Op::RenameVariant => {
            return variant_change(new, op, site, dice);
        }
        Op::AddUntagged | Op::RemoveUntagged => {
            if node.get("oneOf").is_some() || is_nullable(node) {
                return None;
            }
            let variants = node.get_mut("anyOf")?.as_array_mut()?;
            let kind_of = |v: &Value| {
                v.get("type")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_owned()
            };
            if op == Op::AddUntagged {
                let present: Vec<String> = variants.iter().map(kind_of).collect();
                let fresh: Vec<&str> = ["integer", "number", "string", "boolean"]
                    .into_iter()
                    .filter(|k| !present.iter().any(|p| p == k))
                    .collect();
                if fresh.is_empty() {
                    return None;
                }
                let kind = *dice.pick(&fresh);
                variants.push(json!({ "type": kind }));
                format!("{here}: untagged variant {kind} added")
            } else {
                let non_null = variants.iter().filter(|v| kind_of(v) != "null").count();
                if variants.len() < 3 || non_null < 2 {
                    return None;
                }
                let i = dice.below(variants.len());
                if kind_of(&variants[i]) == "null" && non_null < 2 {
                    return None;
                }
                let removed = variants.remove(i);
                target.extend(["anyOf".to_owned(), i.to_string()]);
                format!("{here}: untagged variant {removed} removed")
            }
        }
        Op::StringLimit => {
            if node.get("type") != Some(&json!("string")) || node.get("contentEncoding").is_some() {
                return None;
            }
            let obj = node.as_object_mut()?;
            let (key, value) = match dice.below(3) {
                0 => ("maxLength", json!(dice.below(6) + 1)),
                1 => ("minLength", json!(dice.below(3))),
                _ => ("pattern", json!(PATTERNS[dice.below(PATTERNS.len())].0)),
            };
            let before = obj.get(key).cloned();
            if before.is_some() && dice.chance(3) {
                obj.remove(key);
            } else {
                obj.insert(key.into(), value);
            }
            let after = obj.get(key).cloned();
            if before == after || !lengths_consistent(obj) {
                return None;
            }
            format!("{here}: `{key}` {} -> {}", show(&before), show(&after))
        }
        Op::NumberLimit => {
            let ty = node.get("type").and_then(Value::as_str)?.to_owned();
            let obj = node.as_object_mut()?;
            let (key, value) = match ty.as_str() {
                "integer" => ("multipleOf", json!([2, 3, 4][dice.below(3)])),
                "number" if dice.chance(2) => {
                    ("exclusiveMinimum", json!([0, -1, 1][dice.below(3)]))
                }
                "number" => ("exclusiveMaximum", json!([0, 10, 100][dice.below(3)])),
                _ => return None,
            };
            let before = obj.get(key).cloned();
            if before.is_some() && dice.chance(2) {
                obj.remove(key);
            } else {
                obj.insert(key.into(), value);
            }
            let after = obj.get(key).cloned();
            if before == after {
                return None;
            }
            format!("{here}: `{key}` {} -> {}", show(&before), show(&after))
        }
        Op::ToggleUnique => {
            if node.get("type") != Some(&json!("array")) || !node.get("items")?.is_object() {
                return None;
            }
            let obj = node.as_object_mut()?;
            if obj.remove("uniqueItems").is_some() {
                format!("{here}: set -> sequence")
            } else {
                obj.insert("uniqueItems".into(), true.into());
                format!("{here}: sequence -> set")
            }
        }
        Op::FixedLength => {
            if node.get("prefixItems").is_some() || node.get("type") != Some(&json!("array")) {
                return None;
            }
            let obj = node.as_object_mut()?;
            let before = obj.get("maxItems").cloned();
            match before.as_ref().and_then(Value::as_u64) {
                Some(n) if dice.chance(2) => {
                    obj.remove("minItems");
                    obj.remove("maxItems");
                    format!("{here}: [T; {n}] -> Vec<T>")
                }
                n => {
                    let len = (n.unwrap_or(0) + 1 + dice.below(2) as u64).max(1);
                    obj.insert("minItems".into(), len.into());
                    obj.insert("maxItems".into(), len.into());
                    format!("{here}: length {} -> {len}", show(&before))
                }
            }
        }
        Op::MapKeys => {
            if node.get("type") != Some(&json!("object"))
                || !node.get("additionalProperties")?.is_object()
            {
                return None;
            }
            let obj = node.as_object_mut()?;
            if obj.remove("propertyNames").is_some() {
                format!("{here}: integer keys -> string keys")
            } else {
                obj.insert("propertyNames".into(), json!({"pattern": "^-?[0-9]+$"}));
                format!("{here}: string keys -> integer keys")
            }
        }
        Op::BytesString => {
            if node.get("type") != Some(&json!("string")) {
                return None;
            }
            let obj = node.as_object_mut()?;
            if obj.remove("contentEncoding").is_some() {
                format!("{here}: bytes -> string")
            } else {
                for k in ["minLength", "maxLength", "pattern"] {
                    obj.remove(k);
                }
                obj.insert("contentEncoding".into(), "base64".into());
                format!("{here}: string -> bytes")
            }
        }
        Op::RenameDef => {
            if site.path.len() != 2 || site.path[0] != "$defs" {
                return None;
            }
            let from = site.path[1].clone();
            let to = format!("{from}.v{}", dice.below(90) + 2);
            rename_def(&mut new, &from, &to);
            format!("$defs key `{from}` renamed `{to}`")
        }
        Op::Annotate => {
            let obj = node.as_object_mut()?;
            let (key, value) = match dice.below(4) {
                0 => ("description", json!("Changed words.")),
                1 => ("title", json!("Another title")),
                2 => ("default", json!(null)),
                _ => ("examples", json!([1, "x"])),
            };
            if obj.get(key) == Some(&value) {
                return None;
            }
            obj.insert(key.into(), value.clone());
            format!("{here}: annotation `{key}` = {value}")
        }
    };
    if old == &new {
        return None;
    }
    Some(Mutation {
        op,
        new,
        what,
        target,
    })
}

fn lengths_consistent(obj: &Map<String, Value>) -> bool {
    let min = obj.get("minLength").and_then(Value::as_u64).unwrap_or(0);
    obj.get("maxLength")
        .and_then(Value::as_u64)
        .is_none_or(|max| min <= max)
}

fn show(v: &Option<Value>) -> String {
    v.as_ref()
        .map_or_else(|| "none".to_owned(), ToString::to_string)
}

pub fn bound(node: &Value, key: &str) -> Option<i128> {
    let v = node.get(key)?;
    v.as_i64()
        .map(i128::from)
        .or_else(|| v.as_u64().map(i128::from))
}

fn range_text(node: &Value) -> String {
    let show = |b: Option<i128>| b.map_or_else(|| "..".to_owned(), |b| b.to_string());
    format!(
        "[{}, {}]",
        show(bound(node, "minimum")),
        show(bound(node, "maximum"))
    )
}

/// The annotations a field's schema carries for its field, which stay on
/// the field when its type is wrapped or unwrapped.
const FIELD_ANNOTATIONS: &[&str] = &["x-codec-aliases", "description"];

fn strip_field_annotations(node: &Value) -> Value {
    let mut inner = node.clone();
    if let Some(obj) = inner.as_object_mut() {
        for k in FIELD_ANNOTATIONS {
            obj.remove(*k);
        }
        obj.remove("default");
    }
    inner
}

fn copy_field_annotations(from: &Value, to: &mut Value) {
    for k in FIELD_ANNOTATIONS {
        if let (Some(v), Some(obj)) = (from.get(*k), to.as_object_mut()) {
            obj.insert((*k).into(), v.clone());
        }
    }
}

fn rename_def(schema: &mut Value, from: &str, to: &str) {
    if let Some(Value::Object(defs)) = schema.get_mut("$defs")
        && let Some(def) = defs.remove(from)
    {
        defs.insert(to.to_owned(), def);
    }
    let (old_ref, new_ref) = (format!("#/$defs/{from}"), format!("#/$defs/{to}"));
    fn visit(v: &mut Value, old_ref: &str, new_ref: &str) {
        match v {
            Value::Object(obj) => {
                for (k, child) in obj.iter_mut() {
                    if k == "$ref" && child == old_ref {
                        *child = new_ref.into();
                    } else {
                        visit(child, old_ref, new_ref);
                    }
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|i| visit(i, old_ref, new_ref)),
            _ => {}
        }
    }
    visit(schema, &old_ref, &new_ref);
}

/// The tag field of the tagged union whose variant `site` is, if it is one.
fn variant_tag<'v>(root: &'v Value, site: &Site) -> Option<&'v str> {
    let n = site.path.len();
    if n >= 2 && site.path[n - 2] == "oneOf" {
        tag_field(root.pointer(&pointer(&site.path[..n - 2]))?)
    } else {
        None
    }
}

fn object_change(
    old: &Value,
    mut new: Value,
    op: Op,
    site: &Site,
    dice: &mut Dice,
) -> Option<Mutation> {
    let tag = variant_tag(old, site);
    let here = pointer(&site.path);
    let node = new.pointer_mut(&here)?.as_object_mut()?;
    if node.get("type") != Some(&json!("object")) {
        return None;
    }
    let props = node.get("properties")?.as_object()?.clone();
    let mut required: Vec<String> = node
        .get("required")
        .and_then(Value::as_array)
        .map(|r| {
            r.iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    let fields: Vec<&String> = props.keys().filter(|k| Some(k.as_str()) != tag).collect();
    let fresh: Vec<&str> = FIELD_NAMES
        .iter()
        .copied()
        .filter(|n| !props.contains_key(*n) && Some(*n) != tag)
        .collect();
    let mut props = props.clone();
    let mut target = site.path.clone();
    let what = match op {
        Op::AddField => {
            let name = *dice.pick(&fresh);
            let schema = [
                json!({"type": "string"}),
                integer(0, 255),
                json!({"type": "boolean"}),
            ][dice.below(3)]
            .clone();
            props.insert(name.into(), schema);
            if dice.chance(2) {
                required.push(name.into());
                format!("{here}: required field `{name}` added")
            } else {
                format!("{here}: optional field `{name}` added")
            }
        }
        Op::RemoveField | Op::ToggleRequired | Op::RenameField => {
            if fields.is_empty() {
                return None;
            }
            let name = fields[dice.below(fields.len())].clone();
            target.extend(["properties".to_owned(), name.clone()]);
            let was_required = required.contains(&name);
            match op {
                Op::RemoveField => {
                    props.remove(&name);
                    required.retain(|r| *r != name);
                    format!("{here}: field `{name}` removed")
                }
                Op::ToggleRequired if was_required => {
                    required.retain(|r| *r != name);
                    format!("{here}: field `{name}` made optional")
                }
                Op::ToggleRequired => {
                    required.push(name.clone());
                    format!("{here}: field `{name}` made required")
                }
                _ => {
                    if fresh.is_empty() {
                        return None;
                    }
                    let to = *dice.pick(&fresh);
                    let mut schema = props.remove(&name)?;
                    let alias = dice.chance(2);
                    if alias {
                        schema
                            .as_object_mut()?
                            .insert("x-codec-aliases".into(), json!([name]));
                    }
                    props.insert(to.into(), schema);
                    for r in required.iter_mut().filter(|r| **r == name) {
                        *r = to.into();
                    }
                    let how = if alias { "with" } else { "without" };
                    format!("{here}: field `{name}` renamed `{to}` {how} an alias")
                }
            }
        }
        Op::Reorder => {
            if props.len() < 2 || required.len() < 2 {
                return None;
            }
            required.reverse();
            props = props.into_iter().rev().collect();
            format!("{here}: fields reordered")
        }
        _ => return None,
    };
    node.insert("properties".into(), Value::Object(props));
    if required.is_empty() {
        node.remove("required");
    } else {
        node.insert("required".into(), json!(required));
    }
    Some(Mutation {
        op,
        new,
        what,
        target,
    })
}

fn variant_change(mut new: Value, op: Op, site: &Site, dice: &mut Dice) -> Option<Mutation> {
    let here = pointer(&site.path);
    let node = new.pointer_mut(&here)?;
    let tag = tag_field(node).map(str::to_owned);
    let variants = node.get_mut("oneOf")?.as_array_mut()?;
    // The tag schema of a variant: a property of a map variant, the first
    // element of an array variant.
    let tag_ptr = |i: usize| match &tag {
        Some(t) => format!(
            "/{i}/properties/{}",
            t.replace('~', "~0").replace('/', "~1")
        ),
        None => format!("/{i}/prefixItems/0"),
    };
    let names: Vec<Value> = (0..variants.len())
        .filter_map(|i| {
            Value::Array(variants.clone())
                .pointer(&tag_ptr(i))?
                .get("const")
                .cloned()
        })
        .collect();
    let fresh: Vec<&str> = VARIANT_NAMES
        .iter()
        .copied()
        .filter(|n| !names.contains(&json!(n)))
        .collect();
    let mut target = site.path.clone();
    let what = match op {
        Op::AddVariant => {
            let name = *dice.pick(&fresh);
            variants.push(match &tag {
                Some(t) => json!({"type": "object", "properties": {t.as_str(): {"const": name}}, "required": [t]}),
                None => json!({"type": "array", "prefixItems": [{"const": name}], "minItems": 1, "maxItems": 1, "items": false}),
            });
            format!("{here}: variant {name:?} added")
        }
        Op::RemoveVariant => {
            if variants.len() < 2 {
                return None;
            }
            let i = dice.below(variants.len());
            variants.remove(i);
            target.extend(["oneOf".to_owned(), i.to_string()]);
            format!("{here}: variant {} removed", names.get(i)?)
        }
        _ => {
            if fresh.is_empty() || variants.is_empty() {
                return None;
            }
            let i = dice.below(variants.len());
            let to = *dice.pick(&fresh);
            let from = names.get(i)?.clone();
            let mut all = Value::Array(std::mem::take(variants));
            let tag_schema = all.pointer_mut(&tag_ptr(i))?;
            tag_schema["const"] = to.into();
            let alias = dice.chance(2);
            if alias {
                tag_schema["x-codec-aliases"] = json!([from]);
            }
            *variants = match all {
                Value::Array(a) => a,
                _ => unreachable!(),
            };
            target.extend(["oneOf".to_owned(), i.to_string()]);
            let how = if alias { "with" } else { "without" };
            format!("{here}: variant {from} renamed {to:?} {how} an alias")
        }
    };
    Some(Mutation {
        op,
        new,
        what,
        target,
    })
}
