//! How a reader with the new schema takes an old value, in the two forms
//! the properties compare: the value with every name the new schema knows
//! by an alias written under its current name (what the `jsonschema`
//! validator then judges in place of decoding), and what the value means
//! (keyed by the names the old value itself carries, bytes apart from text,
//! fields the reader ignores left out).

use serde_json::{json, Map, Value};

/// An old value as the new schema reads it.
pub struct Read {
    /// The value with aliases replaced by the names they stand for.
    pub renamed: Value,
    /// What the reader takes from the value.
    pub meaning: Value,
}

/// Reads `value` with `root`'s root type, or says where the shapes part.
pub fn read(root: &Value, value: &Value) -> Result<Read, String> {
    Reader { root }.node(root, value, 0)
}

/// Whether every part of `new` (a value as the new schema reads it) means
/// what the same part of `old` (as the old schema reads it) means. Fields
/// the new reader leaves out are not compared: dropping a field is codec's
/// compatible removal.
pub fn same_meaning(new: &Value, old: &Value) -> bool {
    match (new, old) {
        (Value::Object(n), Value::Object(o)) => n
            .iter()
            .all(|(k, nv)| o.get(k).is_some_and(|ov| same_meaning(nv, ov))),
        (Value::Array(n), Value::Array(o)) => {
            n.len() == o.len() && n.iter().zip(o).all(|(a, b)| same_meaning(a, b))
        }
        (Value::Number(n), Value::Number(o)) => n.as_f64() == o.as_f64(),
        (n, o) => n == o,
    }
}

struct Reader<'a> {
    root: &'a Value,
}

fn aliases(schema: &Value, key: &str) -> Vec<Value> {
    schema
        .get(key)
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
}

impl<'a> Reader<'a> {
    fn node(&self, node: &'a Value, value: &Value, depth: usize) -> Result<Read, String> {
        if depth > 200 {
            return Err("too deep".into());
        }
        let same = || {
            Ok(Read {
                renamed: value.clone(),
                meaning: value.clone(),
            })
        };
        if let Some(r) = node.get("$ref").and_then(Value::as_str) {
            let def = if r == "#" {
                self.root
            } else {
                let name = r.trim_start_matches("#/$defs/");
                self.root
                    .get("$defs")
                    .and_then(|d| d.get(name))
                    .ok_or(format!("no type {r}"))?
            };
            return self.node(def, value, depth + 1);
        }
        let Some(obj) = node.as_object() else {
            return if node == &json!(false) {
                Err("no value fits `false`".into())
            } else {
                same()
            };
        };
        if let Some(values) = obj.get("enum").and_then(Value::as_array) {
            if values.contains(value) {
                return same();
            }
            let renamed = obj
                .get("x-codec-value-aliases")
                .and_then(Value::as_object)
                .and_then(|a| {
                    a.iter()
                        .find(|(_, names)| names.as_array().is_some_and(|n| n.contains(value)))
                        .map(|(to, _)| json!(to))
                });
            return match renamed {
                Some(renamed) => Ok(Read {
                    renamed,
                    meaning: value.clone(),
                }),
                None => Err(format!(
                    "{value} is not one of {}",
                    Value::Array(values.clone())
                )),
            };
        }
        if let Some(c) = obj.get("const") {
            if c == value {
                return same();
            }
            if aliases(node, "x-codec-aliases").contains(value) {
                return Ok(Read {
                    renamed: c.clone(),
                    meaning: value.clone(),
                });
            }
            return Err(format!("{value} is not {c}"));
        }
        if let Some(variants) = obj.get("anyOf").and_then(Value::as_array) {
            let mut errors = Vec::new();
            for v in variants {
                match self.node(v, value, depth + 1) {
                    Ok(read) => return Ok(read),
                    Err(e) => errors.push(e),
                }
            }
            return Err(format!("no variant reads {value}: {}", errors.join("; ")));
        }
        if let Some(variants) = obj.get("oneOf").and_then(Value::as_array) {
            return self.tagged(obj, variants, value, depth);
        }
        match (obj.get("type").and_then(Value::as_str), value) {
            (Some("object"), Value::Object(fields)) => self.object(obj, fields, depth),
            (Some("array"), Value::Array(items)) => self.array(obj, items, depth),
            (Some("string"), Value::String(_)) if obj.contains_key("contentEncoding") => Ok(Read {
                renamed: value.clone(),
                meaning: json!({ "bytes": value }),
            }),
            (Some("string"), Value::String(_))
            | (Some("boolean"), Value::Bool(_))
            | (Some("null"), Value::Null) => same(),
            (Some("integer"), Value::Number(n)) if n.is_i64() || n.is_u64() => same(),
            (Some("number"), Value::Number(_)) => same(),
            (None, _) => same(),
            (Some(ty), _) => Err(format!("{value} is not {ty}")),
        }
    }

    /// A tagged union: the variant by its tag (or a former name of it).
    fn tagged(
        &self,
        obj: &'a Map<String, Value>,
        variants: &'a [Value],
        value: &Value,
        depth: usize,
    ) -> Result<Read, String> {
        let tag_field = obj
            .get("discriminator")
            .and_then(|d| d.get("propertyName"))
            .and_then(Value::as_str);
        // The tag: a property of a map variant, the first element of an array one.
        let tag_schema_of = |v: &'a Value| match tag_field {
            Some(t) => v.get("properties")?.get(t),
            None => v.get("prefixItems")?.get(0),
        };
        let tag = match tag_field {
            Some(t) => value.get(t),
            None => value.get(0),
        };
        let tag = tag.ok_or_else(|| format!("{value} has no tag"))?;
        let variant = variants
            .iter()
            .map(|v| self.resolve(v))
            .find(|v| {
                tag_schema_of(v).is_some_and(|s| {
                    s.get("const") == Some(tag) || aliases(s, "x-codec-aliases").contains(tag)
                })
            })
            .ok_or_else(|| format!("no variant is tagged {tag}"))?;
        self.node(variant, value, depth + 1)
    }

    fn resolve(&self, v: &'a Value) -> &'a Value {
        match v.get("$ref").and_then(Value::as_str) {
            Some("#") => self.root,
            Some(r) => &self.root["$defs"][r.trim_start_matches("#/$defs/")],
            None => v,
        }
    }

    fn object(
        &self,
        obj: &'a Map<String, Value>,
        fields: &Map<String, Value>,
        depth: usize,
    ) -> Result<Read, String> {
        let mut renamed = Map::new();
        let mut meaning = Map::new();
        if let Some(props) = obj.get("properties").and_then(Value::as_object) {
            let closed = obj.get("additionalProperties") == Some(&json!(false));
            for (key, v) in fields {
                let field = props.get_key_value(key).or_else(|| {
                    props.iter().find(|(name, s)| {
                        !fields.contains_key(*name)
                            && aliases(s, "x-codec-aliases").contains(&json!(key))
                    })
                });
                match field {
                    Some((name, schema)) => {
                        let read = self
                            .node(schema, v, depth + 1)
                            .map_err(|e| format!("`{key}`: {e}"))?;
                        renamed.insert(name.clone(), read.renamed);
                        meaning.insert(key.clone(), read.meaning);
                    }
                    None if closed => return Err(format!("unknown field `{key}`")),
                    None => {}
                }
            }
            for r in obj
                .get("required")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                if let Some(r) = r.as_str()
                    && !renamed.contains_key(r)
                {
                    return Err(format!("field `{r}` missing"));
                }
            }
        } else {
            let values = obj
                .get("additionalProperties")
                .unwrap_or(&Value::Bool(true));
            for (key, v) in fields {
                let read = self.node(values, v, depth + 1)?;
                renamed.insert(key.clone(), read.renamed);
                meaning.insert(key.clone(), read.meaning);
            }
        }
        Ok(Read {
            renamed: Value::Object(renamed),
            meaning: Value::Object(meaning),
        })
    }

    fn array(
        &self,
        obj: &'a Map<String, Value>,
        items: &[Value],
        depth: usize,
    ) -> Result<Read, String> {
        let prefix = obj.get("prefixItems").and_then(Value::as_array);
        let rest = obj.get("items").unwrap_or(&Value::Bool(true));
        let mut renamed = Vec::new();
        let mut meaning = Vec::new();
        for (i, item) in items.iter().enumerate() {
            let schema = prefix.and_then(|p| p.get(i)).unwrap_or(rest);
            let read = self
                .node(schema, item, depth + 1)
                .map_err(|e| format!("[{i}]: {e}"))?;
            renamed.push(read.renamed);
            meaning.push(read.meaning);
        }
        Ok(Read {
            renamed: Value::Array(renamed),
            meaning: Value::Array(meaning),
        })
    }
}
