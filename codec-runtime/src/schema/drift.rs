//! The drift check: compares the schemas of registered types with committed
//! files, so a change to a stored type's wire shape never lands unnoticed.
//!
//! ```no_run
//! #[derive(codec::Codec)]
//! #[codec(name = "Settings", version = 1)]
//! struct Settings { port: u16 }
//!
//! // In a test: fails on any difference from schemas/Settings.json.
//! codec::schema::DriftCheck::new("schemas").add::<Settings>().run().unwrap();
//! ```
//!
//! With the environment variable `CODEC_UPDATE_SCHEMAS=1`, files are written
//! instead: new ones, and changed ones whose changes are all compatible. A
//! breaking change is refused even then, unless the type's
//! `#[codec(version = N)]` was raised above the committed file's.

use std::fmt;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::diff::diff;
use super::VERSION;
use crate::codec::Codec;

/// The environment variable that makes [`DriftCheck::run`] rewrite schema files.
pub const UPDATE_ENV: &str = "CODEC_UPDATE_SCHEMAS";

/// Compares the schemas of a list of types with the files of a folder.
pub struct DriftCheck {
    dir: PathBuf,
    entries: Vec<(String, Value)>,
    update: Option<bool>,
}

/// What the drift check found: one line per problem, with the fix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DriftError {
    /// Each problem, in words.
    pub problems: Vec<String>,
}

impl fmt::Display for DriftError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "schema drift in {} type(s):", self.problems.len())?;
        for p in &self.problems {
            writeln!(f, "- {p}")?;
        }
        Ok(())
    }
}

impl std::error::Error for DriftError {}

impl DriftCheck {
    /// A check of the files in `dir` (`<wire name>.json` each).
    pub fn new(dir: impl AsRef<Path>) -> Self {
        DriftCheck {
            dir: dir.as_ref().to_owned(),
            entries: Vec::new(),
            update: None,
        }
    }

    /// Whether to rewrite files, overriding the [`UPDATE_ENV`] variable.
    pub fn update(mut self, update: bool) -> Self {
        self.update = Some(update);
        self
    }

    /// Registers `T`.
    pub fn add<T: Codec + 'static>(mut self) -> Self {
        let info = super::info::<T>();
        self.entries.push((info.name.clone(), info.schema.clone()));
        self
    }

    /// The file holding the schema of the type with this wire name.
    pub fn path_of(&self, name: &str) -> PathBuf {
        let file: String = name
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || "-_.".contains(c) {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        self.dir.join(format!("{file}.json"))
    }

    /// Compares every registered type, or rewrites files when [`UPDATE_ENV`] is set.
    pub fn run(&self) -> Result<(), DriftError> {
        let update = self
            .update
            .unwrap_or_else(|| update_requested(std::env::var_os(UPDATE_ENV)));
        let mut problems = Vec::new();
        for (name, schema) in &self.entries {
            if let Err(problem) = self.check_one(name, schema, update) {
                problems.push(problem);
            }
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(DriftError { problems })
        }
    }

    fn check_one(&self, name: &str, schema: &Value, update: bool) -> Result<(), String> {
        let path = self.path_of(name);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return if update {
                    write(&path, schema)
                } else {
                    Err(format!(
                        "`{name}`: no committed schema at {}; run the test with {UPDATE_ENV}=1 to create it",
                        path.display()
                    ))
                };
            }
            Err(e) => return Err(format!("`{name}`: cannot read {}: {e}", path.display())),
        };
        let committed: Value = serde_json::from_str(&text).map_err(|e| {
            format!(
                "`{name}`: {} is not JSON ({e}); restore it from version control",
                path.display()
            )
        })?;
        if committed == *schema {
            return Ok(());
        }
        let changes = diff(&committed, schema);
        if changes.is_empty() {
            // Not a change of the wire shape (a version, an alias, an
            // annotation): the file is still stale.
            if update {
                return write(&path, schema);
            }
            let mut edits = Vec::new();
            json_edits(&committed, schema, "", &mut edits);
            let listed: Vec<String> = edits.iter().map(|e| format!("    {e}")).collect();
            return Err(format!(
                "`{name}` differs from {}, though not in its wire shape:\n{}\n  run with {UPDATE_ENV}=1 to rewrite the file",
                path.display(),
                listed.join("\n")
            ));
        }
        let listed: Vec<String> = changes.iter().map(|c| format!("    {c}")).collect();
        let listed = listed.join("\n");
        let breaking = changes.iter().any(|c| c.is_breaking());
        let version = |v: &Value| v.get(VERSION).and_then(Value::as_u64).unwrap_or(0);
        if !update {
            let fix = if breaking {
                format!("a breaking change: raise #[codec(version = {})] on the type and run with {UPDATE_ENV}=1, or add a default or alias so old values still decode", version(&committed) + 1)
            } else {
                format!("all compatible: run with {UPDATE_ENV}=1 to accept them")
            };
            return Err(format!(
                "`{name}` differs from {}:\n{listed}\n  {fix}",
                path.display()
            ));
        }
        if breaking && version(schema) <= version(&committed) {
            return Err(format!(
                "`{name}`: breaking change refused even with {UPDATE_ENV}=1:\n{listed}\n  raise #[codec(version = {})] on the type to accept it, knowing that stored values of version {} will no longer load",
                version(&committed) + 1,
                version(&committed)
            ));
        }
        write(&path, schema)
    }
}

/// Whether the value of [`UPDATE_ENV`] asks for files to be rewritten: set,
/// and neither empty nor `0`.
fn update_requested(value: Option<std::ffi::OsString>) -> bool {
    value.is_some_and(|v| !v.is_empty() && v != "0")
}

/// Where `new` differs from `old`, as JSON pointers with both values
/// (`/x-codec-version: 1 -> 7`); object key order does not count.
fn json_edits(old: &Value, new: &Value, pointer: &str, out: &mut Vec<String>) {
    if old == new {
        return;
    }
    match (old, new) {
        (Value::Object(old), Value::Object(new)) => {
            let mut keys: Vec<&String> = old.keys().chain(new.keys()).collect();
            keys.sort();
            keys.dedup();
            for key in keys {
                let at = format!("{pointer}/{}", key.replace('~', "~0").replace('/', "~1"));
                match (old.get(key), new.get(key)) {
                    (Some(o), Some(n)) => json_edits(o, n, &at, out),
                    (Some(o), None) => out.push(format!("{at}: {} -> absent", short(o))),
                    (None, Some(n)) => out.push(format!("{at}: absent -> {}", short(n))),
                    (None, None) => {}
                }
            }
        }
        (Value::Array(o), Value::Array(n)) if o.len() == n.len() => {
            for (i, (o, n)) in o.iter().zip(n).enumerate() {
                json_edits(o, n, &format!("{pointer}/{i}"), out);
            }
        }
        _ => out.push(format!(
            "{}: {} -> {}",
            pointer_or_root(pointer),
            short(old),
            short(new)
        )),
    }
}

fn pointer_or_root(pointer: &str) -> &str {
    if pointer.is_empty() {
        "/"
    } else {
        pointer
    }
}

/// A value as compact JSON, cut to a readable length.
fn short(v: &Value) -> String {
    let text = v.to_string();
    match text.char_indices().nth(60) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    }
}

fn write(path: &Path, schema: &Value) -> Result<(), String> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    let mut text = serde_json::to_string_pretty(schema).map_err(|e| e.to_string())?;
    text.push('\n');
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_update_variable_is_off_unless_set_to_something_but_0() {
        let requested = |v: Option<&str>| update_requested(v.map(Into::into));
        assert!(!requested(None));
        assert!(!requested(Some("")));
        assert!(!requested(Some("0")));
        assert!(requested(Some("1")));
        assert!(requested(Some("yes")));
    }
}
