//! Random root schemas in exactly the forms `codec::schema_of` emits: a model
//! of a derived type (`Ty`) that proptest generates and shrinks, rendered to
//! JSON the way `codec-runtime/src/schema/build.rs` assembles it.

use proptest::prelude::*;
use serde_json::{json, Map, Value};

/// Field names, half of them JSON Schema keywords: a field is a field,
/// whatever its name.
pub const FIELD_NAMES: &[&str] = &[
    "title",
    "description",
    "default",
    "examples",
    "type",
    "$ref",
    "properties",
    "required",
    "items",
    "enum",
    "const",
    "$defs",
    "id",
    "name",
    "count",
    "note",
    "x",
    "y",
];

/// Variant names and unit enum values.
pub const VARIANT_NAMES: &[&str] = &[
    "Title",
    "Default",
    "Type",
    "Ref",
    "Items",
    "Dot",
    "Empty",
    "Move",
    "title",
    "type",
    "$ref",
    "description",
    "enum",
    "const",
];

/// Wire names of nested derived types, the keys of `$defs`.
pub const DEF_NAMES: &[&str] = &[
    "app.Span",
    "app.Item",
    "app.Mode",
    "title",
    "type",
    "Node",
    "$ref",
    "app.Entry",
];

/// The tag fields of internally tagged unions.
pub const TAG_FIELDS: &[&str] = &["type", "kind", "op", "title", "$ref"];

/// String patterns, each with an alphabet whose strings it matches: samples
/// of a patterned string draw from that alphabet.
pub const PATTERNS: &[(&str, &str)] = &[
    ("^[a-z]*$", "abcxyz"),
    ("^[a-c]*$", "abc"),
    ("^[0-9]*$", "0129"),
    ("^[a-z0-9_]*$", "a9_z"),
];

/// The Rust integer types, as `build::integer` bounds them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntKind {
    U8,
    U16,
    U32,
    U64,
    U128,
    I8,
    I16,
    I32,
    I64,
    I128,
}

impl IntKind {
    pub const ALL: [IntKind; 10] = [
        IntKind::U8,
        IntKind::U16,
        IntKind::U32,
        IntKind::U64,
        IntKind::U128,
        IntKind::I8,
        IntKind::I16,
        IntKind::I32,
        IntKind::I64,
        IntKind::I128,
    ];

    pub fn range(self) -> (i128, i128) {
        match self {
            IntKind::U8 => (0, u8::MAX.into()),
            IntKind::U16 => (0, u16::MAX.into()),
            IntKind::U32 => (0, u32::MAX.into()),
            IntKind::U64 => (0, u64::MAX.into()),
            // Beyond 64 bits the bound is left open: `i128::MAX` stands for `u128::MAX`.
            IntKind::U128 => (0, i128::MAX),
            IntKind::I8 => (i8::MIN.into(), i8::MAX.into()),
            IntKind::I16 => (i16::MIN.into(), i16::MAX.into()),
            IntKind::I32 => (i32::MIN.into(), i32::MAX.into()),
            IntKind::I64 => (i64::MIN.into(), i64::MAX.into()),
            IntKind::I128 => (i128::MIN, i128::MAX),
        }
    }
}

/// The JSON schema of an integer in `[min, max]`; bounds beyond 64 bits are
/// left open, as `build::integer` leaves them.
pub fn integer(min: i128, max: i128) -> Value {
    let mut map = Map::new();
    map.insert("type".into(), "integer".into());
    for (key, bound) in [("minimum", min), ("maximum", max)] {
        if let Ok(v) = i64::try_from(bound) {
            map.insert(key.into(), v.into());
        } else if let Ok(v) = u64::try_from(bound) {
            map.insert(key.into(), v.into());
        }
    }
    Value::Object(map)
}

/// `#[codec(min_length, max_length, pattern)]` on a string.
#[derive(Clone, Debug)]
pub struct StrLimits {
    pub min_length: Option<u8>,
    pub max_length: Option<u8>,
    pub pattern: Option<usize>,
}

#[derive(Clone, Debug)]
pub struct Field {
    pub name: String,
    pub ty: Ty,
    pub required: bool,
    pub alias: Option<String>,
    pub description: Option<String>,
}

#[derive(Clone, Debug)]
pub enum Payload {
    Unit,
    /// A newtype variant of a non-struct type: its value under `value`.
    Value(Ty),
    Fields(Vec<Field>),
}

#[derive(Clone, Debug)]
pub enum Ty {
    Bool,
    Float,
    Int(IntKind),
    Str(Option<StrLimits>),
    Bytes,
    /// `Option<Box<Root>>`: recursion to the root, finite through `None`.
    SelfOption,
    /// `Vec<Root>`: recursion to the root, finite through `[]`.
    SelfVec,
    Option(Box<Ty>),
    Vec(Box<Ty>),
    Set(Box<Ty>),
    Fixed(Box<Ty>, u8),
    Map {
        integer_keys: bool,
        values: Box<Ty>,
    },
    Tuple(Vec<Ty>),
    Struct {
        fields: Vec<Field>,
        closed: bool,
    },
    UnitEnum(Vec<String>),
    Tagged {
        tag: String,
        variants: Vec<(String, Payload)>,
    },
    ArrayTagged(Vec<(String, Vec<Ty>)>),
    Untagged(Vec<Ty>),
}

fn str_limits() -> impl Strategy<Value = Option<StrLimits>> {
    prop_oneof![
        3 => Just(None),
        1 => (
            prop::option::of(0u8..3),
            prop::option::of(2u8..8),
            prop::option::of(0..PATTERNS.len()),
        )
            .prop_map(|(min_length, max_length, pattern)| Some(StrLimits {
                min_length,
                max_length,
                pattern,
            })),
    ]
}

fn leaf() -> impl Strategy<Value = Ty> {
    prop_oneof![
        1 => Just(Ty::Bool),
        1 => Just(Ty::Float),
        3 => prop::sample::select(&IntKind::ALL[..]).prop_map(Ty::Int),
        2 => str_limits().prop_map(Ty::Str),
        1 => Just(Ty::Bytes),
        1 => Just(Ty::SelfOption),
        1 => Just(Ty::SelfVec),
        1 => names(VARIANT_NAMES, 1, 4).prop_map(Ty::UnitEnum),
    ]
}

fn names(pool: &'static [&'static str], min: usize, max: usize) -> BoxedStrategy<Vec<String>> {
    prop::sample::subsequence(pool, min..=max)
        .prop_shuffle()
        .prop_map(|names| names.into_iter().map(str::to_owned).collect())
        .boxed()
}

fn fields(
    inner: BoxedStrategy<Ty>,
    excluded: &'static str,
    max: usize,
) -> BoxedStrategy<Vec<Field>> {
    let pool: Vec<&'static str> = FIELD_NAMES
        .iter()
        .copied()
        .filter(|n| *n != excluded)
        .collect();
    (
        prop::sample::subsequence(pool, 0..=max).prop_shuffle(),
        prop::collection::vec(
            (
                inner,
                prop::bool::weighted(0.7),
                prop::option::weighted(0.15, prop::sample::select(&["old", "legacy", "title"][..])),
                prop::option::weighted(0.15, Just("A field.")),
            ),
            max,
        ),
    )
        .prop_map(|(names, specs)| {
            names
                .iter()
                .zip(specs)
                .map(|(name, (ty, required, alias, description))| Field {
                    name: (*name).to_owned(),
                    ty,
                    required,
                    alias: alias.filter(|a| !names.contains(a)).map(str::to_owned),
                    description: description.map(str::to_owned),
                })
                .collect()
        })
        .boxed()
}

fn untagged(inner: BoxedStrategy<Ty>) -> BoxedStrategy<Ty> {
    // One variant per kind of JSON value, as codec requires of untagged enums.
    let kinds: Vec<BoxedStrategy<Option<Ty>>> = vec![
        prop::option::of(Just(Ty::Int(IntKind::I64))).boxed(),
        prop::option::of(Just(Ty::Float)).boxed(),
        prop::option::of(str_limits().prop_map(Ty::Str)).boxed(),
        prop::option::of(Just(Ty::Bool)).boxed(),
        prop::option::of(inner.clone().prop_map(|t| Ty::Vec(Box::new(t)))).boxed(),
        prop::option::of(fields(inner, "", 2).prop_map(|fields| Ty::Struct {
            fields,
            closed: false,
        }))
        .boxed(),
    ];
    kinds
        .prop_map(|kinds| kinds.into_iter().flatten().collect::<Vec<_>>())
        .prop_filter("an untagged enum has two variants or more", |v| {
            v.len() >= 2
        })
        .prop_map(Ty::Untagged)
        .boxed()
}

fn tagged(inner: BoxedStrategy<Ty>) -> BoxedStrategy<Ty> {
    prop::sample::select(TAG_FIELDS)
        .prop_flat_map(move |tag| {
            let payload = prop_oneof![
                Just(Payload::Unit),
                inner.clone().prop_map(Payload::Value),
                fields(inner.clone(), tag, 3).prop_map(Payload::Fields),
            ];
            (
                Just(tag.to_owned()),
                names(VARIANT_NAMES, 1, 4),
                prop::collection::vec(payload, 4),
            )
        })
        .prop_map(|(tag, names, payloads)| Ty::Tagged {
            variants: names.into_iter().zip(payloads).collect(),
            tag,
        })
        .boxed()
}

fn array_tagged(inner: BoxedStrategy<Ty>) -> BoxedStrategy<Ty> {
    (
        names(VARIANT_NAMES, 1, 3),
        prop::collection::vec(prop::collection::vec(inner, 0..3), 3),
    )
        .prop_map(|(names, items)| Ty::ArrayTagged(names.into_iter().zip(items).collect()))
        .boxed()
}

/// A derived type: what a root schema describes.
fn derived(inner: BoxedStrategy<Ty>) -> BoxedStrategy<Ty> {
    prop_oneof![
        4 => (fields(inner.clone(), "", 5), prop::bool::weighted(0.3))
            .prop_map(|(fields, closed)| Ty::Struct { fields, closed }),
        2 => tagged(inner.clone()),
        1 => array_tagged(inner.clone()),
        1 => untagged(inner),
        1 => names(VARIANT_NAMES, 1, 4).prop_map(Ty::UnitEnum),
    ]
    .boxed()
}

/// Any type, nested up to four levels.
pub fn ty() -> BoxedStrategy<Ty> {
    leaf()
        .prop_recursive(4, 32, 4, |inner| {
            let inner = inner.boxed();
            prop_oneof![
                2 => inner.clone().prop_map(|t| Ty::Option(Box::new(t))),
                2 => inner.clone().prop_map(|t| Ty::Vec(Box::new(t))),
                1 => inner.clone().prop_map(|t| Ty::Set(Box::new(t))),
                1 => (inner.clone(), 1u8..4).prop_map(|(t, n)| Ty::Fixed(Box::new(t), n)),
                1 => (any::<bool>(), inner.clone()).prop_map(|(integer_keys, t)| Ty::Map {
                    integer_keys,
                    values: Box::new(t)
                }),
                1 => prop::collection::vec(inner.clone(), 1..4).prop_map(Ty::Tuple),
                4 => derived(inner),
            ]
        })
        .boxed()
}

/// A root type: a derived type whose parts are any types.
pub fn root() -> BoxedStrategy<Ty> {
    derived(ty())
}

/// The root schema of `root`, as `codec::schema_of` gives it.
pub fn render(root: &Ty) -> Value {
    let mut r = Renderer { defs: Map::new() };
    let mut schema = r.body(root);
    let obj = schema
        .as_object_mut()
        .expect("a derived type's schema is an object");
    obj.insert(
        "$schema".into(),
        "https://json-schema.org/draft/2020-12/schema".into(),
    );
    obj.insert("title".into(), "app.Root".into());
    if !r.defs.is_empty() {
        obj.insert("$defs".into(), Value::Object(r.defs));
    }
    schema
}

struct Renderer {
    defs: Map<String, Value>,
}

impl Renderer {
    /// The schema of `ty` where it is used: derived types by `$ref`.
    fn node(&mut self, ty: &Ty) -> Value {
        match ty {
            Ty::Struct { .. }
            | Ty::UnitEnum(_)
            | Ty::Tagged { .. }
            | Ty::ArrayTagged(_)
            | Ty::Untagged(_) => {
                let body = self.body(ty);
                json!({ "$ref": format!("#/$defs/{}", self.define(body)) })
            }
            _ => self.body(ty),
        }
    }

    /// A name in `$defs` for `body`: the same type is defined once.
    fn define(&mut self, body: Value) -> String {
        if let Some((name, _)) = self.defs.iter().find(|(_, b)| **b == body) {
            return name.clone();
        }
        let n = self.defs.len();
        let base = DEF_NAMES[n % DEF_NAMES.len()];
        let name = if self.defs.contains_key(base) {
            format!("{base}{n}")
        } else {
            base.to_owned()
        };
        self.defs.insert(name.clone(), body);
        name
    }

    fn body(&mut self, ty: &Ty) -> Value {
        match ty {
            Ty::Bool => json!({"type": "boolean"}),
            Ty::Float => json!({"type": "number"}),
            Ty::Int(kind) => {
                let (min, max) = kind.range();
                integer(min, max)
            }
            Ty::Str(limits) => {
                let mut s = json!({"type": "string"});
                if let Some(l) = limits {
                    if let Some(min) = l.min_length {
                        s["minLength"] = min.into();
                    }
                    if let Some(max) = l.max_length {
                        s["maxLength"] = (max.max(l.min_length.unwrap_or(0))).into();
                    }
                    if let Some(p) = l.pattern {
                        s["pattern"] = PATTERNS[p].0.into();
                    }
                }
                s
            }
            Ty::Bytes => json!({"type": "string", "contentEncoding": "base64"}),
            Ty::SelfOption => json!({"anyOf": [{"$ref": "#"}, {"type": "null"}]}),
            Ty::SelfVec => json!({"type": "array", "items": {"$ref": "#"}}),
            Ty::Option(inner) => {
                // `Option<Option<T>>` reads as `Option<T>`: one `null`.
                let inner = match &**inner {
                    Ty::Option(t) => &**t,
                    t => t,
                };
                json!({"anyOf": [self.node(inner), {"type": "null"}]})
            }
            Ty::Vec(t) => json!({"type": "array", "items": self.node(t)}),
            Ty::Set(t) => json!({"type": "array", "items": self.node(t), "uniqueItems": true}),
            Ty::Fixed(t, n) => {
                json!({"type": "array", "items": self.node(t), "minItems": n, "maxItems": n})
            }
            Ty::Map {
                integer_keys,
                values,
            } => {
                let mut m = json!({"type": "object", "additionalProperties": self.node(values)});
                if *integer_keys {
                    m["propertyNames"] = json!({"pattern": "^-?[0-9]+$"});
                }
                m
            }
            Ty::Tuple(items) => self.tuple(items, 0),
            Ty::Struct { fields, closed } => {
                let mut s = self.object(fields, None);
                if *closed {
                    s["additionalProperties"] = false.into();
                }
                s
            }
            Ty::UnitEnum(values) => json!({ "enum": values }),
            Ty::Tagged { tag, variants } => {
                let variants: Vec<Value> = variants
                    .iter()
                    .map(|(name, payload)| self.tagged_variant(tag, name, payload))
                    .collect();
                json!({
                    "type": "object",
                    "oneOf": variants,
                    "discriminator": {"propertyName": tag},
                    "required": [tag],
                })
            }
            Ty::ArrayTagged(variants) => {
                let variants: Vec<Value> = variants
                    .iter()
                    .map(|(name, items)| {
                        let mut v = self.tuple(items, 1);
                        v["prefixItems"]
                            .as_array_mut()
                            .expect("a tuple has prefixItems")
                            .insert(0, json!({ "const": name }));
                        v
                    })
                    .collect();
                json!({ "oneOf": variants })
            }
            Ty::Untagged(variants) => {
                let variants: Vec<Value> = variants.iter().map(|v| self.node(v)).collect();
                json!({ "anyOf": variants })
            }
        }
    }

    /// A closed tuple; `extra` leading elements (a tag) are counted in its length.
    fn tuple(&mut self, items: &[Ty], extra: usize) -> Value {
        let prefix: Vec<Value> = items.iter().map(|t| self.node(t)).collect();
        let n = prefix.len() + extra;
        json!({"type": "array", "prefixItems": prefix, "minItems": n, "maxItems": n, "items": false})
    }

    fn object(&mut self, fields: &[Field], tag: Option<(&str, &str)>) -> Value {
        let mut properties = Map::new();
        let mut required = Vec::new();
        if let Some((tag, name)) = tag {
            properties.insert(tag.into(), json!({ "const": name }));
            required.push(Value::from(tag));
        }
        for f in fields {
            let mut schema = self.node(&f.ty);
            if let Some(alias) = &f.alias {
                schema["x-codec-aliases"] = json!([alias]);
            }
            if let Some(description) = &f.description {
                schema["description"] = description.as_str().into();
            }
            if !f.required && matches!(f.ty, Ty::Option(_) | Ty::SelfOption) {
                schema["default"] = Value::Null;
            }
            if f.required {
                required.push(Value::from(f.name.as_str()));
            }
            properties.insert(f.name.clone(), schema);
        }
        let mut s = json!({"type": "object", "properties": properties});
        if !required.is_empty() {
            s["required"] = Value::Array(required);
        }
        s
    }

    fn tagged_variant(&mut self, tag: &str, name: &str, payload: &Payload) -> Value {
        match payload {
            Payload::Unit => self.object(&[], Some((tag, name))),
            Payload::Value(ty) => {
                let value = Field {
                    name: "value".into(),
                    ty: ty.clone(),
                    required: true,
                    alias: None,
                    description: None,
                };
                let value = if tag == "value" { vec![] } else { vec![value] };
                self.object(&value, Some((tag, name)))
            }
            Payload::Fields(fields) => self.object(fields, Some((tag, name))),
        }
    }
}
