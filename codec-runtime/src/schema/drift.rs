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
//!
//! [`DriftCheck::all`] checks every type of the program with a
//! `#[codec(name = "...")]` or `#[codec(version = N)]`, so none is forgotten.
//! A type renamed with `#[codec(alias = "<old name>")]` is compared with the
//! file of its old name (the update moves it), and a file no checked type
//! claims is reported as stale: one check covers one folder.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::diff::{diff, Change};
use super::{registry, SchemaInfo, VERSION};
use crate::codec::Schema;

/// The environment variable that makes [`DriftCheck::run`] rewrite schema
/// files, `CODEC_UPDATE_SCHEMAS`.
#[doc(hidden)]
pub const UPDATE_ENV: &str = "CODEC_UPDATE_SCHEMAS";

/// Compares the schemas of a list of types with the files of a folder.
pub struct DriftCheck {
    dir: PathBuf,
    /// Each type: its Rust name and schema facts.
    entries: Vec<(&'static str, &'static SchemaInfo)>,
    update: Option<bool>,
}

/// What the drift check found: one line per problem, with the fix. Its
/// `Debug` is its message, so `run().unwrap()` in a test prints it as is.
#[derive(Clone, PartialEq, Eq)]
pub struct DriftError {
    /// Each problem, in words.
    pub problems: Vec<String>,
    /// Whether the check had nothing to compare (no type, no folder),
    /// rather than found types that drifted.
    pub checked_nothing: bool,
}

impl fmt::Display for DriftError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.checked_nothing {
            writeln!(f, "the schema drift check checks nothing:")?;
        } else {
            writeln!(f, "schema drift in {} type(s):", self.problems.len())?;
        }
        for p in &self.problems {
            writeln!(f, "- {p}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for DriftError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
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

    /// Whether to rewrite files, overriding the `CODEC_UPDATE_SCHEMAS`
    /// environment variable.
    pub fn update(mut self, update: bool) -> Self {
        self.update = Some(update);
        self
    }

    /// A check of the files in `dir` against every type of the program
    /// that has a `#[codec(name = "...")]` or a `#[codec(version = N)]`
    /// (generic types excepted: list them with [`DriftCheck::add`]).
    ///
    /// ```no_run
    /// #[derive(codec::Codec)]
    /// #[codec(name = "Settings", version = 1)]
    /// struct Settings { port: u16 }
    ///
    /// // In a test: checks Settings, and every other named type.
    /// codec::schema::DriftCheck::all("schemas").run().unwrap();
    /// ```
    ///
    /// A program has the types of the crates it links: an integration test
    /// (`tests/*.rs`) links its package's library only if it names an item
    /// of it. There, use `codec::drift_check!("schemas")`, which names the
    /// library. A check that finds no type fails rather than pass unchecked.
    pub fn all(dir: impl AsRef<Path>) -> Self {
        let mut check = Self::new(dir);
        for r in registry::registered().filter(|r| !r.is_codecs_own()) {
            check.push((r.rust_name)(), (r.info)());
        }
        check
    }

    /// Registers `T` (a type that borrows too: `ChunkRef<'static>`).
    pub fn add<T: Schema + 'static>(mut self) -> Self {
        self.push(std::any::type_name::<T>(), super::info::<T>());
        self
    }

    /// Registers a type by its facts.
    #[doc(hidden)]
    pub fn push(&mut self, rust_name: &'static str, info: &'static SchemaInfo) {
        if !self.entries.iter().any(|(r, _)| *r == rust_name) {
            self.entries.push((rust_name, info));
        }
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

    /// Compares every registered type, or rewrites files when
    /// `CODEC_UPDATE_SCHEMAS` is set.
    pub fn run(&self) -> Result<(), DriftError> {
        let update = self
            .update
            .unwrap_or_else(|| update_requested(std::env::var_os(UPDATE_ENV)));
        if let Some(problem) = self.nothing_to_check(update) {
            return Err(DriftError {
                problems: vec![problem],
                checked_nothing: true,
            });
        }
        let (edits, mut problems) = self.plan(update);
        if !problems.is_empty() {
            if update && !edits.is_empty() {
                problems.push(format!(
                    "nothing was written: {UPDATE_ENV}=1 rewrites the schema files all at once or not at all, and the problems above refuse it"
                ));
            }
            return Err(DriftError {
                problems,
                checked_nothing: false,
            });
        }
        for edit in &edits {
            edit.apply().map_err(|problem| DriftError {
                problems: vec![problem],
                checked_nothing: false,
            })?;
        }
        Ok(())
    }

    /// Whether an update may rewrite the files of these types, or the
    /// problems that refuse it: nothing is written. The folder's other
    /// files are not these types' business (a Python module of some of the
    /// types a drift check covers).
    #[doc(hidden)]
    pub fn may_update(&self) -> Result<(), DriftError> {
        let (_, problems) = self.plan_types(true);
        match problems.is_empty() {
            true => Ok(()),
            false => Err(DriftError {
                problems,
                checked_nothing: false,
            }),
        }
    }

    /// Checks every type and the folder: the edits an update makes (when
    /// `update`), and the problems found.
    fn plan(&self, update: bool) -> (Vec<Edit>, Vec<String>) {
        let (edits, mut problems) = self.plan_types(update);
        problems.extend(self.stale_files());
        (edits, problems)
    }

    /// [`DriftCheck::plan`] of the types only.
    fn plan_types(&self, update: bool) -> (Vec<Edit>, Vec<String>) {
        let mut problems = self.same_names();
        let mut edits = Vec::new();
        let mut checked = BTreeSet::new();
        for (_, info) in &self.entries {
            // Twins of one schema under one name have one file.
            if !checked.insert((&info.name, info.fingerprint)) {
                continue;
            }
            match self.check_one(info, update) {
                Ok(planned) => edits.extend(planned),
                Err(problem) => problems.push(problem),
            }
        }
        (edits, problems)
    }

    /// Why this check would pass without checking anything, if it would: it
    /// has no type, or (unless it may write files) no folder. A check that
    /// finds nothing fails, so that CI never stays green on a check that no
    /// longer runs.
    fn nothing_to_check(&self, update: bool) -> Option<String> {
        let dir = self.dir.display();
        if self.entries.is_empty() {
            return Some(format!(
                "no type to check against {dir}: this program has no type with a #[codec(name = \"...\")] \
                 or #[codec(version = N)], or does not link them. In an integration test (tests/), \
                 use codec::drift_check!(\"{dir}\"), which links your library's types into the test; \
                 or list the types with DriftCheck::new(\"{dir}\").add::<T>()"
            ));
        }
        if !update && !self.dir.is_dir() {
            let here = std::env::current_dir()
                .map(|d| format!(" (relative to {})", d.display()))
                .unwrap_or_default();
            return Some(format!(
                "the schema folder {dir} does not exist{here}: run the test with {UPDATE_ENV}=1 \
                 to create it with the schemas of the {} checked type(s), then commit it",
                self.entries.len()
            ));
        }
        None
    }

    /// Two Rust types under one wire name whose schemas differ: their
    /// stored values would mix, each read as the other. Types of one
    /// schema under one name (an owned type and its borrowing twin) are
    /// one stored type, checked once.
    fn same_names(&self) -> Vec<String> {
        let mut by_name: BTreeMap<&str, Vec<(&str, &SchemaInfo)>> = BTreeMap::new();
        for (rust, info) in &self.entries {
            by_name.entry(&info.name).or_default().push((rust, info));
        }
        by_name
            .into_iter()
            .filter(|(_, types)| types.iter().any(|(_, i)| i.fingerprint != types[0].1.fingerprint))
            .map(|(name, types)| {
                let listed: Vec<String> = types
                    .iter()
                    .map(|(rust, info)| format!("`{rust}` (schema {})", info.fingerprint))
                    .collect();
                format!(
                    "`{name}` is the wire name of {}, whose schemas differ: values stored by one would be read as the other; give all but one another #[codec(name = \"...\")], or make their fields the same",
                    listed.join(" and ")
                )
            })
            .collect()
    }

    /// The `.json` files of the folder that no checked type claims by its
    /// wire name or one of its aliases.
    fn stale_files(&self) -> Vec<String> {
        let Ok(listing) = std::fs::read_dir(&self.dir) else {
            return Vec::new();
        };
        let claimed: BTreeSet<PathBuf> = self
            .entries
            .iter()
            .flat_map(|(_, info)| {
                let own = self.path_of(&info.name);
                // A former name's file is claimed until the update moves it.
                let former = info.aliases.iter().map(|a| self.path_of(a));
                let former: Vec<PathBuf> = if own.exists() {
                    Vec::new()
                } else {
                    former.collect()
                };
                std::iter::once(own).chain(former)
            })
            .collect();
        let mut stale: Vec<PathBuf> = listing
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "json") && !claimed.contains(p))
            .collect();
        stale.sort();
        stale
            .into_iter()
            .map(|p| {
                format!(
                    "{} is stale: no checked type has this wire name; delete it if its type is gone, or check the type (a #[codec(name = \"...\")] with DriftCheck::all, or DriftCheck::add)",
                    p.display()
                )
            })
            .collect()
    }

    /// The file of a former name of a type whose own file does not exist yet.
    fn renamed_from(&self, info: &SchemaInfo) -> Option<PathBuf> {
        info.aliases
            .iter()
            .map(|alias| self.path_of(alias))
            .find(|p| p.exists())
    }

    fn check_one(&self, info: &SchemaInfo, update: bool) -> Result<Vec<Edit>, String> {
        let (name, schema) = (info.name.as_str(), &info.schema);
        let path = self.path_of(name);
        if !path.exists()
            && let Some(old) = self.renamed_from(info)
        {
            return self.check_renamed(info, &old, &path, update);
        }
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return if update {
                    Ok(vec![Edit::write(&path, schema)])
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
            return Ok(Vec::new());
        }
        let changes = diff(&committed, schema);
        if changes.is_empty() {
            // Not a change of the wire shape (a version, an alias, an
            // annotation): the file is still stale.
            if update {
                return Ok(vec![Edit::write(&path, schema)]);
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
        let listed = list(&changes);
        let breaking = changes.iter().any(|c| c.is_breaking());
        let version = |v: &Value| v.get(VERSION).and_then(Value::as_u64).unwrap_or(0);
        if !update {
            let fix = if breaking {
                breaking_fix(&changes, version(&committed))
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
        Ok(vec![Edit::write(&path, schema)])
    }

    /// A type whose schema is committed under a former name (`old`): the
    /// same rules as for a changed file, and the update moves the file.
    fn check_renamed(
        &self,
        info: &SchemaInfo,
        old: &Path,
        path: &Path,
        update: bool,
    ) -> Result<Vec<Edit>, String> {
        let name = &info.name;
        let text = std::fs::read_to_string(old)
            .map_err(|e| format!("`{name}`: cannot read {}: {e}", old.display()))?;
        let committed: Value = serde_json::from_str(&text).map_err(|e| {
            format!(
                "`{name}`: {} is not JSON ({e}); restore it from version control",
                old.display()
            )
        })?;
        let changes = diff(&committed, &info.schema);
        let breaking = changes.iter().any(Change::is_breaking);
        let version = |v: &Value| v.get(VERSION).and_then(Value::as_u64).unwrap_or(0);
        let listed = list(&changes);
        let moved = format!("{} (a former name) to {}", old.display(), path.display());
        if !update {
            let fix = if breaking {
                breaking_fix(&changes, version(&committed))
            } else {
                format!("run with {UPDATE_ENV}=1 to move the schema from {moved}")
            };
            return Err(format!(
                "`{name}` was renamed and differs from {}:\n{listed}\n  {fix}",
                old.display()
            ));
        }
        if breaking && version(&info.schema) <= version(&committed) {
            return Err(format!(
                "`{name}`: breaking change refused even with {UPDATE_ENV}=1:\n{listed}\n  raise #[codec(version = {})] on the type to accept it, knowing that stored values of version {} will no longer load",
                version(&committed) + 1,
                version(&committed)
            ));
        }
        Ok(vec![
            Edit::write(path, &info.schema),
            Edit::Remove(old.to_owned()),
        ])
    }
}

/// The changes, one per line, each breaking one followed by its fix.
fn list(changes: &[Change]) -> String {
    let mut lines = Vec::new();
    for c in changes {
        lines.push(format!("    {c}"));
        if let Some(fix) = &c.fix {
            lines.push(format!("      fix: {fix}"));
        }
    }
    lines.join("\n")
}

/// What to do about breaking changes to a committed schema of `version`:
/// the fixes that fit, and raising the version when the change is meant.
fn breaking_fix(changes: &[Change], version: u64) -> String {
    let raise = format!(
        "raise #[codec(version = {})] on the type and run with {UPDATE_ENV}=1, and stored values of version {version} will no longer load",
        version + 1
    );
    let unfixable: Vec<&str> = changes
        .iter()
        .filter(|c| c.is_breaking() && c.fix.is_none())
        .map(|c| c.path.as_str())
        .collect();
    if unfixable.is_empty() {
        format!("a breaking change: apply the fixes above so old values still decode; or, if the change is meant, {raise}")
    } else {
        format!(
            "a breaking change that no default or alias can make compatible ({}): restore the old shape, or {raise}",
            unfixable.join(", ")
        )
    }
}

/// Whether the value of [`UPDATE_ENV`] asks for files to be rewritten: set,
/// and neither empty nor `0`.
#[doc(hidden)]
pub fn update_requested(value: Option<std::ffi::OsString>) -> bool {
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

/// A change an update makes to the schema folder.
pub(crate) enum Edit {
    /// Writes a schema file.
    Write(PathBuf, String),
    /// Deletes the file of a type's former name.
    Remove(PathBuf),
}

impl Edit {
    fn write(path: &Path, schema: &Value) -> Edit {
        let mut text = serde_json::to_string_pretty(schema).unwrap_or_default();
        text.push('\n');
        Edit::Write(path.to_owned(), text)
    }

    /// Makes the change.
    pub(crate) fn apply(&self) -> Result<(), String> {
        match self {
            Edit::Write(path, text) => {
                if let Some(dir) = path.parent() {
                    std::fs::create_dir_all(dir)
                        .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
                }
                std::fs::write(path, text)
                    .map_err(|e| format!("cannot write {}: {e}", path.display()))
            }
            Edit::Remove(path) => std::fs::remove_file(path)
                .map_err(|e| format!("cannot delete {}: {e}", path.display())),
        }
    }
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
