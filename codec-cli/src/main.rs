//! `codec`: inspect, read, verify, edit and compact a codec cache folder.
//!
//! ```text
//! codec inspect DIR [--prefix P] [--json]   keys, types, handlers, sizes, fingerprints
//! codec get DIR KEY                         an entry as JSON, without its Rust type
//! codec verify DIR [--rebuild-index]        reads every entry and the checkpoint; exit code 1 if any is damaged
//! codec remove DIR KEY...                   removes entries
//! codec clear DIR [--prefix P]              removes every entry (with the prefix)
//! codec compact DIR [--grace-secs S]        rewrites live entries, reclaims the space of the rest
//! codec reduce-size DIR [--max-bytes N] [--max-entries N] [--max-age 30d]
//!                                           removes the least recently used entries past the bounds
//! codec python SCHEMAS... [-o FILE] [--check]  msgspec classes of the types of committed schemas
//! ```
//!
//! DIR is a folder, `file:///path`, or with the `aws`, `gcp` or `azure`
//! feature a URL of object storage (`s3://bucket/prefix`), where `compact`
//! runs online; `--rebuild-index` needs a folder.
//!
//! Output to a closed pipe (`codec inspect DIR | head`) ends the command
//! quietly, with exit code 0.

mod error;
mod inspect;
mod location;
mod python;
mod untyped;

use std::io::{self, Write};
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use codec::store::{Admin, Bounds};
use codec::store::{EntryInfo, Mode};
use codec::{Cache, StoreError};
use indicatif::{ProgressBar, ProgressStyle};

use error::Failure;
use location::Location;
use untyped::Json;

#[derive(Parser)]
#[command(
    name = "codec",
    version,
    about = "Inspect, read, verify, edit and compact codec caches (folders, or URLs of object storage); write the Python classes of committed schemas"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// List the live entries: key, type, handler, size, fingerprint.
    Inspect {
        #[arg(value_parser = Location::parse)]
        dir: Location,
        /// Only the keys that start with this.
        #[arg(long)]
        prefix: Option<String>,
        /// One JSON object per entry and line, for scripts.
        #[arg(long)]
        json: bool,
    },
    /// Print an entry as JSON, decoded without its Rust type: map entries in
    /// their stored order, float32 in its shortest form; a map whose keys
    /// are not strings or integers as a list of [key, value] pairs.
    Get {
        #[arg(value_parser = Location::parse)]
        dir: Location,
        key: String,
    },
    /// Read every entry and the index checkpoint, and report the damaged
    /// ones (exit code 1 if any).
    Verify {
        #[arg(value_parser = Location::parse)]
        dir: Location,
        /// First build the index checkpoint again from the writers' logs
        /// (the source of truth), whatever state it is in.
        #[arg(long)]
        rebuild_index: bool,
    },
    /// Remove entries, for every reader (exit code 1 if one was absent).
    /// `codec compact` reclaims their space.
    Remove {
        #[arg(value_parser = Location::parse)]
        dir: Location,
        #[arg(required = true)]
        keys: Vec<String>,
    },
    /// Remove every entry, or those whose key starts with a prefix.
    /// `codec compact` reclaims their space.
    Clear {
        #[arg(value_parser = Location::parse)]
        dir: Location,
        /// Only the keys that start with this.
        #[arg(long)]
        prefix: Option<String>,
    },
    /// Rewrite live entries into a new writer and delete the old files.
    /// A folder: run it when no other process has the folder open. Object
    /// storage: it runs online, and deletes what an earlier compaction
    /// replaced once that is older than the grace period.
    Compact {
        #[arg(value_parser = Location::parse)]
        dir: Location,
        /// On object storage, seconds a handle may go without a refresh
        /// before the data an earlier compaction replaced is deleted (0
        /// when no other handle has the store open).
        #[arg(long, default_value_t = 3600)]
        grace_secs: u64,
    },
    /// Remove the least recently used entries until the store is within
    /// the bounds given, and entries not used for longer than `--max-age`;
    /// then reclaim their space (a folder: when no other process has it
    /// open, else `codec compact` does later; object storage: online).
    ReduceSize {
        #[arg(value_parser = Location::parse)]
        dir: Location,
        /// At most this many bytes of payload (suffixes K, M, G, T: 10G).
        #[arg(long, value_parser = parse_bytes)]
        max_bytes: Option<u64>,
        /// At most this many entries.
        #[arg(long)]
        max_entries: Option<usize>,
        /// Remove entries not used for this long: numbers with units ms,
        /// s, m, h, d (`30d`, `12h`, `1d12h`).
        #[arg(long, value_parser = parse_age)]
        max_age: Option<std::time::Duration>,
        /// On object storage, as for `compact`.
        #[arg(long, default_value_t = 3600)]
        grace_secs: u64,
    },
    /// Write the Python module of msgspec classes of the types whose JSON
    /// Schemas a folder holds (the drift check's `schemas/`), as
    /// `codec::python::Module` writes it from the Rust types.
    Python {
        /// Schema files, or folders of them.
        #[arg(required = true)]
        schemas: Vec<std::path::PathBuf>,
        /// The module's file (else it is printed).
        #[arg(short, long)]
        out: Option<std::path::PathBuf>,
        /// Compare the file of `-o` instead of writing it: exit code 1 if it
        /// differs (or the module cannot be generated).
        #[arg(long)]
        check: bool,
    },
}

type Outcome = Result<ExitCode, Failure>;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let mut out = io::BufWriter::new(io::stdout().lock());
    let result = match cli.command {
        Command::Inspect { dir, prefix, json } => {
            inspect::inspect(&mut out, &dir, prefix.as_deref(), json)
        }
        Command::Get { dir, key } => get(&mut out, &dir, &key),
        Command::Verify { dir, rebuild_index } => verify(&mut out, &dir, rebuild_index),
        Command::Remove { dir, keys } => remove(&mut out, &dir, &keys),
        Command::Clear { dir, prefix } => clear(&mut out, &dir, prefix.as_deref()),
        Command::Compact { dir, grace_secs } => compact(&mut out, &dir, grace_secs),
        Command::ReduceSize {
            dir,
            max_bytes,
            max_entries,
            max_age,
            grace_secs,
        } => {
            let mut bounds = Bounds::default();
            bounds.max_bytes = max_bytes;
            bounds.max_entries = max_entries;
            bounds.max_age = max_age;
            reduce_size(&mut out, &dir, &bounds, grace_secs)
        }
        Command::Python {
            schemas,
            out: file,
            check,
        } => match python::python(&schemas, file.as_deref(), check) {
            Ok(text) => out
                .write_all(text.unwrap_or_default().as_bytes())
                .map(|()| ExitCode::SUCCESS)
                .map_err(Failure::from),
            Err(e) => {
                warn(format_args!("error: {e}"));
                Ok(ExitCode::from(if check { 1 } else { 2 }))
            }
        },
    };
    let result = result.and_then(|code| {
        out.flush()?;
        Ok(code)
    });
    match result {
        Ok(code) => code,
        // The reader went away (`| head`): nothing left to tell it.
        Err(Failure::Output(e)) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        // The message and each of its causes, once.
        Err(e) => {
            warn(format_args!("error: {}", e.with_causes()));
            ExitCode::from(2)
        }
    }
}

/// A line on stderr; a closed stderr is no reason to stop.
fn warn(message: std::fmt::Arguments<'_>) {
    let _ = writeln!(io::stderr(), "{message}");
}

/// Opens an existing cache; a typo must not create an empty one.
fn open(dir: &Location) -> Result<Cache, Failure> {
    dir.open()
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

/// An entry's value as JSON; the error names the entry.
fn entry_json(cache: &Cache, entry: &EntryInfo) -> Result<Json, String> {
    // Store errors name the entry already; their Debug adds the causes.
    let stored = |e: StoreError| format!("{e:?}");
    let payload = || cache.admin().entry_payload(entry).map_err(stored);
    let named = |e: &dyn std::fmt::Display| format!("entry `{}`: {e}", entry.key);
    match entry.mode {
        // Read as any value, whatever type and handler wrote it.
        Mode::MsgPack => match cache.get::<codec::Value>(&entry.key).map_err(stored)? {
            Some(value) => Ok(Json::from(value)),
            None => Err(format!("entry `{}`: removed while it was read", entry.key)),
        },
        // JSON text keeps its numbers as written.
        Mode::Json => untyped::json_to_json(&payload()?).map_err(|e| named(&e)),
        // An array as codec encodes ndarray arrays in JSON.
        Mode::Raw => Ok(match entry.array_type() {
            Some((dtype, shape)) => Json::from(
                serde_json::json!({ "dtype": dtype, "shape": shape, "data": untyped::base64(&payload()?) }),
            ),
            None => Json::Object(vec![(
                "raw_base64".into(),
                Json::Str(untyped::base64(&payload()?)),
            )]),
        }),
    }
}

fn get(out: &mut impl Write, dir: &Location, key: &str) -> Outcome {
    let cache = open(dir)?;
    let Some(entry) = cache.entries()?.into_iter().find(|e| e.key == key) else {
        warn(format_args!("no entry `{key}` in {}", dir));
        return Ok(ExitCode::from(1));
    };
    let value = match cache.admin().has_handler(&entry.handler) {
        // Values of its own its payload holds the places of (`#values`):
        // the value, with their placeholders, and where they are stored.
        true if entry.info.contains_key("#values") => {
            values_json(&cache, &entry).and_then(|value| {
                let mut fields = stored_fields(&cache, &entry)?;
                fields.insert(0, ("value".to_owned(), value));
                Ok(Json::Object(fields))
            })
        }
        true => entry_json(&cache, &entry),
        false => stored_json(&cache, &entry),
    };
    match value {
        Ok(value) => {
            writeln!(out, "{}", value.pretty())?;
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            warn(format_args!("{e}"));
            Ok(ExitCode::from(1))
        }
    }
}

/// An entry whose payload holds the places of values their types'
/// handlers keep (`#values`): its value, each place shown as
/// `{"#value": n}`, the number of its token in `#values`.
fn values_json(cache: &Cache, entry: &EntryInfo) -> Result<Json, String> {
    fn name_places(value: codec::Value) -> codec::Value {
        use codec::Value;
        match value {
            Value::Ext(99, data) if data.len() == 8 => {
                let n = u32::from_be_bytes([data[0], data[1], data[2], data[3]]);
                Value::Map(vec![(Value::Str("#value".into()), Value::Int(n.into()))])
            }
            Value::Array(items) => Value::Array(items.into_iter().map(name_places).collect()),
            Value::Map(entries) => Value::Map(
                entries
                    .into_iter()
                    .map(|(k, v)| (name_places(k), name_places(v)))
                    .collect(),
            ),
            other => other,
        }
    }
    match cache.get::<codec::Value>(&entry.key) {
        Ok(Some(value)) => Ok(Json::from(name_places(value))),
        Ok(None) => Err(format!("entry `{}`: removed while it was read", entry.key)),
        Err(e) => Err(format!("{e:?}")),
    }
}

/// An entry of a handler this program does not have, as it is stored: the
/// handler's name, its info, and the bytes its dump recorded (checked),
/// in base64 when they are at most [`SHOWN_BYTES`] in all.
fn stored_json(cache: &Cache, entry: &EntryInfo) -> Result<Json, String> {
    stored_fields(cache, entry).map(Json::Object)
}

/// The fields of [`stored_json`].
fn stored_fields(cache: &Cache, entry: &EntryInfo) -> Result<Vec<(String, Json)>, String> {
    const SHOWN_BYTES: u64 = 1 << 20;
    let stored = |e: StoreError| format!("{e:?}");
    let info = codec::to_json(&entry.info).map_err(|e| format!("entry `{}`: {e}", entry.key))?;
    let info: serde_json::Value =
        serde_json::from_str(&info).map_err(|e| format!("entry `{}`: {e}", entry.key))?;
    let mut fields = vec![
        ("handler".to_owned(), Json::Str(entry.handler.clone())),
        (
            "type".to_owned(),
            entry.type_name.clone().map_or(Json::Null, Json::Str),
        ),
        ("info".to_owned(), Json::from(info)),
    ];
    let Some(parts) = &entry.parts else {
        fields.push((
            "note".to_owned(),
            Json::Str(format!(
                "stored by handler `{}` before entries recorded their bytes: only a program with that handler reads it",
                entry.handler
            )),
        ));
        return Ok(fields);
    };
    // Checked whole, shown when small.
    let total: u64 = parts.iter().map(|p| p.len).sum();
    let data = match total <= SHOWN_BYTES {
        true => Some(cache.admin().entry_bytes(entry).map_err(stored)?),
        false => {
            cache.admin().check_entry_bytes(entry).map_err(stored)?;
            None
        }
    };
    let listed = parts
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let mut part = vec![("file".to_owned(), Json::Str(p.file.clone()))];
            if let Some(offset) = p.offset {
                part.push(("offset".to_owned(), Json::Number(offset.to_string())));
            }
            part.push(("len".to_owned(), Json::Number(p.len.to_string())));
            if let Some(data) = &data {
                part.push(("base64".to_owned(), Json::Str(untyped::base64(&data[i]))));
            }
            Json::Object(part)
        })
        .collect();
    fields.push(("parts".to_owned(), Json::Array(listed)));
    Ok(fields)
}

fn verify(out: &mut impl Write, dir: &Location, rebuild_index: bool) -> Outcome {
    drop(open(dir)?); // refuses a folder that is not a cache
    if rebuild_index {
        let lines = Admin::rebuild_index(dir.folder("--rebuild-index")?)?;
        writeln!(out, "index checkpoint rebuilt from {lines} log lines")?;
    }
    let cache = open(dir)?;
    let mut problems = Vec::new();
    if let Err(e) = cache.admin().verify_index() {
        problems.push(format!("{e:?}"));
    }
    let entries = cache.entries()?;
    let bar = progress(entries.len(), "verifying");
    problems.extend(cache.warnings());
    // Entries of handlers this program does not have, written before
    // entries recorded their bytes: only their handler checks them.
    let mut unchecked = Vec::new();
    for entry in &entries {
        if let Err(e) = cache.admin().check_entry_bytes(entry) {
            problems.push(format!("{e:?}"));
        } else if cache.admin().has_handler(&entry.handler) {
            if let Err(e) = entry_json(&cache, entry) {
                problems.push(e);
            }
        } else if entry.parts.is_none() {
            unchecked.push(format!(
                "entry `{}`: stored by handler `{}` before entries recorded their bytes; a program with that handler checks it",
                entry.key, entry.handler
            ));
        }
        if let Some(fp) = &entry.fingerprint {
            if cache.admin().writer_schema(fp)?.is_none() {
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
        writeln!(out, "{p}")?;
    }
    for u in &unchecked {
        writeln!(out, "{u}")?;
    }
    write!(
        out,
        "{} entries checked, {} problem(s)",
        entries.len() - unchecked.len(),
        problems.len()
    )?;
    if !unchecked.is_empty() {
        write!(out, ", {} left to their handler", unchecked.len())?;
    }
    writeln!(out)?;
    Ok(if problems.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn remove(out: &mut impl Write, dir: &Location, keys: &[String]) -> Outcome {
    let cache = open(dir)?;
    let mut missing = false;
    for key in keys {
        if cache.remove(key)? {
            writeln!(out, "removed `{key}`")?;
        } else {
            warn(format_args!("no entry `{key}` in {}", dir));
            missing = true;
        }
    }
    Ok(if missing {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

fn clear(out: &mut impl Write, dir: &Location, prefix: Option<&str>) -> Outcome {
    let cache = open(dir)?;
    let removed = match prefix {
        None => cache.clear()?,
        Some(prefix) => {
            let mut removed = 0;
            for key in cache.keys()?.iter().filter(|k| k.starts_with(prefix)) {
                removed += usize::from(cache.remove(key)?);
            }
            removed
        }
    };
    writeln!(
        out,
        "removed {removed} entries; `codec compact` reclaims their space"
    )?;
    Ok(ExitCode::SUCCESS)
}

/// Rewrites the live entries into one new writer and deletes the other
/// files: in a folder `Admin::compact` (safe against a crash midway), or
/// `Admin::compact_online` while another handle has it open; on object
/// storage `Admin::compact_online` (committed by compare-and-swap). What
/// an online compaction retires is deleted by a later one after
/// `grace_secs`.
fn compact(out: &mut impl Write, dir: &Location, grace_secs: u64) -> Outcome {
    let cache = open(dir)?; // refuses a location that is not a cache
    let bar = progress(0, "copying");
    let shown = |done: usize, all: usize| {
        bar.set_length(all as u64);
        bar.set_position(done as u64);
    };
    let grace = std::time::Duration::from_secs(grace_secs);
    let done = match dir {
        Location::Folder(folder) => {
            drop(cache);
            match Admin::compact(folder, &[], shown) {
                Err(StoreError::InUse { .. }) => {
                    writeln!(
                        out,
                        "the folder is open elsewhere: compacted online, what it retired is \
                         deleted by a compaction {grace_secs} s from now or later"
                    )?;
                    open(dir)?.admin().compact_online(grace, shown)?
                }
                done => done?,
            }
        }
        Location::Url(_) => cache.admin().compact_online(grace, shown)?,
    };
    bar.finish_and_clear();
    for (key, e) in &done.dropped {
        warn(format_args!(
            "warning: dropped damaged entry `{key}`: {e:?}"
        ));
    }
    let change = match done.size_before.checked_sub(done.size_after) {
        Some(0) => "nothing to reclaim".to_owned(),
        Some(freed) => format!("freed {freed} bytes"),
        None => format!("grew by {} bytes", done.size_after - done.size_before),
    };
    writeln!(
        out,
        "compacted {} entries ({} damaged dropped, {} unused schemas deleted): {change}, {} -> {} bytes",
        done.kept,
        done.dropped.len(),
        done.schemas_removed,
        done.size_before,
        done.size_after
    )?;
    Ok(ExitCode::SUCCESS)
}

/// `10G`, `512M`, `4096`: bytes, with a binary suffix.
fn parse_bytes(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let (digits, unit) = match t.find(|c: char| !c.is_ascii_digit()) {
        Some(i) => t.split_at(i),
        None => (t, ""),
    };
    let scale: u64 = match unit
        .trim()
        .to_ascii_uppercase()
        .trim_end_matches("IB")
        .trim_end_matches('B')
    {
        "" => 1,
        "K" => 1 << 10,
        "M" => 1 << 20,
        "G" => 1 << 30,
        "T" => 1 << 40,
        _ => return Err(format!("`{text}`: expected bytes, as 4096, 512M or 10G")),
    };
    digits
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(scale))
        .ok_or_else(|| format!("`{text}`: expected bytes, as 4096, 512M or 10G"))
}

/// `30d`, `12h`, `1d12h`, `90s`, `250ms`: a duration.
fn parse_age(text: &str) -> Result<std::time::Duration, String> {
    let bad = || format!("`{text}`: expected numbers with units ms, s, m, h, d, as 30d or 1d12h");
    let mut rest = text.trim();
    if rest.is_empty() {
        return Err(bad());
    }
    let mut total = std::time::Duration::ZERO;
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        let n: u64 = rest[..digits].parse().map_err(|_| bad())?;
        rest = &rest[digits..];
        let unit_len = rest
            .find(|c: char| c.is_ascii_digit())
            .unwrap_or(rest.len());
        let unit = match &rest[..unit_len] {
            "ms" => std::time::Duration::from_millis(1),
            "s" => std::time::Duration::from_secs(1),
            "m" => std::time::Duration::from_secs(60),
            "h" => std::time::Duration::from_secs(3600),
            "d" => std::time::Duration::from_secs(86_400),
            _ => return Err(bad()),
        };
        rest = &rest[unit_len..];
        let part = unit
            .checked_mul(u32::try_from(n).map_err(|_| bad())?)
            .ok_or_else(bad)?;
        total = total.checked_add(part).ok_or_else(bad)?;
    }
    Ok(total)
}

/// Removes the least recently used entries past `bounds`
/// (`Admin::reduce_size`), then reclaims their space by an online
/// compaction, whose retired files are deleted by a later one after
/// `grace_secs`.
fn reduce_size(out: &mut impl Write, dir: &Location, bounds: &Bounds, grace_secs: u64) -> Outcome {
    if bounds.is_unbounded() {
        warn(format_args!(
            "error: no bound given: add --max-bytes, --max-entries or --max-age"
        ));
        return Ok(ExitCode::from(2));
    }
    let cache = open(dir)?;
    let grace = std::time::Duration::from_secs(grace_secs);
    let done = cache.admin().reduce_size(bounds, grace)?;
    writeln!(
        out,
        "removed {} entries ({} bytes of payload), least recently used first; kept {} ({} bytes)",
        done.removed.len(),
        done.removed_bytes,
        done.kept,
        done.kept_bytes
    )?;
    let mut compacted = done.compacted;
    // A folder no other handle has open gives back at once what the
    // online compaction retired.
    if let (Location::Folder(folder), Some(_)) = (dir, &compacted) {
        drop(cache);
        match Admin::compact(folder, &[], |_, _| {}) {
            Ok(mut alone) => {
                if let Some(online) = &compacted {
                    alone.size_before = online.size_before;
                }
                compacted = Some(alone);
            }
            Err(StoreError::InUse { .. }) => writeln!(
                out,
                "the folder is open elsewhere: what the compaction retired is deleted by a \
                 compaction {grace_secs} s from now or later"
            )?,
            Err(e) => return Err(e.into()),
        }
    }
    if let Some(done) = compacted {
        writeln!(
            out,
            "compacted: {} -> {} bytes",
            done.size_before, done.size_after
        )?;
    }
    Ok(ExitCode::SUCCESS)
}
