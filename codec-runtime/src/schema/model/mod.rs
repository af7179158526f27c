//! The resolved model of a schema's wire shape: what the fingerprint, the
//! diff and the readability check read, so that they cannot disagree.
//!
//! A JSON Schema mixes three things in one syntax: subschemas (under
//! `properties`, `items`, `anyOf`...), names (the keys of `properties`, the
//! entries of `required`) and annotations (`title`, `description`,
//! `default`...). A key filter over the raw JSON cannot tell a field named
//! `title` from a type's title; the model can, because it is built by
//! reading each keyword for what the vocabulary says it holds:
//!
//! - [`Keyword::Schema`], [`Keyword::Schemas`] and [`Keyword::Named`] hold
//!   subschemas (one, a list, a map by name);
//! - [`Keyword::Value`] holds data (`type`, `required`, `const`, bounds, and
//!   the annotations, which the model keeps for the diff's messages and
//!   aliases but which never count as wire shape: [`is_annotation`]).
//!
//! Every `$ref` is followed: definitions become [`Def`]s of the model,
//! reached through [`Node::Ref`], so a recursive type is a cycle of
//! references rather than an endless tree. A definition no reference
//! reaches is not on the wire and is not in the model.

mod canonical;

use std::collections::BTreeMap;

use serde_json::{Map, Value};

pub use canonical::{Canonical, DEEPEST};

use super::{is_raw, ALIASES, FIELDS, OMIT_DEFAULTS, ORDER, RAW, VALUE_ALIASES, VERSION};

/// A schema resolved into its definitions: `defs[0]` is the root.
#[derive(Debug)]
pub struct Model {
    defs: Vec<Def>,
}

/// One definition: the root, or a type under `$defs` (whose key is not
/// part of the wire shape, and not kept).
#[derive(Debug)]
pub struct Def {
    /// What the definition describes.
    pub node: Node,
}

/// A schema position.
#[derive(Debug)]
pub enum Node {
    /// `true` (any value) or `false` (no value).
    Bool(bool),
    /// A reference to a definition of the model.
    Ref(usize),
    /// A schema object, by keyword.
    Object(Box<Keywords>),
}

/// The keywords of a schema object.
#[derive(Debug, Default)]
pub struct Keywords(pub BTreeMap<String, Keyword>);

/// What one keyword of a schema object holds.
#[derive(Debug)]
pub enum Keyword {
    /// One subschema (`items`, `additionalProperties`, `not`...).
    Schema(Node),
    /// Subschemas by position (`prefixItems`, `anyOf`, `oneOf`, `allOf`).
    Schemas(Vec<Node>),
    /// Subschemas by name (`properties`, `patternProperties`...): the names
    /// are data, whatever they spell.
    Named(BTreeMap<String, Node>),
    /// Data: a type name, a bound, a list of names, a constant, an annotation.
    Value(Value),
}

/// Keywords whose value is one subschema.
const ONE: &[&str] = &[
    "items",
    "additionalProperties",
    "not",
    "propertyNames",
    "contains",
    "if",
    "then",
    "else",
    "unevaluatedItems",
    "unevaluatedProperties",
    "additionalItems",
    "contentSchema",
];

/// Keywords whose value is a list of subschemas.
const LIST: &[&str] = &["prefixItems", "anyOf", "oneOf", "allOf"];

/// Keywords whose value is a map of subschemas by name.
const NAMED: &[&str] = &["properties", "patternProperties", "dependentSchemas"];

/// Keywords that describe or name a schema without changing the values it
/// admits or what they mean on the wire: JSON Schema's annotations, and
/// codec's own, which name fields, rename things or say what a writer
/// leaves out, never what a value holds.
const ANNOTATIONS: &[&str] = &[
    "title",
    "description",
    "examples",
    "$comment",
    "default",
    "$schema",
    "$id",
    "$anchor",
    "deprecated",
    "readOnly",
    "writeOnly",
    ALIASES,
    VALUE_ALIASES,
    VERSION,
    ORDER,
    FIELDS,
    OMIT_DEFAULTS,
    RAW,
];

/// Whether a keyword of a schema object is an annotation: see [`ANNOTATIONS`].
pub fn is_annotation(keyword: &str) -> bool {
    ANNOTATIONS.contains(&keyword)
}

impl Model {
    /// The model of a root schema as [`crate::schema_of`] gives it (or as
    /// a file or a stored value keeps it).
    pub fn new(root: &Value) -> Model {
        let definitions = ["$defs", "definitions"]
            .iter()
            .filter_map(|k| root.get(k).and_then(Value::as_object))
            .flat_map(|m| m.iter())
            .map(|(name, def)| (name.clone(), def.clone()))
            .collect();
        let mut builder = Builder {
            definitions,
            ids: BTreeMap::new(),
            defs: vec![Def {
                node: Node::Bool(true),
            }],
            pending: Vec::new(),
        };
        builder.defs[0].node = builder.node(root);
        // Definitions one after the other, not one inside another: a chain
        // of them as long as a stored schema holds costs no stack.
        while let Some((id, def)) = builder.pending.pop() {
            builder.defs[id].node = builder.node(&def);
        }
        Model { defs: builder.defs }
    }

    /// The root node.
    pub fn root(&self) -> &Node {
        &self.defs[0].node
    }

    /// The definition `id`.
    pub fn def(&self, id: usize) -> &Def {
        &self.defs[id]
    }

    /// `node` with its references followed, and the `allOf`s that only
    /// wrap one schema (to annotate it) unwrapped: never a [`Node::Ref`].
    /// With it, the last definition followed, if any.
    pub fn resolve<'m>(&'m self, mut node: &'m Node) -> (&'m Node, Option<usize>) {
        let mut via = None;
        // Each step follows a reference or unwraps a keyword of the
        // schema: a longer walk is a cycle of references to nothing.
        for _ in 0..=self.defs.len() + 64 {
            match node {
                Node::Ref(id) => {
                    via = Some(*id);
                    node = &self.defs[*id].node;
                }
                Node::Object(k) => match k.transparent() {
                    Some(inner) => node = inner,
                    None => return (node, via),
                },
                Node::Bool(_) => return (node, via),
            }
        }
        (&Node::Bool(true), via)
    }

    /// The root schema's `title`: the type's name, for the paths of a diff.
    pub fn title(&self) -> Option<&str> {
        self.root().keywords()?.value("title")?.as_str()
    }
}

impl Node {
    /// The keywords, for a schema object.
    pub fn keywords(&self) -> Option<&Keywords> {
        match self {
            Node::Object(k) => Some(k),
            _ => None,
        }
    }
}

impl Keywords {
    /// The one schema of an `allOf` that is all these keywords hold but
    /// annotations: they annotate that schema (a field's aliases beside a
    /// reference) and describe the same values.
    pub fn transparent(&self) -> Option<&Node> {
        let mut shaping = self.0.keys().filter(|k| !is_annotation(k));
        match (shaping.next().map(String::as_str), shaping.next()) {
            (Some("allOf"), None) => match self.schemas("allOf")? {
                [one] => Some(one),
                _ => None,
            },
            _ => None,
        }
    }

    /// A keyword holding data.
    pub fn value(&self, key: &str) -> Option<&Value> {
        match self.0.get(key)? {
            Keyword::Value(v) => Some(v),
            _ => None,
        }
    }

    /// A keyword holding one subschema.
    pub fn schema(&self, key: &str) -> Option<&Node> {
        match self.0.get(key)? {
            Keyword::Schema(n) => Some(n),
            _ => None,
        }
    }

    /// A keyword holding subschemas by position.
    pub fn schemas(&self, key: &str) -> Option<&[Node]> {
        match self.0.get(key)? {
            Keyword::Schemas(n) => Some(n),
            _ => None,
        }
    }

    /// A keyword holding subschemas by name.
    pub fn named(&self, key: &str) -> Option<&BTreeMap<String, Node>> {
        match self.0.get(key)? {
            Keyword::Named(n) => Some(n),
            _ => None,
        }
    }

    /// Whether the keyword is there, whatever it holds.
    pub fn has(&self, key: &str) -> bool {
        self.0.contains_key(key)
    }

    /// The strings of a keyword holding a list of them (`required`,
    /// `x-codec-aliases`).
    pub fn strings(&self, key: &str) -> Vec<&str> {
        self.value(key)
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default()
    }
}

struct Builder {
    /// The root's `$defs`, by name.
    definitions: BTreeMap<String, Value>,
    /// The id given to each definition reached so far.
    ids: BTreeMap<String, usize>,
    defs: Vec<Def>,
    /// The definitions reached and not built yet, by id.
    pending: Vec<(usize, Value)>,
}

impl Builder {
    fn node(&mut self, value: &Value) -> Node {
        let Some(obj) = value.as_object() else {
            // `true`, `false`; anything else is no schema, read as
            // JSON Schema reads it: it admits every value.
            return Node::Bool(value.as_bool().unwrap_or(true));
        };
        if is_raw(obj) {
            return Node::Bool(true);
        }
        if let Some(reference) = obj.get("$ref").and_then(Value::as_str)
            && let Some(id) = self.reference(reference)
        {
            if obj.len() == 1 {
                return Node::Ref(id);
            }
            // Keywords beside a reference (a field's aliases, its
            // description) apply with it: the reference becomes one of an
            // `allOf`, which is transparent where it is all there is.
            let siblings: Map<String, Value> = obj
                .iter()
                .filter(|(k, _)| *k != "$ref")
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            let mut keywords = self.keywords(&siblings);
            match keywords.0.get_mut("allOf") {
                Some(Keyword::Schemas(all)) => all.push(Node::Ref(id)),
                _ => {
                    keywords
                        .0
                        .insert("allOf".into(), Keyword::Schemas(vec![Node::Ref(id)]));
                }
            }
            return Node::Object(Box::new(keywords));
        }
        Node::Object(Box::new(self.keywords(obj)))
    }

    fn keywords(&mut self, obj: &Map<String, Value>) -> Keywords {
        let mut out = BTreeMap::new();
        for (key, value) in obj {
            let key = key.as_str();
            if matches!(key, "$defs" | "definitions") {
                continue;
            }
            let keyword = if ONE.contains(&key) && is_schema(value) {
                Keyword::Schema(self.node(value))
            } else if (LIST.contains(&key) || key == "items") && value.is_array() {
                let items = value.as_array().into_iter().flatten();
                Keyword::Schemas(items.map(|v| self.node(v)).collect())
            } else if NAMED.contains(&key) && value.is_object() {
                let entries = value.as_object().into_iter().flatten();
                Keyword::Named(entries.map(|(k, v)| (k.clone(), self.node(v))).collect())
            } else {
                Keyword::Value(value.clone())
            };
            out.insert(key.to_owned(), keyword);
        }
        Keywords(out)
    }

    /// The definition a `$ref` names: `#` (the root) or one of the root's
    /// `$defs`. `None` for a reference the schema cannot resolve, which
    /// stays a keyword of its own.
    fn reference(&mut self, reference: &str) -> Option<usize> {
        if reference == "#" {
            return Some(0);
        }
        let name = reference
            .strip_prefix("#/$defs/")
            .or_else(|| reference.strip_prefix("#/definitions/"))?;
        let name = name.replace("~1", "/").replace("~0", "~");
        if let Some(&id) = self.ids.get(&name) {
            return Some(id);
        }
        let def = self.definitions.get(&name)?.clone();
        let id = self.defs.len();
        self.ids.insert(name, id);
        self.defs.push(Def {
            node: Node::Bool(true),
        });
        self.pending.push((id, def));
        Some(id)
    }
}

fn is_schema(value: &Value) -> bool {
    value.is_object() || value.is_boolean()
}

/// `schema` without the annotations that only describe (titles,
/// descriptions, examples, comments) where they are keywords of a schema:
/// the form a stored value keeps of its writer's schema, which the diff
/// reads whole (aliases, defaults) and which need not carry doc comments.
pub fn without_descriptions(schema: &Value) -> Value {
    const DESCRIPTIONS: &[&str] = &["title", "description", "examples", "$comment"];
    fn schema_node(value: &Value) -> Value {
        let Some(obj) = value.as_object() else {
            return value.clone();
        };
        let mut out = Map::new();
        for (key, value) in obj {
            let k = key.as_str();
            if DESCRIPTIONS.contains(&k) {
                continue;
            }
            let kept = if (ONE.contains(&k) && is_schema(value)) || k == "items" {
                match value {
                    Value::Array(items) => Value::Array(items.iter().map(schema_node).collect()),
                    other => schema_node(other),
                }
            } else if LIST.contains(&k) && value.is_array() {
                Value::Array(
                    value
                        .as_array()
                        .into_iter()
                        .flatten()
                        .map(schema_node)
                        .collect(),
                )
            } else if (NAMED.contains(&k) || matches!(k, "$defs" | "definitions"))
                && value.is_object()
            {
                let entries = value.as_object().into_iter().flatten();
                Value::Object(entries.map(|(n, v)| (n.clone(), schema_node(v))).collect())
            } else {
                value.clone()
            };
            out.insert(key.clone(), kept);
        }
        Value::Object(out)
    }
    schema_node(schema)
}
