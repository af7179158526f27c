//! `codec python`: the msgspec classes of the types whose schemas a folder
//! holds (the drift check's `schemas/`), without compiling Rust: what
//! `codec::python::Module` renders from the types themselves.

use std::path::{Path, PathBuf};

use codec::python::Module;

/// The module of the schema files `paths` name (a folder: its `.json`
/// files, by name), written to `out` (or returned to print). With `check`,
/// `out` is compared instead, and a difference is an error.
pub fn python(
    paths: &[PathBuf],
    out: Option<&Path>,
    check: bool,
) -> Result<Option<String>, String> {
    let mut files = Vec::new();
    for path in paths {
        if path.is_dir() {
            let listing = std::fs::read_dir(path)
                .map_err(|e| format!("cannot list {}: {e}", path.display()))?;
            let mut found: Vec<PathBuf> = listing
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|e| e == "json"))
                .collect();
            found.sort();
            files.extend(found);
        } else {
            files.push(path.clone());
        }
    }
    if files.is_empty() {
        return Err("no schema file (*.json) in the paths given; give the folder the drift check writes (schemas/)".into());
    }
    let mut module = Module::new();
    for file in &files {
        let text = std::fs::read_to_string(file)
            .map_err(|e| format!("cannot read {}: {e}", file.display()))?;
        let schema: serde_json::Value = serde_json::from_str(&text)
            .map_err(|e| format!("{} is not JSON: {e}", file.display()))?;
        module = module
            .add_schema(&schema)
            .map_err(|e| format!("{}: {e}", file.display()))?;
    }
    match out {
        Some(path) => {
            let given: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
            let command = format!(
                "run `codec python {} -o {}`",
                given.join(" "),
                path.display()
            );
            (module.update(!check).rewrite_with(command))
                .check(path)
                .map_err(|e| e.to_string())?;
            Ok(None)
        }
        None if check => Err("--check compares the file of -o; give one".into()),
        None => module.render().map(Some).map_err(|e| e.to_string()),
    }
}
