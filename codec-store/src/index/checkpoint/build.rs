//! Building a checkpoint: one algorithm for every backend.
//!
//! A build reads the manifest and its version, and the tables it names;
//! reads the lines no table covers; merges the newest of them with the
//! newest tables ([`RATIO`]); writes its table under a name no other
//! build takes (the manifest's generation and 32 random bits); then
//! commits the manifest by compare-and-swap on the version it read. Of
//! builds racing from one version, exactly one commits; the others delete
//! their table, and try again if asked to wait. After a commit, the
//! builder deletes the tables no manifest can name any more: those it
//! merged away, and those of older generations, which can never commit
//! (a build that stopped midway left one). A reader that read the old
//! manifest and finds a table gone reads the manifest again
//! ([`Base::open`](super::Base::open)).
//!
//! Where the backend has locks (a folder), builds take turns on
//! `checkpoint.lock` as well: one not asked to wait leaves the work to the
//! one under way, and none reads again what another just read.
//!
//! What depends on the backend is how its logs are read, which is the
//! checkpoint's format (see the module above): where a log grows in place,
//! the lines after the bytes covered of each log, and tables that point
//! into the logs (mapped); where each append is an object, the segments
//! after those covered ([`objects`](super::objects)), and tables that
//! hold their lines. In place, the logs an online compaction retired
//! leave the manifest and their entries the tables, which the build
//! merges whole (`Start::without_unlisted`): the checkpoint a
//! compaction builds after its retirement reads the copies and the lines
//! after the checkpoint, not every log again.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use crate::backend::{Appends, Backend, Created, Locking, Replaced, Version};
use crate::error::StoreError;
use crate::index::checkpoint::objects::{read_new_segments, table_bytes, HoldingTables, Sources};
use crate::index::checkpoint::{
    checked, encode_manifest, open_table, parse_manifest, Logs, FORMAT, RATIO,
};
use crate::index::records::{Checkpoint, Covered};
use crate::index::table::{self, key_hash, Damaged, Entry, Table};
use crate::index::{logs, read_complete_lines};
use crate::layout;

/// How often a build that lost the race to commit tries again, when asked
/// to wait.
const TRIES: usize = 8;

/// What a build did.
#[derive(Debug, Default)]
pub struct Built {
    /// Lines read from the logs.
    pub lines: u64,
    /// Tables the checkpoint has now.
    pub tables: usize,
    /// Why the previous checkpoint was not used, if it was not.
    pub warnings: Vec<String>,
}

/// Builds a checkpoint of the store in `backend` from the lines after the
/// last one (all of them if `full`, or if the last one is damaged), of the
/// segments `sources` gives where each append is an object. If another
/// build runs or commits first, waits for it or tries again when `wait`,
/// else returns `Ok(None)`.
pub fn build(
    backend: &Arc<dyn Backend>,
    wait: bool,
    full: bool,
    sources: Sources<'_>,
) -> Result<Option<Built>, StoreError> {
    let how = if wait {
        Locking::Alone
    } else {
        Locking::TryAlone
    };
    let _turn = match backend.locks() {
        Some(locks) => match locks.lock(layout::CHECKPOINT_LOCK, how)? {
            Some(lock) => Some(lock),
            None => return Ok(None),
        },
        None => None,
    };
    let mut warnings = Vec::new();
    let mut full = full;
    let rebuild = |why: String, warnings: &mut Vec<String>| {
        warnings.push(format!(
            "{}: the checkpoint is damaged ({why}); rebuilt from the logs",
            backend.location()
        ));
    };
    for _ in 0..TRIES {
        // A build from scratch reads every segment.
        let sources = match (full, sources) {
            (true, Sources::Known(known)) => Sources::Listed(known),
            _ => sources,
        };
        let start = match read_start(&**backend, full)? {
            Read::Start(start) => start,
            Read::Damaged(why) => {
                rebuild(why, &mut warnings);
                full = true;
                continue;
            }
            Read::Replaced if wait => continue,
            Read::Replaced => return Ok(None),
        };
        // A log that lost its end and was written again holds lines where
        // the checkpoint covers others: built from the logs alone.
        let in_place = backend.appends() == Appends::InPlace;
        if !full
            && in_place
            && let (Some(log), _) = changed_logs(&**backend, &start.manifest)?
        {
            rebuild(
                format!("{log} does not end as it did when covered"),
                &mut warnings,
            );
            full = true;
            continue;
        }
        // The logs a compaction retired leave the checkpoint's tables.
        let start = match (in_place && !full, start) {
            (true, start) => match start.without_unlisted(&**backend)? {
                Ok(start) => start,
                Err(Damaged(why)) => {
                    rebuild(why, &mut warnings);
                    full = true;
                    continue;
                }
            },
            (false, start) => start,
        };
        match build_from(backend, start, full, sources)? {
            Ok(mut built) => {
                built.warnings = warnings;
                return Ok(Some(built));
            }
            Err(Stop::Damaged(Damaged(why))) => {
                rebuild(why, &mut warnings);
                full = true;
            }
            Err(Stop::Overtaken(_)) if wait => {}
            Err(Stop::Overtaken(_)) => return Ok(None),
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
    /// Whether the build commits even with no line to add: the tables
    /// read lost entries ([`Start::without_unlisted`]).
    changed: bool,
}

impl Start {
    /// A build on no tables, from manifest `manifest` read at `version`.
    pub fn bare(manifest: Checkpoint, version: Option<Version>) -> Start {
        Start {
            manifest,
            version,
            tables: Vec::new(),
            whole: false,
            changed: false,
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
            changed: false,
        }
    }

    /// This start less the logs the store no longer lists (in place): an
    /// online compaction retired them (or one with the store to itself
    /// deleted them). Their writers leave the manifest, and their lines'
    /// entries the tables, which are merged whole into the build's: no
    /// table the checkpoint keeps points into a log retired, and readers
    /// may delete it. What the tables lose is sound to lose: the
    /// compaction copied every live entry whose newest line it retired,
    /// and removed again every dead one with a line in a log kept, each
    /// at a time that wins over every line of the logs kept (see
    /// `compaction/sealed.rs`). So a line of a log kept that a retired
    /// line hid in a table stays hidden, as the logs read again would
    /// have it. `Err` if a table's entries are damaged.
    fn without_unlisted(self, backend: &dyn Backend) -> Result<Result<Start, Damaged>, StoreError> {
        let listed: HashSet<String> = logs(backend)?.into_iter().map(|l| l.writer).collect();
        if self.manifest.writers.iter().all(|w| listed.contains(&w.id)) {
            return Ok(Ok(self));
        }
        let Start {
            mut manifest,
            version,
            tables,
            ..
        } = self;
        // Each writer's position once the writers retired are gone.
        let mut moved = Vec::with_capacity(manifest.writers.len());
        let mut writers = Vec::with_capacity(manifest.writers.len());
        for w in std::mem::take(&mut manifest.writers) {
            match listed.contains(&w.id) {
                true => {
                    moved.push(Some(writers.len() as u32));
                    writers.push(w);
                }
                false => moved.push(None),
            }
        }
        manifest.writers = writers;
        let mut kept = Vec::with_capacity(tables.len());
        for (n, table) in tables {
            let mut entries = Vec::with_capacity(table.len());
            for e in table.iter() {
                let e = match e {
                    Ok(e) => e,
                    Err(damaged) => return Ok(Err(damaged)),
                };
                if let Some(writer) = moved[e.writer as usize] {
                    entries.push(Entry { writer, ..e });
                }
            }
            match Table::from_bytes(table::encode(&entries), manifest.writers.len()) {
                Ok(table) => kept.push((n, table)),
                Err(damaged) => return Ok(Err(damaged)),
            }
        }
        Ok(Ok(Start {
            manifest,
            version,
            tables: kept,
            whole: true,
            changed: true,
        }))
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

/// A build that did not commit.
pub(crate) enum Stop {
    /// Another build committed first: where this one got to.
    Overtaken(Overtaken),
    /// A table it merged is damaged.
    Damaged(Damaged),
}

/// A build from `start`: the lines it does not cover read, merged with
/// its tables, committed if the manifest is still at its version.
pub(crate) fn build_from(
    backend: &Arc<dyn Backend>,
    start: Start,
    full: bool,
    sources: Sources<'_>,
) -> Result<Result<Built, Stop>, StoreError> {
    let Start {
        mut manifest,
        version,
        mut tables,
        whole,
        changed,
    } = start;
    let in_place = backend.appends() == Appends::InPlace;
    let generation = manifest.next_table;
    // Where each append is an object, every line the build handles, each
    // followed by a newline: entries point into it until the table is
    // written (in place, they point into the logs).
    let mut text = Vec::new();
    let (fresh, lines) = match in_place {
        true => read_new_lines(&**backend, &mut manifest)?,
        false => read_new_segments(&**backend, &mut manifest, &mut text, sources)?,
    };
    let mut built = Built {
        lines,
        ..Built::default()
    };
    if fresh.is_empty() && version.is_some() && !full && !changed {
        built.tables = manifest.tables.len();
        return Ok(Ok(built));
    }
    let logs = Logs::new(in_place.then_some(backend), &manifest.writers);
    let merged = match in_place {
        true => {
            let mut older = PointingTables {
                tables: &tables,
                logs: &logs,
            };
            merge_newest(fresh, &mut older, &manifest.writers, whole)?
        }
        false => {
            let mut older = HoldingTables {
                tables: &tables,
                text: &mut text,
            };
            merge_newest(fresh, &mut older, &manifest.writers, whole)?
        }
    };
    let (mut newest, kept) = match merged {
        Ok(merged) => merged,
        Err(damaged) => return Ok(Err(Stop::Damaged(damaged))),
    };
    tables.truncate(kept);
    let bytes = match in_place {
        true => table::encode(&newest),
        false => table_bytes(&mut newest, &text),
    };
    let overtaken = |manifest: Checkpoint, bytes: Vec<u8>| {
        Ok(match Table::from_bytes(bytes, manifest.writers.len()) {
            Ok(table) => Err(Stop::Overtaken(Overtaken { manifest, table })),
            Err(damaged) => Err(Stop::Damaged(damaged)),
        })
    };
    let Some(number) = create_table(&**backend, generation, &bytes)? else {
        return overtaken(manifest, bytes);
    };
    manifest.tables = tables.iter().map(|(n, _)| *n).collect();
    manifest.tables.push(number);
    manifest.next_table = generation + 1;
    if !commit(&**backend, &manifest, version.as_ref())? && !names_table(&**backend, number)? {
        backend.delete(&layout::table_object(number))?;
        return overtaken(manifest, bytes);
    }
    delete_dead_tables(&**backend, &manifest, generation)?;
    built.tables = manifest.tables.len();
    Ok(Ok(built))
}

/// What [`read_start`] read.
enum Read {
    Start(Start),
    /// The manifest or a table it names is damaged: why.
    Damaged(String),
    /// A table it names is gone, and the manifest changed: a newer one
    /// replaced it meanwhile.
    Replaced,
}

/// The manifest to build on and its tables (mapped where the backend has
/// maps, else read whole); a fresh one if `full`.
fn read_start(backend: &dyn Backend, full: bool) -> Result<Read, StoreError> {
    let mut start = Start::bare(
        Checkpoint {
            format: FORMAT,
            ..Checkpoint::default()
        },
        None,
    );
    let read = backend.read_versioned(layout::CHECKPOINT)?;
    let parsed = read.as_ref().map(|(bytes, _)| parse_manifest(bytes));
    start.version = read.map(|(_, version)| version);
    let manifest = match parsed {
        Some(Ok(manifest)) if !full => manifest,
        Some(Err(Damaged(why))) if !full => return Ok(Read::Damaged(why)),
        parsed => {
            // A build from the logs (or on no manifest) takes a generation
            // past every table's (its table must not take the name of an
            // older one, and those of a build that stopped are deleted
            // after its commit), and keeps what compactions left to delete.
            let past = listed_tables(backend)?
                .map(|n| (n >> 32) + 1)
                .max()
                .unwrap_or(0);
            if let Some(Ok(manifest)) = parsed {
                start.manifest.next_table = manifest.next_table;
                start.manifest.compactions = manifest.compactions;
                start.manifest.retired = manifest.retired;
            }
            start.manifest.next_table = start.manifest.next_table.max(past);
            return Ok(Read::Start(start));
        }
    };
    for &n in &manifest.tables {
        let name = layout::table_object(n);
        let table = match open_table(backend, &name, manifest.writers.len())? {
            Some(table) => table,
            None => return gone(backend, start.version.as_ref(), &name),
        };
        match table {
            Ok(table) => start.tables.push((n, table)),
            Err(Damaged(why)) => {
                return Ok(Read::Damaged(format!("{}: {why}", backend.address(&name))));
            }
        }
    }
    start.manifest = manifest;
    Ok(Read::Start(start))
}

/// Table `name` of the manifest read at `version` is gone: replaced, if
/// the manifest changed since, else damaged.
fn gone(backend: &dyn Backend, version: Option<&Version>, name: &str) -> Result<Read, StoreError> {
    let now = backend.read_versioned(layout::CHECKPOINT)?.map(|(_, v)| v);
    Ok(match now.as_ref() == version {
        true => Read::Damaged(format!("{} is missing", backend.address(name))),
        false => Read::Replaced,
    })
}

/// The numbers of the tables in `index/`.
fn listed_tables(backend: &dyn Backend) -> Result<impl Iterator<Item = u64>, StoreError> {
    let listed = backend.list(&format!("{}/", layout::TABLES))?;
    Ok(listed
        .into_iter()
        .filter_map(|o| layout::table_number(&o.name)))
}

/// The newest line of each key among the log lines after what `manifest`
/// covers, as entries sorted by hash; moves the manifest's coverage to the
/// end of them. Also returns the lines read.
fn read_new_lines(
    backend: &dyn Backend,
    manifest: &mut Checkpoint,
) -> Result<(Vec<Entry>, u64), StoreError> {
    let mut newest: HashMap<Box<str>, Entry> = HashMap::new();
    let mut lines = 0;
    for log in logs(backend)? {
        let id = log.writer;
        let w = writer_of(manifest, &id);
        let from = manifest.writers[w].to;
        let Some(buf) = read_complete_lines(backend, &log.name, from)? else {
            continue;
        };
        lines += add_lines(&mut newest, &buf, from, w, &manifest.writers);
        // Not synced: a checkpoint that covers what a power loss takes
        // from a log is found out by the log's tail and by each line's
        // check, and put aside.
        let to = from + buf.len() as u64;
        manifest.writers[w].to = to;
        manifest.writers[w].tail = tail_crc(backend, &log.name, to)?;
    }
    let mut entries: Vec<Entry> = newest.into_values().collect();
    entries.sort_unstable_by_key(|e| (e.hash, e.writer, e.offset));
    Ok((entries, lines))
}

/// The position of writer `id` in what `manifest` covers, added (with
/// nothing covered) if it is new.
pub(super) fn writer_of(manifest: &mut Checkpoint, id: &str) -> usize {
    match manifest.writers.iter().position(|c| c.id == id) {
        Some(w) => w,
        None => {
            manifest.writers.push(Covered {
                id: id.to_owned(),
                to: 0,
                tail: 0,
            });
            manifest.writers.len() - 1
        }
    }
}

/// Adds the lines of `buf` (read at byte `from` of writer `w`'s log) to
/// `newest`, the newest entry of each key; returns how many it read.
pub(super) fn add_lines(
    newest: &mut HashMap<Box<str>, Entry>,
    buf: &[u8],
    from: u64,
    w: usize,
    writers: &[Covered],
) -> u64 {
    let mut lines = 0;
    let mut start = 0;
    for end in memchr::memchr_iter(b'\n', buf) {
        let raw = &buf[start..end];
        let offset = from + start as u64;
        start = end + 1;
        let Ok((_, view)) = checked(raw) else {
            continue; // skipped with a warning by every reader
        };
        lines += 1;
        let entry = Entry {
            hash: key_hash(&view.key),
            time: view.time,
            offset,
            writer: w as u32,
            len: raw.len() as u32,
            removed: view.handler.is_none(),
        };
        let newer = newest.get(&*view.key).is_none_or(|b| {
            (entry.time, &writers[w].id) > (b.time, &writers[b.writer as usize].id)
        });
        if newer {
            newest.insert(view.key.into(), entry);
        }
    }
    lines
}

/// What became of the logs `manifest` covers: the first one that no
/// longer ends as it did when covered (a power loss took its end, and it
/// was written again, or it is shorter), and whether one it covers part
/// of is gone (an online compaction retired it). A log it covers nothing
/// of says nothing either way. A read that fails is an error: the logs
/// may be as covered.
pub fn changed_logs(
    backend: &dyn Backend,
    manifest: &Checkpoint,
) -> Result<(Option<String>, bool), StoreError> {
    let mut retired = false;
    for w in &manifest.writers {
        let log = layout::log_name(&w.id);
        match tail_crc(backend, &log, w.to) {
            Ok(crc) if crc == w.tail => {}
            Ok(_) => return Ok((Some(log), retired)),
            Err(e) if e.is_missing() => retired |= w.to > 0,
            Err(StoreError::Io { source, .. })
                if source.kind() == std::io::ErrorKind::UnexpectedEof =>
            {
                return Ok((Some(log), retired))
            }
            Err(e) => return Err(e),
        }
    }
    Ok((None, retired))
}

/// The CRC-32 of the 64 bytes of log `name` before `to` (fewer if `to`
/// is smaller); an error if the log is shorter than `to`.
pub fn tail_crc(backend: &dyn Backend, name: &str, to: u64) -> Result<u32, StoreError> {
    let from = to.saturating_sub(64);
    let buf = backend.read_range(name, from..to)?;
    if (buf.len() as u64) < to - from {
        let short = std::io::Error::from(std::io::ErrorKind::UnexpectedEof);
        return Err(StoreError::io(backend.address(name), short));
    }
    Ok(crc32fast::hash(&buf))
}

/// The tables a build may merge its new entries into, oldest first.
pub(super) trait OlderTables {
    /// How many there are.
    fn count(&self) -> usize;
    /// The number of entries of table `t`.
    fn len(&self, t: usize) -> usize;
    /// The entries of table `t`, pointing at their lines.
    fn entries(&mut self, t: usize) -> Result<Vec<Entry>, Damaged>;
    /// The key of the line entry `e` points at.
    fn key(&self, e: &Entry) -> Result<String, Damaged>;
}

/// Merges the newest of `older` into `newest` while the table before is
/// not `RATIO` times larger (all of them if `all`): a store of `n` entries
/// keeps about `log4(n / lines per checkpoint)` tables. Returns the
/// entries merged and how many of `older`, from the first, stay as they
/// are; `Ok(Err)` if the entries of one of them are damaged.
pub(super) fn merge_newest(
    mut newest: Vec<Entry>,
    older: &mut dyn OlderTables,
    writers: &[Covered],
    all: bool,
) -> Result<Result<(Vec<Entry>, usize), Damaged>, StoreError> {
    let mut kept = older.count();
    while kept > 0 && (all || older.len(kept - 1) <= RATIO * newest.len()) {
        let entries = match older.entries(kept - 1) {
            Ok(entries) => entries,
            Err(damaged) => return Ok(Err(damaged)),
        };
        newest = match merge(&entries, &newest, writers, |e| older.key(e)) {
            Ok(merged) => merged,
            Err(damaged) => return Ok(Err(damaged)),
        };
        kept -= 1;
    }
    Ok(Ok((newest, kept)))
}

/// The tables of a checkpoint whose entries point into the logs.
struct PointingTables<'a> {
    tables: &'a [(u64, Table)],
    logs: &'a Logs,
}

impl OlderTables for PointingTables<'_> {
    fn count(&self) -> usize {
        self.tables.len()
    }

    fn len(&self, t: usize) -> usize {
        self.tables[t].1.len()
    }

    fn entries(&mut self, t: usize) -> Result<Vec<Entry>, Damaged> {
        self.tables[t].1.iter().collect()
    }

    fn key(&self, e: &Entry) -> Result<String, Damaged> {
        let (map, start, end) = self.logs.line(e)?;
        Ok(checked(&map[start..end])?.1.key.into_owned())
    }
}

/// Two tables' entries as one: of entries of the same key, the newest.
/// `key_of` reads an entry's key from its line.
pub(super) fn merge(
    older: &[Entry],
    newer: &[Entry],
    writers: &[Covered],
    key_of: impl Fn(&Entry) -> Result<String, Damaged>,
) -> Result<Vec<Entry>, Damaged> {
    let mut out = Vec::with_capacity(older.len() + newer.len());
    let (mut i, mut j) = (0, 0);
    while i < older.len() || j < newer.len() {
        let hash = match (older.get(i), newer.get(j)) {
            (Some(a), Some(b)) => a.hash.min(b.hash),
            (Some(a), None) => a.hash,
            (None, Some(b)) => b.hash,
            (None, None) => unreachable!("the loop's condition"),
        };
        let a_end = i + older[i..].iter().take_while(|e| e.hash == hash).count();
        let b_end = j + newer[j..].iter().take_while(|e| e.hash == hash).count();
        if a_end - i + b_end - j == 1 {
            out.extend_from_slice(&older[i..a_end]);
            out.extend_from_slice(&newer[j..b_end]);
        } else {
            // The same key in both, or keys whose hashes collide.
            let mut by_key: Vec<(String, Entry)> = Vec::new();
            for e in older[i..a_end].iter().chain(&newer[j..b_end]) {
                let key = key_of(e)?;
                match by_key.iter_mut().find(|(k, _)| *k == key) {
                    Some((_, kept)) => {
                        if (e.time, &writers[e.writer as usize].id)
                            > (kept.time, &writers[kept.writer as usize].id)
                        {
                            *kept = *e;
                        }
                    }
                    None => by_key.push((key, *e)),
                }
            }
            out.extend(by_key.into_iter().map(|(_, e)| e));
        }
        (i, j) = (a_end, b_end);
    }
    Ok(out)
}

/// Creates a table of `generation` under a name of its own; its number,
/// or `None` if names kept being taken.
fn create_table(
    backend: &dyn Backend,
    generation: u64,
    bytes: &[u8],
) -> Result<Option<u64>, StoreError> {
    for attempt in 0..TRIES {
        // The generation alone first: builds that take turns never race
        // for it, and their tables keep names (and the manifest a size)
        // that do not change from one build to the next.
        let random = match attempt {
            0 => 0,
            _ => crate::__ids::random_bits(attempt as u64),
        };
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
/// those of a generation up to `generation`, and what is not a table
/// (written aside by a build that stopped). One that cannot be deleted
/// now (a file a reader has open, where that forbids it) is left to the
/// next build.
fn delete_dead_tables(
    backend: &dyn Backend,
    manifest: &Checkpoint,
    generation: u64,
) -> Result<(), StoreError> {
    for listed in backend.list(&format!("{}/", layout::TABLES))? {
        let dead = layout::table_number(&listed.name)
            .is_none_or(|n| n >> 32 <= generation && !manifest.tables.contains(&n));
        if dead && let Err(e) = backend.delete(&listed.name) {
            log::debug!(target: "codec::store", "a table stays for the next build: {e}");
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use crate::backend::folder::Folder;
    use crate::backend::Backend;
    use crate::{Cache, CacheOptions};

    /// A build on no manifest (deleted, or never committed) takes a
    /// generation past every table in `index/`, so that the tables a
    /// stopped build left, of any generation, are deleted after its commit.
    #[test]
    fn a_build_on_no_manifest_deletes_the_tables_of_every_generation_left() {
        let dir = tempfile::tempdir().unwrap();
        let manual = CacheOptions::default().checkpoint_bytes(0);
        let cache = Cache::open_with(dir.path(), manual).unwrap();
        cache.put("k", &1u32).unwrap();
        let left = dir.path().join(crate::layout::table_object(7 << 32 | 1));
        std::fs::create_dir_all(left.parent().unwrap()).unwrap();
        std::fs::write(&left, b"left by a build that stopped").unwrap();
        let backend: Arc<dyn Backend> = Arc::new(Folder::new(dir.path()));
        super::build(&backend, true, false, super::Sources::Every)
            .unwrap()
            .unwrap();
        assert!(!left.exists());
        let tables = std::fs::read_dir(dir.path().join(crate::layout::TABLES)).unwrap();
        assert_eq!(tables.count(), 1);
        assert_eq!(cache.admin().verify_index().unwrap(), 1);
    }

    /// A build that starts from a checkpoint checks the ends of the logs
    /// it covers: a log a power loss cut short and that was written again
    /// holds new lines where the checkpoint covers lost ones, and a build
    /// going on from the checkpoint's end skipped them (committed, no
    /// handle read them again).
    #[test]
    fn a_build_from_a_checkpoint_reads_a_log_written_again_from_its_start() {
        let dir = tempfile::tempdir().unwrap();
        let manual = CacheOptions::default().checkpoint_bytes(0);
        let cache = Cache::open_with(dir.path(), manual.clone()).unwrap();
        cache.put("lost", &1u32).unwrap();
        let log = dir.path().join(format!("{}-info.jsonl", cache.writer_id()));
        cache.admin().checkpoint().unwrap();
        drop(cache);
        let bytes = std::fs::read(&log).unwrap();
        std::fs::write(&log, &bytes[..2]).unwrap();
        let writer = Cache::open_with(dir.path(), manual.clone()).unwrap();
        writer
            .put("new", &"longer than the line lost".to_owned())
            .unwrap();
        drop(writer);
        let backend: Arc<dyn Backend> = Arc::new(Folder::new(dir.path()));
        let built = super::build(&backend, true, false, super::Sources::Every)
            .unwrap()
            .unwrap();
        assert!(
            built
                .warnings
                .iter()
                .any(|w| w.contains("does not end as it did")),
            "{:?}",
            built.warnings
        );
        let fresh = Cache::open_with(dir.path(), manual).unwrap();
        assert_eq!(
            fresh.get::<String>("new").unwrap().as_deref(),
            Some("longer than the line lost")
        );
        assert_eq!(fresh.admin().verify_index().unwrap(), 1);
    }
}
