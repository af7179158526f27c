//! The canonical text of a model: the text whose hash is the fingerprint.
//!
//! Compact JSON with keys sorted, the order-free lists (`required`, `enum`)
//! sorted, annotations left out where they are keywords of a schema (never
//! where they are names: a field named `title` is a field), and every
//! reference replaced by what it describes. A reference back to a
//! definition being written (a recursive type) is written as
//! `{"$ref":"#N"}`, N counting the definitions between it and its target,
//! so a type's text is the same wherever it is used; a definition's text
//! longer than [`LONG`] is written as its hash, so a type used at many
//! places of a deep graph costs its text once.
//!
//! A schema without references has the text earlier versions hashed: the
//! fingerprints of such types did not change when references began to be
//! followed.

use std::collections::HashMap;
use std::fmt::Write;

use serde_json::Value;
use sha2::{Digest, Sha256};

use super::{is_annotation, Keyword, Keywords, Model, Node};

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
}

/// No definition around the node written is referred to.
const FREE: usize = usize::MAX;

impl<'m> Canonical<'m> {
    /// A writer of `model`'s texts.
    pub fn new(model: &'m Model) -> Self {
        Canonical {
            model,
            known: HashMap::new(),
            stack: Vec::new(),
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
                        low = low.min(self.write(node, out));
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
        if text.len() > LONG {
            let digest = Sha256::digest(text.as_bytes());
            text = String::from("{\"$sha256\":\"");
            for b in digest {
                let _ = write!(text, "{b:02x}");
            }
            text.push_str("\"}");
        }
        out.push_str(&text);
        self.known.insert(id, text);
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
