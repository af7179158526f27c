//! The canonical text of a model: the text whose hash is the fingerprint.
//!
//! Compact JSON with keys sorted, the order-free lists (`required`, `enum`)
//! sorted, annotations left out where they are keywords of a schema (never
//! where they are names: a field named `title` is a field), and every
//! reference replaced by what it describes. A reference back to a
//! definition being written (a recursive type) is written as
//! `{"$ref":"#N"}`, N counting the definitions between it and its target.
//! The text of a definition outside any cycle is the same wherever it is
//! used: it is kept, and one longer than [`LONG`] is written as its hash,
//! so a type used at many places of a deep graph costs its text once. A
//! recursive definition is written where it is, its references back
//! ending at the nearest definition of its cycle.
//!
//! Where an object leaves out fields equal to their default
//! (`#[codec(omit_defaults)]`), each field's default is written with it:
//! what a reader reads for a field left out is part of the value.
//!
//! A schema without references has the text earlier versions hashed: the
//! fingerprints of such types did not change when references began to be
//! followed.

use std::collections::HashMap;
use std::fmt::Write;

use serde_json::Value;
use sha2::{Digest, Sha256};

use super::{is_annotation, Keyword, Keywords, Model, Node};
use crate::schema::OMIT_DEFAULTS;

/// The length past which a definition's text is replaced by its hash.
const LONG: usize = 16 * 1024;

/// Writes the canonical texts of a model's nodes, keeping the text of each
/// definition that does not depend on where it is used.
pub struct Canonical<'m> {
    model: &'m Model,
    /// The texts of definitions that refer to no definition around them.
    known: HashMap<usize, String>,
    /// The definitions being written, outermost first.
    stack: Vec<usize>,
    /// Whether a definition was met deeper than [`DEEPEST`] inside others,
    /// and written as a mark rather than its text.
    pub too_deep: bool,
    /// Whether texts that do not depend on where they are written are
    /// kept (always, but in the test that checks that keeping them
    /// changes no text).
    remember: bool,
}

/// How many definitions deep a text is written, at most.
pub const DEEPEST: usize = 256;

/// No definition around the node written is referred to.
const FREE: usize = usize::MAX;

impl<'m> Canonical<'m> {
    /// A writer of `model`'s texts.
    pub fn new(model: &'m Model) -> Self {
        Canonical {
            model,
            known: HashMap::new(),
            stack: Vec::new(),
            too_deep: false,
            remember: true,
        }
    }

    /// The text of the whole schema.
    pub fn root(&mut self) -> String {
        let mut out = String::new();
        self.def(0, &mut out);
        out
    }

    /// The text of one node, as if it were a schema of its own.
    pub fn node(&mut self, node: &Node) -> String {
        let mut out = String::new();
        self.write(node, &mut out);
        out
    }

    /// Writes `node`; returns the outermost position of the stack that it
    /// refers back to, or [`FREE`].
    fn write(&mut self, node: &Node, out: &mut String) -> usize {
        match node {
            Node::Bool(b) => {
                out.push_str(if *b { "true" } else { "false" });
                FREE
            }
            Node::Ref(id) => self.def(*id, out),
            Node::Object(keywords) => {
                if let Some(inner) = keywords.transparent() {
                    return self.write(inner, out);
                }
                self.keywords(keywords, out)
            }
        }
    }

    fn keywords(&mut self, keywords: &Keywords, out: &mut String) -> usize {
        let omits = keywords.value(OMIT_DEFAULTS) == Some(&Value::Bool(true));
        let mut low = FREE;
        out.push('{');
        let mut first = true;
        for (key, keyword) in keywords.0.iter().filter(|(k, _)| !is_annotation(k)) {
            if !first {
                out.push(',');
            }
            first = false;
            write_key(key, out);
            match keyword {
                Keyword::Schema(node) => low = low.min(self.write(node, out)),
                Keyword::Schemas(nodes) => {
                    out.push('[');
                    for (i, node) in nodes.iter().enumerate() {
                        if i > 0 {
                            out.push(',');
                        }
                        low = low.min(self.write(node, out));
                    }
                    out.push(']');
                }
                Keyword::Named(nodes) => {
                    out.push('{');
                    for (i, (name, node)) in nodes.iter().enumerate() {
                        if i > 0 {
                            out.push(',');
                        }
                        write_key(name, out);
                        // Where fields equal to their default are left
                        // out, the default is what a reader reads for them.
                        let default = (omits && key == "properties")
                            .then(|| node.keywords().and_then(|k| k.value("default")))
                            .flatten();
                        if let Some(default) = default {
                            out.push_str("{\"default\":");
                            write_value(default, None, out);
                            out.push_str(",\"value\":");
                        }
                        low = low.min(self.write(node, out));
                        if default.is_some() {
                            out.push('}');
                        }
                    }
                    out.push('}');
                }
                Keyword::Value(value) => write_value(value, Some(key), out),
            }
        }
        out.push('}');
        low
    }

    fn def(&mut self, id: usize, out: &mut String) -> usize {
        if let Some(at) = self.stack.iter().position(|&d| d == id) {
            let _ = write!(out, "{{\"$ref\":\"#{}\"}}", self.stack.len() - 1 - at);
            return at;
        }
        if let Some(text) = self.known.get(&id) {
            out.push_str(text);
            return FREE;
        }
        let at = self.stack.len();
        if at >= DEEPEST {
            // A chain of types this long is no program's: a stored schema
            // made to exhaust the stack. Its text says so, and comparisons
            // with it fail (see `too_deep`).
            self.too_deep = true;
            out.push_str("{\"$deeper\":true}");
            return FREE;
        }
        self.stack.push(id);
        let mut text = String::new();
        let model = self.model;
        let low = self.write(&model.def(id).node, &mut text);
        self.stack.pop();
        if low < at {
            // Refers to a definition around it: its text depends on where
            // it is written.
            out.push_str(&text);
            return low;
        }
        if low != FREE {
            // Recursive: written inside another definition of its cycle,
            // its references back end sooner, so it is written where it
            // is, each time (a back reference is never to a kept text).
            out.push_str(&text);
            return FREE;
        }
        if text.len() > LONG {
            let digest = Sha256::digest(text.as_bytes());
            text = String::from("{\"$sha256\":\"");
            for b in digest {
                let _ = write!(text, "{b:02x}");
            }
            text.push_str("\"}");
        }
        out.push_str(&text);
        if self.remember {
            self.known.insert(id, text);
        }
        FREE
    }
}

fn write_key(key: &str, out: &mut String) {
    out.push_str(&Value::from(key).to_string());
    out.push(':');
}

/// A keyword's data, keys sorted, and the items of `required` and `enum`
/// sorted (their order means nothing).
fn write_value(value: &Value, key: Option<&str>, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, k) in keys.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_key(k, out);
                write_value(&map[*k], Some(k), out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            let mut parts: Vec<String> = items
                .iter()
                .map(|item| {
                    let mut s = String::new();
                    write_value(item, None, &mut s);
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
    use serde_json::json;

    use super::*;

    /// The text with nothing kept, every definition written again.
    fn unremembered(schema: &Value) -> String {
        let model = Model::new(schema);
        let mut canonical = Canonical::new(&model);
        canonical.remember = false;
        canonical.root()
    }

    #[test]
    fn a_kept_text_is_the_text_written_again_wherever_it_is_used() {
        // `A` and `B` refer to each other, and the root holds each: `B`
        // written inside `A` refers back to `A`, so its text there is not
        // its text at the root.
        let schema = json!({
            "type": "object",
            "properties": {
                "a": {"$ref": "#/$defs/A"},
                "b": {"$ref": "#/$defs/B"},
                "c": {"$ref": "#/$defs/C"},
                "d": {"items": {"$ref": "#/$defs/C"}, "type": "array"},
            },
            "$defs": {
                "A": {"type": "object", "properties": {"b": {"anyOf": [{"$ref": "#/$defs/B"}, {"type": "null"}]}}},
                "B": {"type": "object", "properties": {"a": {"anyOf": [{"$ref": "#/$defs/A"}, {"type": "null"}]}, "c": {"$ref": "#/$defs/C"}}},
                "C": {"type": "object", "properties": {"n": {"type": "integer"}}},
            },
        });
        let model = Model::new(&schema);
        assert_eq!(Canonical::new(&model).root(), unremembered(&schema));
        // A node's text alone, too, after the whole was written.
        let mut canonical = Canonical::new(&model);
        let _ = canonical.root();
        let b = model.def(2);
        assert_eq!(canonical.node(&b.node), {
            let mut fresh = Canonical::new(&model);
            fresh.remember = false;
            fresh.node(&b.node)
        });
    }
}
