//! `codec`: inspect, read, verify and compact a codec cache folder.
//!
//! ```text
//! codec inspect DIR        keys, types, handlers, sizes, fingerprints
//! codec get DIR KEY        an entry as JSON, without its Rust type
//! codec verify DIR         reads every entry; exit code 1 if any is damaged
//! codec compact DIR        rewrites live entries, reclaims the space of the rest
//! ```

mod untyped;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use codec::store::{EntryInfo, Mode};
use codec::{Cache, CacheOptions, StoreError};
use indicatif::{ProgressBar, ProgressStyle};

#[derive(Parser)]
#[command(
    name = "codec",
    version,
    about = "Inspect, read, verify and compact codec cache folders"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// List the live entries: key, type, handler, size, fingerprint.
    Inspect { dir: PathBuf },
    /// Print an entry as JSON, decoded without its Rust type.
    Get { dir: PathBuf, key: String },
    /// Read every entry and report the damaged ones (exit code 1 if any).
    Verify { dir: PathBuf },
    /// Rewrite live entries into a new writer and delete the old files.
    /// Run it when no other process writes the folder.
    Compact { dir: PathBuf },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Inspect { dir } => inspect(&dir),
        Command::Get { dir, key } => get(&dir, &key),
        Command::Verify { dir } => verify(&dir),
        Command::Compact { dir } => compact(&dir),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

/// Opens an existing folder; a typo must not create an empty cache.
fn open(dir: &Path) -> Result<Cache, StoreError> {
    if !dir.join("codec-store.json").exists() {
        return Err(StoreError::Custom {
            message: format!(
                "{} is not a codec cache folder (no codec-store.json)",
                dir.display()
            ),
        });
    }
    Cache::open(dir)
}

fn progress(len: usize, what: &str) -> ProgressBar {
    let bar = ProgressBar::new(len as u64);
    bar.set_style(
        ProgressStyle::with_template("{msg} [{bar:30}] {pos}/{len} ({eta})")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    bar.set_message(what.to_owned());
    bar
}

fn inspect(dir: &Path) -> Result<ExitCode, StoreError> {
    let cache = open(dir)?;
    let entries = cache.entries()?;
    let total: u64 = entries.iter().map(|e| e.size).sum();
    println!(
        "{:<40} {:<28} {:<8} {:<7} {:>10}  fingerprint",
        "key", "type", "handler", "mode", "bytes"
    );
    for e in &entries {
        println!(
            "{:<40} {:<28} {:<8} {:<7} {:>10}  {}",
            e.key,
            e.type_name.as_deref().unwrap_or("-"),
            e.handler,
            format!("{:?}", e.mode).to_lowercase(),
            e.size,
            e.fingerprint.as_deref().unwrap_or("-")
        );
    }
    println!("{} entries, {total} bytes of payload", entries.len());
    for w in cache.warnings() {
        eprintln!("warning: {w}");
    }
    Ok(ExitCode::SUCCESS)
}

fn entry_json(cache: &Cache, entry: &EntryInfo) -> Result<serde_json::Value, String> {
    let payload = cache.entry_payload(entry).map_err(|e| e.to_string())?;
    match entry.mode {
        Mode::Json => {
            serde_json::from_slice(&payload).map_err(|e| format!("payload is not JSON: {e}"))
        }
        Mode::MsgPack => untyped::msgpack_to_json(&payload).map_err(|e| e.to_string()),
        Mode::Raw => Ok(serde_json::json!({ "raw_base64": untyped::base64(&payload) })),
    }
}

fn get(dir: &Path, key: &str) -> Result<ExitCode, StoreError> {
    let cache = open(dir)?;
    let Some(entry) = cache.entries()?.into_iter().find(|e| e.key == key) else {
        eprintln!("no entry `{key}` in {}", dir.display());
        return Ok(ExitCode::from(1));
    };
    match entry_json(&cache, &entry) {
        Ok(value) => {
            println!(
                "{}",
                serde_json::to_string_pretty(&value).unwrap_or_default()
            );
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            eprintln!("entry `{key}`: {e}");
            Ok(ExitCode::from(1))
        }
    }
}

fn verify(dir: &Path) -> Result<ExitCode, StoreError> {
    let cache = open(dir)?;
    let entries = cache.entries()?;
    let bar = progress(entries.len(), "verifying");
    let mut problems = cache.warnings();
    for entry in &entries {
        if let Err(e) = entry_json(&cache, entry) {
            problems.push(format!("entry `{}`: {e}", entry.key));
        }
        if let Some(fp) = &entry.fingerprint {
            if cache.writer_schema(fp)?.is_none() {
                problems.push(format!(
                    "entry `{}`: its writer schema schemas/{fp}.json is missing",
                    entry.key
                ));
            }
        }
        bar.inc(1);
    }
    bar.finish_and_clear();
    for p in &problems {
        println!("{p}");
    }
    println!(
        "{} entries checked, {} problem(s)",
        entries.len(),
        problems.len()
    );
    Ok(if problems.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// Copies every live entry into a fresh writer (synced to disk), then deletes
/// the other writers' index files, then their data files. A crash before the
/// deletions leaves duplicates that resolve to the same values; a crash during
/// them leaves only files whose entries were already copied.
fn compact(dir: &Path) -> Result<ExitCode, StoreError> {
    let old = open(dir)?;
    let entries = old.entries()?;
    let new = Cache::open_with(
        dir,
        CacheOptions {
            fsync: true,
            ..CacheOptions::default()
        },
    )?;
    let bar = progress(entries.len(), "copying");
    let mut skipped = 0;
    for entry in &entries {
        match old.entry_payload(entry) {
            Ok(payload) => new.put_entry_payload(entry, &payload)?,
            Err(e) => {
                eprintln!("warning: dropping damaged entry `{}`: {e}", entry.key);
                skipped += 1;
            }
        }
        bar.inc(1);
    }
    bar.finish_and_clear();
    let keep = new.writer_id().to_owned();
    let mut freed = 0u64;
    let read_dir = |d: &Path| {
        std::fs::read_dir(d).map_err(|e| StoreError::Io {
            path: d.to_owned(),
            source: e,
        })
    };
    for pass in [dir.to_owned(), dir.join("data")] {
        for file in read_dir(&pass)? {
            let file = file.map_err(|e| StoreError::Io {
                path: pass.clone(),
                source: e,
            })?;
            let name = file.file_name().to_string_lossy().into_owned();
            let is_index = name.ends_with("-info.jsonl");
            let in_data = pass.ends_with("data");
            if (is_index || in_data) && !name.starts_with(&keep) {
                freed += file.metadata().map(|m| m.len()).unwrap_or(0);
                std::fs::remove_file(file.path()).map_err(|e| StoreError::Io {
                    path: file.path(),
                    source: e,
                })?;
            }
        }
    }
    println!(
        "compacted {} entries ({skipped} damaged dropped), freed {freed} bytes",
        entries.len() - skipped
    );
    Ok(ExitCode::SUCCESS)
}
