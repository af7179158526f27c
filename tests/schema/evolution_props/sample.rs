//! Values valid under a schema, as codec writes them: following `$ref`s,
//! integers near their bounds and 0, short strings, optional fields now and
//! then absent, recursion cut at a depth. A sampler given a target (the part
//! of the schema a change touched) steers every choice towards it and, at
//! the target, walks through its boundary values one sample after another.

use std::collections::HashSet;

use serde_json::{json, Map, Value};

use super::mutate::{bound, Dice, Path};
use super::shapes::PATTERNS;

/// Past this depth, values take the shortest way out: `None`, `[]`, no
/// optional field.
const DEPTH: usize = 6;

pub struct Sampler<'a> {
    root: &'a Value,
    target: Option<&'a [String]>,
    /// The `$defs` types from which the target can be reached.
    reaching: HashSet<String>,
    dice: Dice,
    /// The sample's number: which boundary value the target takes.
    k: usize,
}

impl<'a> Sampler<'a> {
    pub fn new(root: &'a Value, target: Option<&'a [String]>, seed: u64) -> Sampler<'a> {
        let mut reaching = HashSet::new();
        if let Some(t) = target
            && t.len() >= 2
            && t[0] == "$defs"
        {
            reaching.insert(t[1].clone());
            let defs = root.get("$defs").and_then(Value::as_object);
            loop {
                let before = reaching.len();
                for (name, def) in defs.into_iter().flatten() {
                    if !reaching.contains(name) && refs(def).iter().any(|r| reaching.contains(r)) {
                        reaching.insert(name.clone());
                    }
                }
                if reaching.len() == before {
                    break;
                }
            }
        }
        Sampler {
            root,
            target,
            reaching,
            dice: Dice::new(seed),
            k: 0,
        }
    }

    /// The `k`-th sample.
    pub fn sample(&mut self, k: usize) -> Value {
        self.k = k;
        self.value(self.root, &[], 0)
    }

    fn reaches(&self, node: &Value, path: &[String]) -> bool {
        let Some(target) = self.target else {
            return false;
        };
        let inside = target.starts_with(path) && !(path.is_empty() && target[0] == "$defs");
        inside || refs(node).iter().any(|r| self.reaching.contains(r))
    }

    fn at_target(&self, path: &[String]) -> bool {
        self.target == Some(path)
    }

    fn value(&mut self, node: &Value, path: &[String], depth: usize) -> Value {
        assert!(depth < 10 * DEPTH, "sampling does not end: {node}");
        if let Some(r) = node.get("$ref").and_then(Value::as_str) {
            let (def, path): (&Value, Path) = if r == "#" {
                (self.root, Vec::new())
            } else {
                let name = r.trim_start_matches("#/$defs/").to_owned();
                (&self.root["$defs"][&name], vec!["$defs".into(), name])
            };
            return self.value(def, &path, depth + 1);
        }
        let steer = depth <= DEPTH;
        let child = |key: &[&str]| {
            let mut p = path.to_vec();
            p.extend(key.iter().map(|k| (*k).to_owned()));
            p
        };
        if let Some(values) = node.get("enum").and_then(Value::as_array) {
            let i = if self.at_target(path) {
                self.k
            } else {
                self.dice.below(values.len())
            };
            return values[i % values.len()].clone();
        }
        if let Some(c) = node.get("const") {
            return c.clone();
        }
        for key in ["anyOf", "oneOf"] {
            if let Some(variants) = node.get(key).and_then(Value::as_array) {
                let paths: Vec<Path> = (0..variants.len())
                    .map(|i| child(&[key, &i.to_string()]))
                    .collect();
                let towards: Vec<usize> = (0..variants.len())
                    .filter(|&i| steer && self.reaches(&variants[i], &paths[i]))
                    .collect();
                let i = if !towards.is_empty() {
                    towards[self.dice.below(towards.len())]
                } else if depth > DEPTH {
                    // The way out: a `null`, else the first variant.
                    variants
                        .iter()
                        .position(|v| v.get("type") == Some(&json!("null")))
                        .unwrap_or(0)
                } else {
                    self.dice.below(variants.len())
                };
                return self.value(&variants[i], &paths[i], depth + 1);
            }
        }
        match node.get("type").and_then(Value::as_str) {
            Some("object") => self.object(node, path, depth),
            Some("array") => self.array(node, path, depth),
            Some("string") => self.string(node, path),
            Some("integer") => self.integer(node, path),
            Some("number") => self.number(node, path),
            Some("boolean") => json!(self.dice.chance(2)),
            Some("null") => Value::Null,
            _ => json!(self.dice.below(3)),
        }
    }

    fn object(&mut self, node: &Value, path: &[String], depth: usize) -> Value {
        let mut out = Map::new();
        let required: Vec<&str> = node
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        if let Some(props) = node.get("properties").and_then(Value::as_object) {
            for (name, schema) in props {
                let p = [path, &["properties".to_owned(), name.clone()]].concat();
                let present = required.contains(&name.as_str())
                    || (depth <= DEPTH && (self.reaches(schema, &p) || self.dice.chance(2)));
                if present {
                    out.insert(name.clone(), self.value(schema, &p, depth + 1));
                }
            }
        } else if let Some(values) = node.get("additionalProperties").filter(|v| v.is_object()) {
            let p = [path, &["additionalProperties".to_owned()]].concat();
            let n = self.length(values, &p, depth, 0, None);
            let integer_keys = node.get("propertyNames").is_some();
            for i in 0..n {
                let key = match (integer_keys, i) {
                    (true, 0) => "-1".to_owned(),
                    (true, _) => (i * 7).to_string(),
                    (false, _) => ["a", "", "title", "$ref", "7"][i % 5].to_owned(),
                };
                out.insert(key, self.value(values, &p, depth + 1));
            }
        }
        Value::Object(out)
    }

    /// How many elements an array (or entries a map) gets.
    fn length(
        &mut self,
        items: &Value,
        path: &[String],
        depth: usize,
        min: usize,
        max: Option<usize>,
    ) -> usize {
        let wanted = if depth > DEPTH {
            0
        } else if self.reaches(items, path) {
            1 + self.dice.below(2)
        } else if depth > 2 {
            self.dice.below(2)
        } else {
            self.dice.below(4)
        };
        wanted.max(min).min(max.unwrap_or(usize::MAX))
    }

    fn array(&mut self, node: &Value, path: &[String], depth: usize) -> Value {
        let min = node.get("minItems").and_then(Value::as_u64).unwrap_or(0) as usize;
        let max = node
            .get("maxItems")
            .and_then(Value::as_u64)
            .map(|m| m as usize);
        let mut out = Vec::new();
        if let Some(prefix) = node.get("prefixItems").and_then(Value::as_array) {
            for (i, item) in prefix.iter().enumerate() {
                if i >= min && depth > DEPTH {
                    break;
                }
                let p = [path, &["prefixItems".to_owned(), i.to_string()]].concat();
                out.push(self.value(item, &p, depth + 1));
            }
            return Value::Array(out);
        }
        let Some(items) = node.get("items").filter(|i| i.is_object()) else {
            return Value::Array(out);
        };
        let p = [path, &["items".to_owned()]].concat();
        let n = if depth <= DEPTH && self.at_target(path) && self.k.is_multiple_of(2) {
            // Sets meet sequences at duplicates: two equal elements.
            2.max(min).min(max.unwrap_or(2))
        } else {
            self.length(items, &p, depth, min, max)
        };
        let unique = node.get("uniqueItems") == Some(&json!(true));
        let mut tries = 0;
        while out.len() < n && tries < 4 * n + 4 {
            tries += 1;
            let v =
                if self.at_target(path) && !unique && !out.is_empty() && self.k.is_multiple_of(2) {
                    out[0].clone()
                } else {
                    self.value(items, &p, depth + 1)
                };
            if !(unique && out.contains(&v)) {
                out.push(v);
            }
        }
        Value::Array(out)
    }

    fn string(&mut self, node: &Value, path: &[String]) -> Value {
        let min = node.get("minLength").and_then(Value::as_u64).unwrap_or(0) as usize;
        let max = node
            .get("maxLength")
            .and_then(Value::as_u64)
            .map(|m| m as usize);
        let alphabet: Vec<char> = match node.get("pattern").and_then(Value::as_str) {
            Some(p) => PATTERNS
                .iter()
                .find(|(q, _)| *q == p)
                .map_or("a", |(_, a)| a)
                .chars()
                .collect(),
            None => "aZx 9é_".chars().collect(),
        };
        if node.get("contentEncoding").is_some() {
            return json!(["", "AAE=", "/w==", "aGk="][self.pick_index(path, 4)]);
        }
        let lengths = [
            max.unwrap_or(4),
            min,
            0,
            1,
            max.unwrap_or(8).saturating_sub(1),
            min + 1,
        ];
        let len = lengths[self.pick_index(path, lengths.len())]
            .max(min)
            .min(max.unwrap_or(usize::MAX));
        let s: String = (0..len).map(|_| *self.dice.pick(&alphabet)).collect();
        json!(s)
    }

    /// The index of a boundary candidate: the sample's own at the target,
    /// else a random one.
    fn pick_index(&mut self, path: &[String], n: usize) -> usize {
        if self.at_target(path) {
            self.k % n
        } else {
            self.dice.below(n)
        }
    }

    fn integer(&mut self, node: &Value, path: &[String]) -> Value {
        let lo = bound(node, "minimum")
            .unwrap_or(i64::MIN.into())
            .max(i64::MIN.into());
        let hi = bound(node, "maximum")
            .unwrap_or(u64::MAX.into())
            .min(u64::MAX.into());
        let step = bound(node, "multipleOf").unwrap_or(1);
        assert!(lo <= hi, "{node}");
        let candidates = [lo, hi, 0, lo + 1, hi - 1, 1, -1, 1000, -129, 256, 70000];
        let mut v = candidates[self.pick_index(path, candidates.len())].clamp(lo, hi);
        if step > 1 {
            v -= v.rem_euclid(step);
            if v < lo {
                v += step;
            }
        }
        let v = v.clamp(lo, hi);
        i64::try_from(v).map_or_else(|_| json!(v as u64), |v| json!(v))
    }

    fn number(&mut self, node: &Value, path: &[String]) -> Value {
        let candidates = [0.0, -1.0, 1.5, -2.5, 1e6, 3.0, 0.25, 100.0, 10.0];
        let mut v: f64 = candidates[self.pick_index(path, candidates.len())];
        if let Some(lo) = node.get("exclusiveMinimum").and_then(Value::as_f64)
            && v <= lo
        {
            v = lo + 0.5;
        }
        if let Some(hi) = node.get("exclusiveMaximum").and_then(Value::as_f64)
            && v >= hi
        {
            v = hi - 0.5;
        }
        json!(v)
    }
}

/// The `$defs` names a schema node refers to (not `#`: the root is where
/// every value starts, reached again only through itself).
fn refs(node: &Value) -> Vec<String> {
    let mut out = Vec::new();
    fn visit(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::Object(obj) => {
                for (k, child) in obj {
                    if k == "$defs" {
                        continue;
                    }
                    if k == "$ref"
                        && let Some(name) = child.as_str().and_then(|r| r.strip_prefix("#/$defs/"))
                    {
                        out.push(name.to_owned());
                    }
                    visit(child, out);
                }
            }
            Value::Array(items) => items.iter().for_each(|i| visit(i, out)),
            _ => {}
        }
    }
    visit(node, &mut out);
    out
}
