//! A store's files as one fuzz input, and what the store targets do with
//! a store made of hostile files: open it and read everything, as a user
//! and a maintainer would.
//!
//! An input is a list of files, each `name`, a newline, its length (4
//! bytes, little-endian) and its bytes (cut at the input's end).

#![allow(dead_code)] // each target uses a part

use std::sync::Arc;

use codec::store::backend::memory::Memory;
use codec::store::backend::Backend;
use codec::{Cache, CacheOptions};

/// The files of an input (names that are not object names are kept: the
/// backend refuses them).
pub fn files(mut data: &[u8]) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    while let Some(end) = data.iter().position(|&b| b == b'\n') {
        let name = String::from_utf8_lossy(&data[..end]).into_owned();
        data = &data[end + 1..];
        let len = match data.get(..4) {
            Some(len) => u32::from_le_bytes(len.try_into().unwrap()) as usize,
            None => data.len(),
        };
        data = data.get(4..).unwrap_or_default();
        let len = len.min(data.len());
        out.push((name, data[..len].to_vec()));
        data = &data[len..];
    }
    out
}

/// The input of `files` ([`files`] reads it back).
pub fn image<'a>(files: impl IntoIterator<Item = (&'a str, &'a [u8])>) -> Vec<u8> {
    let mut out = Vec::new();
    for (name, bytes) in files {
        out.extend_from_slice(name.as_bytes());
        out.push(b'\n');
        out.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
        out.extend_from_slice(bytes);
    }
    out
}

/// Options that build no checkpoint by themselves (the targets ask for one).
pub fn options() -> CacheOptions {
    CacheOptions::default().checkpoint_bytes(u64::MAX)
}

/// A store in memory holding `files`.
pub fn memory(files: &[(String, Vec<u8>)]) -> Arc<dyn Backend> {
    let memory = Memory::new();
    for (name, bytes) in files {
        let _ = memory.write(name, bytes, false);
    }
    Arc::new(memory)
}

/// Runs `f` on a fresh folder holding `files` (names that are not object
/// names skipped), and deletes it.
pub fn in_folder(files: &[(String, Vec<u8>)], f: impl FnOnce(&std::path::Path)) {
    let dir = tempfile::tempdir().expect("a temporary folder");
    for (name, bytes) in files {
        if codec::store::backend::check_name(name).is_err() {
            continue;
        }
        let path = dir.path().join(name);
        if let Some(parent) = path.parent() {
            let _ = std::fs::create_dir_all(parent);
        }
        let _ = std::fs::write(path, bytes);
    }
    f(dir.path());
}

/// Makes the panic hook report nothing, so that a panic caught inside
/// the store (arrow's reader on a damaged file, which the store reads as
/// damaged) does not end the run; a panic that reaches the target still
/// does, through libfuzzer's own catch.
pub fn quiet_panics() {
    static QUIET: std::sync::Once = std::sync::Once::new();
    QUIET.call_once(|| std::panic::set_hook(Box::new(|_| {})));
}

/// Reads everything of the store `cache` has open, writes to it, builds a
/// checkpoint and reads again: errors are fine, a panic is the bug.
pub fn exercise(cache: &Cache) {
    quiet_panics();
    let _ = cache.keys();
    let _ = cache.warnings();
    if let Ok(entries) = cache.entries() {
        for entry in entries.iter().take(32) {
            let _ = cache.get_bytes(&entry.key);
            let _ = cache.get::<codec::Value>(&entry.key);
            let _ = cache.get::<arrow_array::RecordBatch>(&entry.key);
            let _ = cache.get::<Vec<arrow_array::RecordBatch>>(&entry.key);
            let _ = cache.admin().entry_payload(entry);
            let _ = entry.array_type();
            if let Some(fingerprint) = &entry.fingerprint {
                let _ = cache.admin().writer_schema(fingerprint);
            }
        }
    }
    let _ = cache.get_bytes("a");
    let _ = cache.admin().verify_index();
    let _ = cache.put("fuzz", &7u32);
    let _ = cache.get::<u32>("fuzz");
    let _ = cache.admin().checkpoint();
    let _ = cache.admin().verify_index();
    let _ = cache.refresh();
    let _ = cache.keys();
}

/// Opens the store `backend` holds and [`exercise`]s it, then opens it
/// again after that.
pub fn open_and_exercise(backend: Arc<dyn Backend>) {
    if let Ok(cache) = Cache::open_backend(backend.clone(), options()) {
        exercise(&cache);
    }
    if let Ok(cache) = Cache::open_backend(backend, options()) {
        let _ = cache.keys();
        let _ = cache.admin().verify_index();
    }
}

/// Opens the folder `dir` and [`exercise`]s it.
pub fn open_folder_and_exercise(dir: &std::path::Path) {
    let options = options().adopt_folder(true);
    if let Ok(cache) = Cache::open_with(dir, options.clone()) {
        exercise(&cache);
    }
    if let Ok(cache) = Cache::open_with(dir, options) {
        let _ = cache.keys();
        let _ = cache.admin().verify_index();
    }
}
