//! Linking a package's library into its integration tests, for
//! `codec::drift_check!` and `codec::python_module!`.
//!
//! Registrations (`inventory`) reach a program only from the crates it
//! links, and an integration test links its package's library only once
//! it names an item of it. A drift check written in `tests/` that names
//! none would find none of the library's types and check nothing, so the
//! macro names the library itself: `extern crate <library> as _;`.

use std::path::Path;

use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;

/// `extern crate <library> as _;` when the crate being compiled is an
/// integration test or a benchmark of a package that has a library;
/// nothing otherwise (the library itself, its unit tests, binaries and
/// examples, or a package without a library).
pub fn expand() -> TokenStream {
    match package_library() {
        Some(name) => {
            let name = Ident::new(&name, Span::call_site());
            quote!(extern crate #name as _;)
        }
        None => TokenStream::new(),
    }
}

/// The crate name of the library of the package cargo is compiling, when
/// the crate being compiled is one of its integration tests or benchmarks
/// (cargo sets `CARGO_TARGET_TMPDIR` for those only).
fn package_library() -> Option<String> {
    std::env::var_os("CARGO_TARGET_TMPDIR")?;
    let dir = std::env::var_os("CARGO_MANIFEST_DIR")?;
    let package = std::env::var("CARGO_PKG_NAME").ok()?;
    let manifest = std::fs::read_to_string(Path::new(&dir).join("Cargo.toml")).ok()?;
    let lib = lib_table(&manifest);
    if lib.is_none() && !Path::new(&dir).join("src/lib.rs").exists() {
        return None;
    }
    let lib = lib.unwrap_or_default();
    // A library built only as a C library or a proc macro cannot be linked
    // as a Rust crate.
    if let Some(types) = value_of(&lib, "crate-type") {
        if !types.contains("\"lib\"") && !types.contains("\"rlib\"") {
            return None;
        }
    }
    let name = value_of(&lib, "name")
        .map(|v| v.trim_matches('"').to_owned())
        .unwrap_or(package);
    let name = name.replace('-', "_");
    // The integration test itself may bear the library's name only if
    // cargo let it; never link a crate into itself.
    let this = std::env::var("CARGO_CRATE_NAME").unwrap_or_default();
    (syn::parse_str::<Ident>(&name).is_ok() && name != this).then_some(name)
}

/// The lines of the manifest's `[lib]` table, if it has one. The manifest
/// is read by hand for these two keys: a TOML parser would be a dependency
/// of every user's build for a fallback that names the package otherwise.
fn lib_table(manifest: &str) -> Option<String> {
    let mut lines = manifest.lines().map(str::trim);
    lines.by_ref().find(|l| *l == "[lib]")?;
    let table: Vec<&str> = lines.take_while(|l| !l.starts_with('[')).collect();
    Some(table.join("\n"))
}

/// The value of `key = value` in a table's lines, as written.
fn value_of(table: &str, key: &str) -> Option<String> {
    table.lines().find_map(|line| {
        let (k, v) = line.split_once('=')?;
        (k.trim() == key).then(|| v.trim().to_owned())
    })
}

#[cfg(test)]
mod tests {
    use super::{lib_table, value_of};

    #[test]
    fn the_lib_table_is_read_for_its_name_and_crate_type() {
        let manifest = "[package]\nname = \"my-app\"\n\n[lib]\nname = \"core_lib\"\ncrate-type = [\"rlib\", \"cdylib\"]\n\n[dependencies]\nname = \"x\"\n";
        let lib = lib_table(manifest).unwrap();
        assert_eq!(value_of(&lib, "name").as_deref(), Some("\"core_lib\""));
        assert!(value_of(&lib, "crate-type").unwrap().contains("\"rlib\""));
        assert_eq!(lib_table("[package]\nname = \"a\"\n"), None);
    }
}
