//! The walk over two models side by side, from their roots through every
//! reference, that records each difference with its path.

use std::collections::{BTreeMap, HashMap, HashSet};

use serde_json::Value;

use super::bounds::{self, Bound};
use super::change::{Change, Compatibility};
use super::shape::{aliases, describe, describe_scalar, shape, Shape};
use crate::schema::build::enum_value_key;
use crate::schema::model::{Canonical, Keywords, Model, Node, DEEPEST};
use crate::schema::{OMIT_DEFAULTS, VALUE_ALIASES};

/// The changes from `old` to `new`, two root schemas as [`crate::schema_of`]
/// gives them. Empty when the wire shapes are equal.
pub fn diff(old: &Value, new: &Value) -> Vec<Change> {
    diff_models(&Model::new(old), &Model::new(new))
}

/// The changes from the model `old` to the model `new`.
pub(crate) fn diff_models(old: &Model, new: &Model) -> Vec<Change> {
    let root = new
        .title()
        .or_else(|| old.title())
        .unwrap_or("$")
        .to_owned();
    let mut cx = Differ {
        old,
        new,
        old_text: Canonical::new(old),
        new_text: Canonical::new(new),
        active: HashSet::new(),
        known: HashMap::new(),
        in_set: false,
        changes: Vec::new(),
    };
    cx.node(old.root(), new.root(), &root);
    cx.changes
}

struct Differ<'m> {
    old: &'m Model,
    new: &'m Model,
    old_text: Canonical<'m>,
    new_text: Canonical<'m>,
    /// The pairs of nodes (by address, and whether inside a set) being
    /// compared, up the path.
    active: HashSet<(usize, usize, bool)>,
    /// The changes found in each pair of nodes compared, by the path
    /// below the pair's.
    known: HashMap<(usize, usize, bool), Vec<Change>>,
    /// Whether the nodes compared are (inside) the elements of a set,
    /// where two elements that become equal become one.
    in_set: bool,
    changes: Vec<Change>,
}

impl<'m> Differ<'m> {
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

    /// Whether two nodes describe the same wire shape (never, for a
    /// schema nested deeper than its text is written).
    fn same(&mut self, old: &Node, new: &Node) -> bool {
        self.old_text.node(old) == self.new_text.node(new)
            && !self.old_text.too_deep
            && !self.new_text.too_deep
    }

    fn node(&mut self, old: &'m Node, new: &'m Node, path: &str) {
        if self.active.len() >= DEEPEST {
            // Nested deeper than any program's types: a stored schema made
            // to exhaust the stack is refused, not followed.
            self.breaking(path, format!("nested more than {DEEPEST} levels deep"));
            return;
        }
        let (old, _) = self.old.resolve(old);
        let (new, _) = self.new.resolve(new);
        // Nodes live in their models: a pair met again inside itself is a
        // recursive type, compared already up the path; a pair met again
        // elsewhere (a type used twice) has its changes said again there.
        let pair = (
            std::ptr::from_ref(old) as usize,
            std::ptr::from_ref(new) as usize,
            self.in_set,
        );
        if self.active.contains(&pair) {
            return;
        }
        if let Some(known) = self.known.get(&pair) {
            let replayed: Vec<Change> = known
                .iter()
                .map(|c| Change {
                    path: format!("{path}{}", c.path),
                    ..c.clone()
                })
                .collect();
            self.changes.extend(replayed);
            return;
        }
        if self.same(old, new) {
            return;
        }
        self.active.insert(pair);
        let start = self.changes.len();
        self.compare(old, new, path);
        self.active.remove(&pair);
        let relative = self.changes[start..]
            .iter()
            .map(|c| Change {
                path: c.path.strip_prefix(path).unwrap_or(&c.path).to_owned(),
                ..c.clone()
            })
            .collect();
        self.known.insert(pair, relative);
    }

    /// Compares two resolved nodes whose canonical texts differ.
    fn compare(&mut self, old: &'m Node, new: &'m Node, path: &str) {
        if let (Some(o), Some(n)) = (old.keywords(), new.keywords()) {
            for (description, compatibility) in bounds::changes(o, n) {
                self.push(path, description, compatibility, None);
            }
        }
        let (old_model, new_model) = (self.old, self.new);
        match (shape(old_model, old), shape(new_model, new)) {
            (Shape::Nullable(o), Shape::Nullable(n)) => self.node(o, n, path),
            (Shape::Nullable(_), _) => {
                let text = format!(
                    "{} -> {}: stored nulls no longer decode",
                    describe(old_model, old),
                    describe(new_model, new)
                );
                self.breaking(path, text);
            }
            (_, Shape::Nullable(n)) => {
                let text = format!(
                    "{} -> {}",
                    describe(old_model, old),
                    describe(new_model, new)
                );
                self.compatible(path, text);
                self.node(old, n, path);
            }
            (Shape::Object(o), Shape::Object(n)) => {
                self.object(Fields::of(o, None), Fields::of(n, None), path)
            }
            (Shape::TaggedMap(ot, ov), Shape::TaggedMap(nt, nv)) if ot == nt => {
                self.tagged(ov, nv, path, &Tagging::Map(ot))
            }
            (Shape::TaggedMap(ot, _), Shape::TaggedMap(nt, _)) => {
                self.breaking(path, format!("tag field `{ot}` -> `{nt}`"))
            }
            (Shape::TaggedArray(ov), Shape::TaggedArray(nv)) => {
                self.tagged(ov, nv, path, &Tagging::Array)
            }
            (Shape::Enum(o), Shape::Enum(n)) => {
                let aliases = new.keywords().and_then(|k| k.value(VALUE_ALIASES));
                self.enums(o, n, aliases, path)
            }
            (Shape::Const(o), Shape::Enum(n)) if n.contains(o) => {
                self.compatible(path, format!("constant {o} -> one of {}", n.len()))
            }
            (Shape::Map(o), Shape::Map(n)) => self.map(o, n, path),
            (Shape::Array(o), Shape::Array(n)) => self.array(o, n, path),
            (Shape::Scalar(ot, o), Shape::Scalar(nt, n)) => self.scalar(ot, o, nt, n, path),
            (Shape::Untagged(o), Shape::Untagged(n)) => self.untagged(o, n, path),
            // Compared whole above: here the versions differ.
            (Shape::Opaque(o), Shape::Opaque(n)) => self.breaking(
                path,
                format!("opaque serde value (codec::Opaque): version {o} -> {n}"),
            ),
            (_, Shape::Any) => {
                let text = format!("{} -> any value", describe(old_model, old));
                self.compatible(path, text)
            }
            (Shape::Never, _) => self.compatible(path, "no value -> a value"),
            _ => {
                let text = format!(
                    "{} -> {}",
                    describe(old_model, old),
                    describe(new_model, new)
                );
                self.breaking(path, text)
            }
        }
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

    /// Untagged unions: a value is read by the variant of its kind, so
    /// every old variant must still be there, the same or read by the new
    /// variant of its kind.
    fn untagged(&mut self, old: &'m [Node], new: &'m [Node], path: &str) {
        let (old_model, new_model) = (self.old, self.new);
        for variant in old {
            if new.iter().any(|n| self.same(variant, n)) {
                continue;
            }
            let old_kind = kind(old_model, variant);
            let same_kind: Vec<&Node> = new
                .iter()
                .filter(|n| old_kind.is_some() && kind(new_model, n) == old_kind)
                .collect();
            match (old_kind, same_kind.as_slice()) {
                (Some(k), [one]) => self.node(variant, one, &format!("{path}<{k}>")),
                _ => {
                    let text = format!(
                        "untagged variant {} changed or removed",
                        describe(old_model, variant)
                    );
                    self.breaking(path, text)
                }
            }
        }
        if new.len() > old.len() {
            self.compatible(path, "untagged variant added");
        }
    }

    fn object(&mut self, old: Fields<'m>, new: Fields<'m>, path: &str) {
        let mut matched_old: HashSet<&str> = HashSet::new();
        for (&name, &new_schema) in &new.props {
            let field = format!("{path}.{name}");
            let (old_name, old_schema) = match old.props.get(name) {
                Some(&s) => (name, s),
                None => match aliases(new_schema)
                    .into_iter()
                    .find_map(|a| old.props.get_key_value(a))
                {
                    Some((&old_name, &s)) => {
                        self.compatible(&field, format!("renamed from `{old_name}` (an alias)"));
                        (old_name, s)
                    }
                    None => {
                        let required = new.required.contains(&name);
                        self.added_field(&field, name, new_schema, required, &old, &new);
                        continue;
                    }
                },
            };
            matched_old.insert(old_name);
            if old.omits {
                self.default_kept(&field, name, old_schema, new_schema);
            }
            if new.required.contains(&name) && !old.required.contains(&old_name) {
                self.breaking_fixable(
                    &field,
                    format!("field `{name}` lost its default"),
                    format!("give `{name}` its #[codec(default)] back"),
                );
            }
            self.node(old_schema, new_schema, &field);
        }
        for &name in old.props.keys().filter(|k| !matched_old.contains(*k)) {
            let field = format!("{path}.{name}");
            if new.closed {
                self.breaking_fixable(
                    &field,
                    format!("field `{name}` removed, and the type denies unknown fields"),
                    "remove #[codec(deny_unknown_fields)], or keep the field".to_owned(),
                );
            } else if self.in_set {
                self.breaking(
                    &field,
                    format!("field `{name}` removed from the elements of a set: elements that differed by it become one"),
                );
            } else {
                self.compatible(&field, format!("field `{name}` removed"));
            }
        }
    }

    /// Where fields equal to their default were left out, a field's
    /// default is what it read as: changing it changes their values.
    fn default_kept(&mut self, field: &str, name: &str, old: &Node, new: &Node) {
        let default = |n: &Node| n.keywords().and_then(|k| k.value("default")).cloned();
        let (was, now) = (default(old), default(new));
        let Some(was) = was else { return };
        if now.as_ref() == Some(&was) {
            return;
        }
        let now = now.map_or_else(|| "none".to_owned(), |v| v.to_string());
        self.breaking_fixable(
            field,
            format!("default {was} -> {now}, and values equal to it were left out: they would read as the new one"),
            format!("give `{name}` its default {was} back"),
        );
    }

    /// A field the new schema has and the old one does not (nor under an
    /// alias): compatible with a default; else breaking, with a hint when a
    /// removed field of the same shape looks like its old name.
    fn added_field(
        &mut self,
        field: &str,
        name: &str,
        new_schema: &'m Node,
        required: bool,
        old: &Fields<'m>,
        new: &Fields<'m>,
    ) {
        if !required {
            self.compatible(field, format!("field `{name}` added with a default"));
            return;
        }
        // A removed field of the same shape: likely a rename.
        let renamed_from = old
            .props
            .iter()
            .filter(|(old_name, _)| !new.props.contains_key(*old_name))
            .find(|(_, old_schema)| self.same(old_schema, new_schema))
            .map(|(old_name, _)| *old_name);
        let (hint, fix) = match renamed_from {
            Some(old_name) => (
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

    /// Tagged unions: variants matched by tag (or a tag's alias), each
    /// compared without its tag.
    fn tagged(&mut self, old: &'m [Node], new: &'m [Node], path: &str, tagging: &Tagging<'_>) {
        let (old_model, new_model) = (self.old, self.new);
        let old: Vec<&'m Keywords> = old.iter().filter_map(|v| variant(old_model, v)).collect();
        let new: Vec<&'m Keywords> = new.iter().filter_map(|v| variant(new_model, v)).collect();
        let mut matched = HashSet::new();
        for o in &old {
            let Some(tag) = tagging.tag(o) else { continue };
            let label = label(tag);
            let variant_path = format!("{path}<{label}>");
            let found = new.iter().enumerate().find(|(_, n)| {
                tagging.tag(n) == Some(tag)
                    || tagging
                        .tag_node(n)
                        .is_some_and(|s| aliases(s).contains(&label.as_str()))
            });
            match found {
                Some((i, n)) => {
                    matched.insert(i);
                    if tagging.tag(n) != Some(tag) {
                        self.compatible(
                            &variant_path,
                            format!("variant `{label}` renamed (an alias)"),
                        );
                    }
                    match tagging {
                        Tagging::Map(tag) => self.object(
                            Fields::of(o, Some(tag)),
                            Fields::of(n, Some(tag)),
                            &variant_path,
                        ),
                        Tagging::Array => self.elements(o, n, &variant_path, 1),
                    }
                }
                None => self.breaking_fixable(
                    &variant_path,
                    format!("variant `{label}` removed"),
                    format!("keep the variant, or if another one replaces it, give that one #[codec(alias = \"{label}\")]"),
                ),
            }
        }
        for (i, n) in new.iter().enumerate() {
            if !matched.contains(&i)
                && let Some(tag) = tagging.tag(n)
            {
                let label = label(tag);
                self.compatible(
                    &format!("{path}<{label}>"),
                    format!("variant `{label}` added"),
                );
            }
        }
    }

    fn map(&mut self, old: &'m Keywords, new: &'m Keywords, path: &str) {
        let (old_keys, new_keys) = (old.schema("propertyNames"), new.schema("propertyNames"));
        let same_keys = match (old_keys, new_keys) {
            (None, None) => true,
            (Some(o), Some(n)) => self.same(o, n),
            _ => false,
        };
        if !same_keys {
            // Integer keys are integers in MessagePack, strings are strings:
            // neither reads the other.
            let keys = |k: Option<&Node>| {
                if k.is_some() {
                    "integer keys"
                } else {
                    "string keys"
                }
            };
            self.breaking(
                path,
                format!("map with {} -> {}", keys(old_keys), keys(new_keys)),
            );
        }
        if let (Some(o), Some(n)) = (
            old.schema("additionalProperties"),
            new.schema("additionalProperties"),
        ) {
            self.node(o, n, &format!("{path}.*"));
        }
    }

    fn array(&mut self, old: &'m Keywords, new: &'m Keywords, path: &str) {
        match (old.has("prefixItems"), new.has("prefixItems")) {
            (true, true) => self.elements(old, new, path, 0),
            (false, false) => {
                let unique = |k: &Keywords| k.value("uniqueItems") == Some(&Value::Bool(true));
                if let (Some(o), Some(n)) = (old.schema("items"), new.schema("items")) {
                    let outer = self.in_set;
                    self.in_set |= unique(new);
                    self.node(o, n, &format!("{path}[]"));
                    self.in_set = outer;
                }
                if unique(old) != unique(new) {
                    self.breaking(path, "`uniqueItems` changed");
                }
            }
            _ => self.breaking(path, "sequence -> fixed array, or the reverse"),
        }
    }

    /// Arrays of elements by position (tuples, `array_like` types and
    /// variants), from element `skip` on (after a variant's tag).
    fn elements(&mut self, old: &'m Keywords, new: &'m Keywords, path: &str, skip: usize) {
        let none: &'m [Node] = &[];
        let o = old.schemas("prefixItems").unwrap_or(none);
        let n = new.schemas("prefixItems").unwrap_or(none);
        let at = |i: usize| format!("{path}[{i}]");
        for (i, (os, ns)) in o.iter().zip(n).enumerate().skip(skip) {
            self.node(os, ns, &at(i));
        }
        let count = |k: &Keywords, key: &str| k.value(key).and_then(Value::as_u64);
        let new_min = count(new, "minItems").unwrap_or(0) as usize;
        for i in o.len().max(skip)..n.len() {
            if i < new_min {
                self.breaking(&at(i), "element added without a default");
            } else {
                self.compatible(&at(i), "element added with a default");
            }
        }
        let old_min = count(old, "minItems").unwrap_or(0) as usize;
        for i in old_min.max(skip)..new_min.min(o.len()) {
            self.breaking(&at(i), "element lost its default");
        }
        let closed = |k: &Keywords| matches!(k.schema("items"), Some(Node::Bool(false)));
        if n.len() < o.len() {
            if closed(new) {
                self.breaking(path, format!("{} elements -> {}", o.len(), n.len()));
            } else if self.in_set {
                self.breaking(
                    path,
                    format!("trailing elements removed ({} -> {}) from the elements of a set: elements that differed by them become one", o.len(), n.len()),
                );
            } else {
                self.compatible(
                    path,
                    format!("trailing elements removed ({} -> {})", o.len(), n.len()),
                );
            }
        } else if closed(new) && !closed(old) {
            self.breaking(path, "the array no longer admits more elements");
        }
    }

    fn scalar(
        &mut self,
        old_ty: &str,
        old: &'m Keywords,
        new_ty: &str,
        new: &'m Keywords,
        path: &str,
    ) {
        if old_ty != new_ty {
            if old_ty == "integer" && new_ty == "number" {
                self.compatible(path, "integer -> number");
            } else {
                self.breaking(
                    path,
                    format!(
                        "{} -> {}",
                        describe_scalar(old_ty, old),
                        describe_scalar(new_ty, new)
                    ),
                );
            }
            return;
        }
        let (old_min, new_min) = (Bound::of(old, "minimum"), Bound::of(new, "minimum"));
        let (old_max, new_max) = (Bound::of(old, "maximum"), Bound::of(new, "maximum"));
        let narrower = matches!((old_min, new_min), (None, Some(_)))
            || matches!((old_min, new_min), (Some(o), Some(n)) if n.above(o))
            || matches!((old_max, new_max), (None, Some(_)))
            || matches!((old_max, new_max), (Some(o), Some(n)) if o.above(n));
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
        let (old_not, new_not) = (old.schema("not"), new.schema("not"));
        let not_changed = match (old_not, new_not) {
            (None, None) => false,
            (Some(o), Some(n)) => !self.same(o, n),
            (Some(_), None) => {
                self.compatible(path, "an excluded value is admitted");
                false
            }
            (None, Some(_)) => true,
        };
        fn format(k: &Keywords) -> Option<&str> {
            k.value("format").and_then(Value::as_str)
        }
        let widened_float = old_ty == "number"
            && matches!((format(old), format(new)), (Some("float"), Some("double")));
        // A number written before floats had a width could be either.
        let unknown_width = old_ty == "number"
            && format(old).is_none()
            && matches!(format(new), Some("float" | "double"));
        let format_changed = format(old) != format(new) && !widened_float && !unknown_width;
        let encoding_changed = old.value("contentEncoding") != new.value("contentEncoding");
        if not_changed || format_changed || encoding_changed {
            self.breaking(
                path,
                format!(
                    "{} -> {}",
                    describe_scalar(old_ty, old),
                    describe_scalar(new_ty, new)
                ),
            );
        } else if widened_float {
            self.compatible(path, "32-bit float -> 64-bit float");
        } else if unknown_width {
            // Written before floats had a width: read as they always were.
            let text = format!("number -> {}", describe_scalar(new_ty, new));
            self.compatible(path, text);
        }
    }
}

/// The fields of an object (or of a tagged variant, without its tag).
struct Fields<'m> {
    props: BTreeMap<&'m str, &'m Node>,
    required: Vec<&'m str>,
    /// Whether unknown fields are refused.
    closed: bool,
    /// Whether fields equal to their default are left out.
    omits: bool,
}

impl<'m> Fields<'m> {
    fn of(keywords: &'m Keywords, without: Option<&str>) -> Self {
        let props = keywords
            .named("properties")
            .into_iter()
            .flatten()
            .filter(|(name, _)| Some(name.as_str()) != without)
            .map(|(name, node)| (name.as_str(), node))
            .collect();
        let required = keywords
            .strings("required")
            .into_iter()
            .filter(|name| Some(*name) != without)
            .collect();
        Fields {
            props,
            required,
            closed: matches!(
                keywords.schema("additionalProperties"),
                Some(Node::Bool(false))
            ),
            omits: keywords.value(OMIT_DEFAULTS) == Some(&Value::Bool(true)),
        }
    }
}

/// How a union's variants carry their tag.
enum Tagging<'a> {
    /// In a map, under this field.
    Map(&'a str),
    /// As the first element of an array.
    Array,
}

impl Tagging<'_> {
    fn tag_node<'m>(&self, variant: &'m Keywords) -> Option<&'m Node> {
        match self {
            Tagging::Map(tag) => variant.named("properties")?.get(*tag),
            Tagging::Array => variant.schemas("prefixItems")?.first(),
        }
    }

    fn tag<'m>(&self, variant: &'m Keywords) -> Option<&'m Value> {
        self.tag_node(variant)?.keywords()?.value("const")
    }
}

fn label(tag: &Value) -> String {
    tag.as_str()
        .map(str::to_owned)
        .unwrap_or_else(|| tag.to_string())
}

/// A variant's keywords, its references followed.
fn variant<'m>(model: &'m Model, node: &'m Node) -> Option<&'m Keywords> {
    model.resolve(node).0.keywords()
}

/// The kind of value an untagged variant reads: its `type`.
fn kind<'m>(model: &'m Model, node: &'m Node) -> Option<&'m str> {
    let (node, _) = model.resolve(node);
    match shape(model, node) {
        Shape::Nullable(_) => None,
        _ => node.keywords()?.value("type")?.as_str(),
    }
}

fn range(min: Option<Bound>, max: Option<Bound>) -> String {
    let show = |v: Option<Bound>| v.map_or_else(|| "..".to_owned(), |v| v.to_string());
    format!("[{}, {}]", show(min), show(max))
}
