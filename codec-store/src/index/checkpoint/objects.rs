//! Building a checkpoint where the backend has neither memory maps nor
//! appends (object storage, memory): a writer's log is one object per
//! append ([`Segments`](crate::backend::Segments)), so a table holds
//! the lines it points at and is read whole, and the manifest counts the
//! segments of each writer it covers.
//!
//! There is no lock. A build reads the manifest and its version, writes
//! its table under a name no other build takes (`create`, the manifest's
//! generation and 32 random bits), then commits the manifest by
//! compare-and-swap on the version it read: of builds racing from one
//! version, exactly one commits. The others delete their table, and try
//! again if asked to wait. After a commit, the builder deletes the tables
//! no manifest can name any more: those it merged away, and those of
//! builds from an older generation, which can never commit. A reader that
//! read the old manifest and finds a table gone reads the manifest again
//! ([`Base::load`]).
//!
//! A handle holds the bytes of the segments it wrote or read that no
//! checkpoint covers ([`Known`]): its builds in the background cover
//! those, with no request for a segment, rather than reading every segment
//! of every writer again (handles writing at once would each read them all).

use std::collections::HashMap;
use std::sync::Arc;

use crate::backend::{Backend, Created, Replaced, Version};
use crate::error::StoreError;
use crate::index::checkpoint::build::{add_lines, merge_newest, writer_of, OlderTables};
use crate::index::checkpoint::{checked, damaged, encode_manifest, parse_manifest, Built, FORMAT};
use crate::index::logs;
use crate::index::records::Checkpoint;
use crate::index::table::{self, Damaged, Entry, Table};
use crate::layout;

/// How often a build that lost the race to commit tries again, when asked
/// to wait.
const TRIES: usize = 8;

/// Segments a handle holds, by object name: their bytes, whole lines.
pub type Known = HashMap<String, Arc<[u8]>>;

/// The segments a build reads.
#[derive(Clone, Copy)]
pub enum Sources<'a> {
    /// Every segment listed: those known from there, the others by a
    /// request each.
    Listed(&'a Known),
    /// The known ones only (no request), each writer's up to its first
    /// segment not known.
    Known(&'a Known),
}

/// Builds a checkpoint of the store in `backend` from the segments after
/// the last one (all of them if `full`) that `sources` gives. If another
/// build commits first, tries again when `wait`, else returns `Ok(None)`.
pub fn build(
    backend: &dyn Backend,
    wait: bool,
    full: bool,
    sources: Sources<'_>,
) -> Result<Option<Built>, StoreError> {
    let mut warnings = Vec::new();
    // A build from scratch reads every segment.
    let sources = match (full, sources) {
        (true, Sources::Known(known)) => Sources::Listed(known),
        _ => sources,
    };
    for _ in 0..TRIES {
        if let Some(mut built) = attempt(backend, full, sources, &mut warnings)? {
            built.warnings = warnings;
            return Ok(Some(built));
        }
        if !wait {
            return Ok(None);
        }
    }
    Err(StoreError::unsupported(
        backend.address(layout::CHECKPOINT),
        format!(
            "other handles committed a checkpoint {TRIES} times while this one built its \
             own; try again later"
        ),
    ))
}

/// The manifest a build starts from, its version, and the tables it names.
pub(crate) struct Start {
    pub manifest: Checkpoint,
    pub version: Option<Version>,
    tables: Vec<(u64, Table)>,
    /// Whether the build merges every table into its own, whatever their
    /// sizes.
    whole: bool,
}

impl Start {
    /// A build on no tables, from manifest `manifest` read at `version`.
    pub fn bare(manifest: Checkpoint, version: Option<Version>) -> Start {
        Start {
            manifest,
            version,
            tables: Vec::new(),
            whole: false,
        }
    }

    /// A build that goes on where `overtaken` stopped, on the manifest
    /// read at `version` whose next table is `next_table`: it reads only
    /// the segments `overtaken` did not, and merges them with its table
    /// into one of a generation that can still commit.
    pub fn after(overtaken: Overtaken, next_table: u64, version: Option<Version>) -> Start {
        let mut manifest = overtaken.manifest;
        manifest.next_table = next_table;
        manifest.tables.clear();
        Start {
            manifest,
            version,
            tables: vec![(0, overtaken.table)],
            whole: true,
        }
    }
}

/// A build whose commit another one's overtook: where it got to, so that
/// a next try need not read again what it read. Its table's object is
/// deleted (a commit of a newer generation may delete it any time).
pub(crate) struct Overtaken {
    /// Its manifest: coverage past the segments it read.
    manifest: Checkpoint,
    /// Its table, held in memory.
    table: Table,
}

/// One build; `Ok(None)` if another one committed first.
fn attempt(
    backend: &dyn Backend,
    full: bool,
    sources: Sources<'_>,
    warnings: &mut Vec<String>,
) -> Result<Option<Built>, StoreError> {
    let Some(start) = read_start(backend, full, warnings)? else {
        return Ok(None);
    };
    Ok(build_from(backend, start, full, sources)?.ok())
}

/// A build from `start`: the segments it does not cover read, merged
/// with its tables, committed if the manifest is still at its version.
/// `Ok(Err)` if another build committed first (its table deleted).
pub(crate) fn build_from(
    backend: &dyn Backend,
    start: Start,
    full: bool,
    sources: Sources<'_>,
) -> Result<Result<Built, Overtaken>, StoreError> {
    let Start {
        mut manifest,
        version,
        mut tables,
        whole,
    } = start;
    let generation = manifest.next_table;
    // Every line the build handles, each followed by a newline: entries
    // point into it until the table is written.
    let mut text = Vec::new();
    let (fresh, lines) = read_new_segments(backend, &mut manifest, &mut text, sources)?;
    let mut built = Built {
        lines,
        ..Built::default()
    };
    if fresh.is_empty() && version.is_some() && !full {
        built.tables = manifest.tables.len();
        return Ok(Ok(built));
    }
    let mut older = HoldingTables {
        tables: &tables,
        text: &mut text,
    };
    let (mut newest, kept) = merge_newest(fresh, &mut older, &manifest.writers, whole)?
        .map_err(|d| damaged(backend, d))?;
    tables.truncate(kept);
    let bytes = table_bytes(&mut newest, &text);
    let overtaken = |manifest: Checkpoint, bytes: Vec<u8>| {
        let table = Table::from_bytes(bytes, manifest.writers.len());
        let table = table.map_err(|d| damaged(backend, d))?;
        Ok(Err(Overtaken { manifest, table }))
    };
    let Some(number) = create_table(backend, generation, &bytes)? else {
        return overtaken(manifest, bytes);
    };
    manifest.tables = tables.iter().map(|(n, _)| *n).collect();
    manifest.tables.push(number);
    manifest.next_table = generation + 1;
    if !commit(backend, &manifest, version.as_ref())? && !names_table(backend, number)? {
        backend.delete(&layout::table_object(number))?;
        return overtaken(manifest, bytes);
    }
    delete_dead_tables(backend, &manifest, generation)?;
    built.tables = manifest.tables.len();
    Ok(Ok(built))
}

/// The manifest to build on and its tables, read whole; a fresh one if
/// `full` or if it is damaged (with a warning). `None` if a table it
/// names is gone: a newer manifest replaced it meanwhile.
fn read_start(
    backend: &dyn Backend,
    full: bool,
    warnings: &mut Vec<String>,
) -> Result<Option<Start>, StoreError> {
    let mut start = Start {
        manifest: Checkpoint {
            format: FORMAT,
            ..Checkpoint::default()
        },
        version: None,
        tables: Vec::new(),
        whole: false,
    };
    let Some((bytes, version)) = backend.read_versioned(layout::CHECKPOINT)? else {
        return Ok(Some(start));
    };
    start.version = Some(version);
    let mut rebuild = |why: String, start: &mut Start| {
        warnings.push(format!(
            "{}: the checkpoint is damaged ({why}); rebuilt from the logs",
            backend.location()
        ));
        start.tables.clear();
        start.manifest.writers.clear();
    };
    let manifest = match parse_manifest(&bytes) {
        Ok(manifest) => manifest,
        Err(Damaged(why)) => {
            rebuild(why, &mut start);
            return Ok(Some(start));
        }
    };
    // A full build keeps the generation (its table must not take the name
    // of an older one) and what compactions left to delete.
    start.manifest.next_table = manifest.next_table;
    start.manifest.compactions = manifest.compactions;
    start.manifest.retired = manifest.retired.clone();
    if full {
        return Ok(Some(start));
    }
    for &n in &manifest.tables {
        let name = layout::table_object(n);
        let Some(bytes) = backend.read(&name)? else {
            return Ok(None);
        };
        match Table::from_bytes(bytes, manifest.writers.len()) {
            Ok(table) => start.tables.push((n, table)),
            Err(Damaged(why)) => {
                rebuild(format!("{}: {why}", backend.address(&name)), &mut start);
                return Ok(Some(start));
            }
        }
    }
    start.manifest = manifest;
    Ok(Some(start))
}

/// The newest line of each key among the segments the manifest does not
/// cover that `sources` gives, as entries sorted by hash pointing into
/// `text`; moves the manifest's coverage past them. Also returns the lines
/// read.
fn read_new_segments(
    backend: &dyn Backend,
    manifest: &mut Checkpoint,
    text: &mut Vec<u8>,
    sources: Sources<'_>,
) -> Result<(Vec<Entry>, u64), StoreError> {
    let (mut names, known, listed) = match sources {
        Sources::Listed(known) => {
            let listed = logs(backend)?.into_iter().map(|log| (log.writer, log.name));
            (listed.collect::<Vec<_>>(), known, true)
        }
        Sources::Known(known) => {
            let names = known
                .keys()
                .filter_map(|name| Some((layout::log_writer(name)?.to_owned(), name.clone())));
            (names.collect(), known, false)
        }
    };
    // By writer, then segment number: coverage moves over each segment in
    // turn.
    names.sort_by_cached_key(|(writer, _)| {
        let (id, n) = layout::segment_of(writer);
        (id.to_owned(), n)
    });
    let mut newest: HashMap<Box<str>, Entry> = HashMap::new();
    let mut lines = 0;
    for (writer, name) in names {
        let (id, n) = layout::segment_of(&writer);
        let w = writer_of(manifest, id);
        let to = manifest.writers[w].to;
        // Known segments cover a writer's log up to the first one missing;
        // listed ones are all there is.
        if n < to || (!listed && n > to) {
            continue;
        }
        let bytes = match known.get(&name) {
            Some(bytes) => bytes.to_vec(),
            None if listed => match backend.read(&name)? {
                Some(bytes) => bytes,
                // A segment gone since the listing went with a
                // compaction, which replaced the manifest too: this build
                // will not commit.
                None => continue,
            },
            None => continue,
        };
        // A segment is one append of whole lines.
        let complete = memchr::memrchr(b'\n', &bytes).map_or(0, |i| i + 1);
        let from = text.len() as u64;
        text.extend_from_slice(&bytes[..complete]);
        lines += add_lines(&mut newest, &bytes[..complete], from, w, &manifest.writers);
        manifest.writers[w].to = n + 1;
    }
    let mut entries: Vec<Entry> = newest.into_values().collect();
    entries.sort_unstable_by_key(|e| (e.hash, e.writer, e.offset));
    Ok((entries, lines))
}

/// The tables of a checkpoint that hold their lines: merged, their lines
/// are copied to the end of `text`, where the build's entries point.
struct HoldingTables<'a> {
    tables: &'a [(u64, Table)],
    text: &'a mut Vec<u8>,
}

impl OlderTables for HoldingTables<'_> {
    fn count(&self) -> usize {
        self.tables.len()
    }

    fn len(&self, t: usize) -> usize {
        self.tables[t].1.len()
    }

    fn entries(&mut self, t: usize) -> Result<Vec<Entry>, Damaged> {
        pull(&self.tables[t].1, self.text)
    }

    fn key(&self, e: &Entry) -> Result<String, Damaged> {
        Ok(checked(line_at(self.text, e))?.1.key.into_owned())
    }
}

/// The entries of a table, their lines copied to the end of `text`.
fn pull(table: &Table, text: &mut Vec<u8>) -> Result<Vec<Entry>, Damaged> {
    let mut out = Vec::with_capacity(table.len());
    for e in table.iter() {
        let mut e = e?;
        let line = table
            .own_line(&e)
            .unwrap_or_else(|| Err(Damaged("a table without its lines".into())))?;
        let offset = text.len() as u64;
        text.extend_from_slice(line);
        text.push(b'\n');
        e.offset = offset;
        out.push(e);
    }
    Ok(out)
}

/// The line entry `e` points at in `text`.
fn line_at<'a>(text: &'a [u8], e: &Entry) -> &'a [u8] {
    &text[e.offset as usize..e.offset as usize + e.len as usize]
}

/// The table of `entries`, holding the lines they point at in `text`
/// (and pointing into its own lines from then on).
fn table_bytes(entries: &mut [Entry], text: &[u8]) -> Vec<u8> {
    let mut lines = Vec::new();
    for e in entries.iter_mut() {
        let offset = lines.len() as u64;
        lines.extend_from_slice(line_at(text, e));
        lines.push(b'\n');
        e.offset = offset;
    }
    table::encode_with_lines(entries, &lines)
}

/// Creates a table of `generation` under a name of its own; its number,
/// or `None` if names kept being taken.
fn create_table(
    backend: &dyn Backend,
    generation: u64,
    bytes: &[u8],
) -> Result<Option<u64>, StoreError> {
    for attempt in 0..TRIES {
        let random = crate::__ids::random_bits(attempt as u64);
        let number = (generation << 32) | u64::from(random);
        let name = layout::table_object(number);
        if backend.create(&name, bytes, true)? == Created::Yes {
            return Ok(Some(number));
        }
    }
    Ok(None)
}

/// Commits `manifest` if the manifest is still at `version` (or still
/// absent); whether it did.
fn commit(
    backend: &dyn Backend,
    manifest: &Checkpoint,
    version: Option<&Version>,
) -> Result<bool, StoreError> {
    let bytes = encode_manifest(manifest)?;
    Ok(match version {
        Some(version) => matches!(
            backend.replace(layout::CHECKPOINT, &bytes, version)?,
            Replaced::Yes(_)
        ),
        None => backend.create(layout::CHECKPOINT, &bytes, true)? == Created::Yes,
    })
}

/// Whether the manifest names table `number`. A commit that found the
/// manifest changed may have changed it itself: a request whose response
/// was lost, retried by the object store's client, finds the manifest its
/// first try wrote. Table numbers are random per build, so a manifest that
/// names this build's table is its own (or built on it): the table stays.
fn names_table(backend: &dyn Backend, number: u64) -> Result<bool, StoreError> {
    let Some(bytes) = backend.read(layout::CHECKPOINT)? else {
        return Ok(false);
    };
    Ok(parse_manifest(&bytes).is_ok_and(|m| m.tables.contains(&number)))
}

/// Deletes the tables `manifest` (just committed, built on generation
/// `generation`) does not name and that no build can commit any more:
/// those of a generation up to `generation`.
fn delete_dead_tables(
    backend: &dyn Backend,
    manifest: &Checkpoint,
    generation: u64,
) -> Result<(), StoreError> {
    for listed in backend.list(&format!("{}/", layout::TABLES))? {
        let Some(n) = layout::table_number(&listed.name) else {
            continue;
        };
        if n >> 32 <= generation && !manifest.tables.contains(&n) {
            backend.delete(&listed.name)?;
        }
    }
    Ok(())
}
