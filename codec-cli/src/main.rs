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
use codec::{Cache, StoreError};
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
        // An array as codec encodes ndarray arrays in JSON.
        Mode::Raw => Ok(match entry.array_type() {
            Some((dtype, shape)) => {
                serde_json::json!({ "dtype": dtype, "shape": shape, "data": untyped::base64(&payload) })
            }
            None => serde_json::json!({ "raw_base64": untyped::base64(&payload) }),
        }),
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

/// Rewrites the live entries into one new writer and deletes the other
/// files: see `Cache::compact` (safe against a crash midway; refused while
/// a handle has the folder open).
fn compact(dir: &Path) -> Result<ExitCode, StoreError> {
    drop(open(dir)?); // refuses a folder that is not a cache
    let bar = progress(0, "copying");
    let done = Cache::compact(dir, &[], |done, all| {
        bar.set_length(all as u64);
        bar.set_position(done as u64);
    })?;
    bar.finish_and_clear();
    for (key, e) in &done.dropped {
        eprintln!("warning: dropped damaged entry `{key}`: {e}");
    }
    println!(
        "compacted {} entries ({} damaged dropped), freed {} bytes",
        done.kept,
        done.dropped.len(),
        done.freed
    );
    Ok(ExitCode::SUCCESS)
}
