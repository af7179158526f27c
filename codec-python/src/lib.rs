//! Python classes for codec types: a module of `msgspec.Struct`s that reads
//! and writes the Rust side's exact bytes, generated from the types' JSON
//! Schemas (so it could as well be generated from committed schema files).
//!
//! ```
//! #[derive(codec::Codec)]
//! struct Point { x: i64, y: i64 }
//!
//! let module = codec::python::Module::new().add::<Point>().render().unwrap();
//! assert!(module.contains("class Point(msgspec.Struct):\n"));
//! assert!(module.contains("\n    x: int\n    y: int\n"));
//! ```
//!
//! Structs become Structs (renamed keys through `msgspec.field(name=...)`,
//! `array_like=True`, `forbid_unknown_fields=True`, `omit_defaults=True`),
//! enums with data tagged Structs and their `typing.Union`, unit-only enums
//! `typing.Literal`s, newtypes aliases of what they wrap, `Option<T>`
//! `T | None` (defaulting to `None`, as codec reads a missing `Option`).
//! A field's default is the value msgspec decodes from the JSON the schema
//! gives under `"default"` (a literal, or a factory for mutable values).
//! Untagged enums are unions of their variants' types (`int | str`), which
//! codec, like msgspec, allows one per wire kind. Doc comments (the
//! schemas' `description`) are docstrings; `Decimal` is `decimal.Decimal`,
//! `codec::Raw` `msgspec.Raw`, an `ndarray` array a Struct per dtype and
//! number of dimensions, with `to_numpy()` and `from_numpy()`.
//!
//! What has no exact msgspec spelling (length bounds on bytes, a default
//! the schema does not give, ...) is an [`Error`] naming the type and the
//! field, never a class that reads other bytes. What msgspec reads but
//! cannot bound is said in a comment above the field: integers beyond 64
//! bits (`i128`, `u128`) and decimals; and above a type recursive through
//! unions and collections only, which mypy checks whole and msgspec reads
//! as `Any` where it recurs. `f32`s are float64s in Python.

mod defaults;
mod defs;
mod names;
mod ndarray;
mod notes;
mod render;
mod stored;

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use serde_json::Value;

use codec_runtime::schema::__tools::{self as tools, SchemaInfo};
use codec_runtime::schema::{DriftCheck, UPDATE_ENV};
use codec_runtime::{Codec, Fingerprint};
use stored::Identity;

/// The Python module of a set of codec types and the types they contain.
#[derive(Debug, Default, Clone)]
pub struct Module {
    /// Wire names of the types added, in order.
    roots: Vec<String>,
    /// Every definition, by wire name.
    defs: BTreeMap<String, Value>,
    /// The wire name, other names and schema fingerprint of each type
    /// added, by wire name.
    identities: BTreeMap<String, Identity>,
    /// Rewrite files in [`Module::check`], overriding [`UPDATE_ENV`].
    update: Option<bool>,
    /// Types that cannot be roots (standard types have no class).
    refused: Vec<String>,
    /// Wire names given to two types of different schemas.
    clashes: Vec<String>,
    /// The Rust types added, for the drift check of [`Module::schemas`].
    types: Vec<(&'static str, &'static SchemaInfo)>,
    /// The folder of the types' committed schemas, which an update must
    /// agree with.
    schemas: Option<PathBuf>,
    /// How [`Module::check`]'s errors say to write the file again, if not
    /// with [`UPDATE_ENV`].
    rewrite: Option<String>,
}

impl Module {
    /// An empty module.
    pub fn new() -> Module {
        Module::default()
    }

    /// The module of every type of the program that has a
    /// `#[codec(name = "...")]` or a `#[codec(version = N)]` (the types
    /// [`DriftCheck::all`](codec_runtime::schema::DriftCheck::all) checks), by wire
    /// name; add generic instantiations with [`Module::add`].
    ///
    /// In an integration test (`tests/*.rs`), use `codec::python_module!()`,
    /// which links your library's types into the test. A module with no
    /// type fails to render rather than check nothing.
    pub fn all() -> Module {
        let mut infos: Vec<(&'static str, &'static SchemaInfo)> = tools::registered().collect();
        infos.sort_by(|a, b| (&a.1.name, a.0).cmp(&(&b.1.name, b.0)));
        infos
            .into_iter()
            .fold(Module::new(), |m, (rust, info)| m.push(rust, info))
    }

    /// Adds `T` and the types it contains.
    pub fn add<T: Codec + 'static>(self) -> Module {
        self.push(
            std::any::type_name::<T>(),
            codec_runtime::schema::info::<T>(),
        )
    }

    /// Makes [`Module::check`]'s update agree with the drift check of the
    /// same types against the schema files of `dir`: the module is
    /// rewritten only when the schemas may be, so a breaking change the
    /// drift check refuses leaves both untouched.
    ///
    /// ```no_run
    /// #[test]
    /// fn python_classes_are_up_to_date() {
    ///     codec::python_module!().schemas("schemas").check("python/models.py").unwrap();
    /// }
    /// ```
    pub fn schemas(mut self, dir: impl AsRef<Path>) -> Module {
        self.schemas = Some(dir.as_ref().to_owned());
        self
    }

    /// Adds the type whose schema (as `codec::schema_of` gives it, or a
    /// drift check's file holds it) is `schema`, and the types it contains:
    /// a module from committed schema files, without the Rust types.
    pub fn add_schema(self, schema: &Value) -> Result<Module, Error> {
        let Some(name) = schema.get("title").and_then(Value::as_str) else {
            return Err(Error::new(
                "a schema without a \"title\", which names its type; give the schema as codec writes it".into(),
            ));
        };
        let fingerprint = Fingerprint::of_schema(schema);
        Ok(self.push_schema(name, schema, fingerprint))
    }

    fn push(mut self, rust_name: &'static str, info: &'static SchemaInfo) -> Module {
        if !info.nominal {
            self.refused.push(info.name.clone());
            return self;
        }
        self.types.push((rust_name, info));
        self.push_schema(&info.name, &info.schema, info.fingerprint)
    }

    fn push_schema(mut self, name: &str, schema: &Value, fingerprint: Fingerprint) -> Module {
        if let Some(known) = self.identities.get(name) {
            // One class per wire name: twins of one schema (an owned type
            // and its borrowing twin) are one; two schemas cannot be.
            if known.fingerprint != fingerprint.to_string() {
                let rust: Vec<String> = self
                    .types
                    .iter()
                    .filter(|(_, i)| i.name == name)
                    .map(|(r, _)| format!("`{r}`"))
                    .collect();
                let who = if rust.len() > 1 {
                    rust.join(" and ")
                } else {
                    "two types".to_owned()
                };
                self.clashes.push(format!(
                    "`{name}` is the wire name of {who}, whose schemas differ; give all but one another #[codec(name = \"...\")]"
                ));
            }
            return self;
        }
        let stored_schema = tools::stored_schema(schema);
        let legacy_fingerprint = tools::legacy_fingerprint(schema)
            .filter(|legacy| *legacy != fingerprint)
            .map(|legacy| legacy.to_string());
        let mut schema = schema.clone();
        let aliases = schema
            .get(tools::ALIASES)
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default();
        if let Some(obj) = schema.as_object_mut() {
            // The definitions known first stay: a linked type's over those
            // of a committed schema file that holds it too (and may hold
            // an older version of it).
            if let Some(Value::Object(defs)) = obj.remove("$defs") {
                for (name, def) in defs {
                    self.defs.entry(name).or_insert(def);
                }
            }
            obj.remove("$schema");
            obj.remove("title");
        }
        let pointer = format!("#/$defs/{}", name.replace('~', "~0").replace('/', "~1"));
        point_root_at(&mut schema, &pointer);
        self.defs.insert(name.to_owned(), schema);
        let identity = Identity {
            name: name.to_owned(),
            aliases,
            fingerprint: fingerprint.to_string(),
            legacy_fingerprint,
            schema: stored_schema,
        };
        self.identities.insert(name.to_owned(), identity);
        if !self.roots.iter().any(|r| r == name) {
            self.roots.push(name.to_owned());
        }
        self
    }

    /// What [`Module::check`]'s errors tell to do to write the file again
    /// (`codec python`'s command line), instead of setting [`UPDATE_ENV`].
    #[doc(hidden)]
    pub fn rewrite_with(mut self, how: impl Into<String>) -> Module {
        self.rewrite = Some(how.into());
        self
    }

    /// Whether [`Module::check`] rewrites a stale file, whatever
    /// [`UPDATE_ENV`] says.
    pub fn update(mut self, update: bool) -> Module {
        self.update = Some(update);
        self
    }

    /// The module's Python source: the types in dependency order. With
    /// [`Module::schemas`], the types whose schema files the folder holds
    /// and this program does not link are in it too (from their files), so
    /// it is the module `codec python` writes from the folder.
    pub fn render(&self) -> Result<String, Error> {
        match &self.schemas {
            Some(dir) => self.clone().with_committed(dir)?.render_linked(),
            None => self.render_linked(),
        }
    }

    /// Adds the type of each schema file in `dir` whose wire name no type
    /// added has.
    fn with_committed(mut self, dir: &Path) -> Result<Module, Error> {
        let listing = match std::fs::read_dir(dir) {
            Ok(listing) => listing,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(self),
            Err(e) => return Err(Error::new(format!("cannot list {}: {e}", dir.display()))),
        };
        let mut files: Vec<PathBuf> = (listing.filter_map(|e| e.ok().map(|e| e.path())))
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
            .collect();
        files.sort();
        for file in files {
            let read = std::fs::read_to_string(&file).map_err(|e| e.to_string());
            let schema =
                read.and_then(|t| serde_json::from_str::<Value>(&t).map_err(|e| e.to_string()));
            let schema = schema.map_err(|e| Error::new(format!("{}: {e}", file.display())))?;
            let named = schema.get("title").and_then(Value::as_str);
            if named.is_some_and(|name| !self.identities.contains_key(name)) {
                self = (self.add_schema(&schema))
                    .map_err(|e| Error::new(format!("{}: {e}", file.display())))?;
            }
        }
        Ok(self)
    }

    fn render_linked(&self) -> Result<String, Error> {
        if let Some(clash) = self.clashes.first() {
            return Err(Error::new(clash.clone()));
        }
        if let Some(name) = self.refused.first() {
            return Err(Error::new(format!(
                "`{name}` is not a derived type; add the types that hold it instead"
            )));
        }
        if self.roots.is_empty() {
            return Err(Error::new(
                "no type in the Python module: this program has no type with a \
                 #[codec(name = \"...\")] or #[codec(version = N)], or does not link them. \
                 In an integration test (tests/), use codec::python_module!(), which links your \
                 library's types into the test; or list the types with Module::new().add::<T>()"
                    .into(),
            ));
        }
        render::module(&self.defs, &self.roots, &self.identities)
    }

    /// Fails when the file at `path` is not what [`Module::render`] gives
    /// (or is missing); rewrites it instead when [`UPDATE_ENV`] is set (or
    /// [`Module::update`] says so).
    pub fn check(&self, path: impl AsRef<Path>) -> Result<(), Error> {
        let path = path.as_ref();
        let generated = self.render()?;
        let update = self
            .update
            .unwrap_or_else(|| tools::update_requested(std::env::var_os(UPDATE_ENV)));
        let committed = match std::fs::read_to_string(path) {
            Ok(text) => Some(text),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(Error::new(format!("cannot read {}: {e}", path.display()))),
        };
        if committed.as_deref() == Some(generated.as_str()) {
            return Ok(());
        }
        if update {
            self.may_update(path, committed.as_deref(), &generated)?;
            return write(path, &generated);
        }
        let how = match &self.rewrite {
            Some(how) => how.clone(),
            None => format!("run with {UPDATE_ENV}=1"),
        };
        Err(Error::new(match committed {
            None => format!("no Python module at {}; {how} to create it", path.display()),
            Some(text) => format!(
                "{} is not what the types generate ({}); {how} to rewrite it",
                path.display(),
                first_difference(&text, &generated)
            ),
        }))
    }
}

impl Module {
    /// Whether an update may rewrite the module at `path`: with
    /// [`Module::schemas`], when the drift check of the types would
    /// accept their schemas; without, when no class the file has changed
    /// its fingerprint (which only the schemas can judge).
    fn may_update(
        &self,
        path: &Path,
        committed: Option<&str>,
        generated: &str,
    ) -> Result<(), Error> {
        if let Some(dir) = &self.schemas {
            let mut check = DriftCheck::new(dir);
            for (rust, info) in &self.types {
                check.push(rust, info);
            }
            return match check.may_update() {
                Ok(()) => Ok(()),
                Err(e) => Err(Error::new(format!(
                    "{} was not rewritten: the schemas of its types cannot be updated either:\n{e}",
                    path.display()
                ))),
            };
        }
        let Some(committed) = committed else {
            return Ok(());
        };
        let before = stored::fingerprints(committed);
        let after = stored::fingerprints(generated);
        let changed: Vec<String> = before
            .iter()
            .filter_map(|(name, old)| {
                let new = after.get(name)?;
                (new != old).then(|| format!("`{name}` ({old} -> {new})"))
            })
            .collect();
        if changed.is_empty() {
            return Ok(());
        }
        Err(Error::new(format!(
            "{} was not rewritten: the schema of {} changed, and whether old values still read is for the schema drift check to say; \
             give the module the schema folder, Module::schemas(\"schemas\"), so that it is rewritten when the schemas may be",
            path.display(),
            changed.join(", ")
        )))
    }
}

/// A root schema's references to itself (`#`) as references to its
/// definition, now that it is one of many.
fn point_root_at(schema: &mut Value, pointer: &str) {
    match schema {
        Value::Object(map) => {
            for (key, value) in map.iter_mut() {
                match value {
                    Value::String(s) if key == "$ref" && s == "#" => *s = pointer.to_owned(),
                    other => point_root_at(other, pointer),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|i| point_root_at(i, pointer)),
        _ => {}
    }
}

fn write(path: &Path, text: &str) -> Result<(), Error> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| Error::new(format!("cannot create {}: {e}", dir.display())))?;
    }
    std::fs::write(path, text).map_err(|e| {
        Error::new(format!(
            "cannot write {}: {e}",
            PathBuf::from(path).display()
        ))
    })
}

/// `line 3: committed `a`, generated `b``.
fn first_difference(committed: &str, generated: &str) -> String {
    let mut old = committed.lines();
    let mut new = generated.lines();
    for line in 1.. {
        match (old.next(), new.next()) {
            (Some(a), Some(b)) if a == b => continue,
            (None, None) => break,
            (a, b) => {
                let show = |l: Option<&str>| l.map_or("the end".to_owned(), |l| format!("`{l}`"));
                return format!("line {line}: committed {}, generated {}", show(a), show(b));
            }
        }
    }
    "they differ in line endings".into()
}

/// A type that has no Python spelling yet, or a module file that cannot be
/// read or written: the message names the type and field, or the path. Its
/// `Debug` is its message, so `check(..).unwrap()` in a test prints it as is.
#[derive(Clone, PartialEq, Eq)]
pub struct Error {
    message: String,
}

impl Error {
    fn new(message: String) -> Error {
        Error { message }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}
