//! Checkpoints: the store's index as sorted tables, so that opening a
//! store reads only the log lines written after the last one.
//!
//! A checkpoint is derived data. The writers' logs stay the source of
//! truth; `checkpoint.json` (the manifest) names the tables and how far
//! into each writer's log they reach, and is replaced only after every
//! table it names is in place. A process killed at any point leaves the
//! previous checkpoint, or the new one, and perhaps tables no checkpoint
//! names, which a later build deletes. Writers go on appending during a
//! build, readers go on reading the tables they hold.
//!
//! Each build turns the lines after the last checkpoint into a new table,
//! then merges the newest tables while one is not at least four times the
//! size of the next: a store of `n` entries has about `log4(n / lines per
//! checkpoint)` tables, and each entry is rewritten that many times at most.
//!
//! One build serves every backend ([`build`]): it reads the manifest and
//! its tables ([`Base::open`] reads the same), turns lines into entries
//! and merges tables one way, writes its table under a name of its own
//! and commits the manifest by compare-and-swap on the version it read
//! (of two builds from one version, exactly one commits; the other
//! deletes its table). Where the backend has locks ([`Backend::locks`]),
//! builds also take turns on `checkpoint.lock`, one not asked to wait
//! leaving the work to the one under way.
//!
//! The checkpoint's format on disk follows how the backend's appends land
//! ([`Backend::appends`]), and with it how a build reads the logs:
//! - where a log grows in place (a folder), tables point into the logs,
//!   mapped where the backend has maps; coverage is bytes of each log,
//!   with a checksum of the last bytes covered (the logs are not synced
//!   for a checkpoint: where a power loss took the end of a log, its tail
//!   no longer matches and the checkpoint is put aside, or built again
//!   from the logs);
//! - where a log is one object per append (object storage, memory:
//!   [`objects`]), a byte offset into a log names nothing to map, so
//!   tables hold the lines themselves and are read whole, one request
//!   each; coverage is the number of segments of each writer.

mod build;
pub mod objects;

use foldhash::fast::RandomState as Fast;
use parking_lot::RwLock;
use std::collections::HashMap;
use std::sync::Arc;

pub use build::{build, changed_logs, Built};
pub(crate) use build::{build_from, Start, Stop};

use crate::backend::{Appends, Backend, BackendError, Mapped, Version};
use crate::index::line::{check_line, LineView, Spans};
use crate::index::records::{Checkpoint, Covered};
use crate::index::table::{key_hash, Damaged, Entry, Table};
use crate::layout;

/// The checkpoint format this codec writes and reads.
const FORMAT: u32 = 1;
/// A table is merged into the one before it unless that one is this many
/// times larger.
const RATIO: usize = 4;

/// Where a log is one object per append (object storage, memory), what
/// each segment no checkpoint covers counts towards
/// [`CacheOptions::checkpoint_bytes`](crate::CacheOptions::checkpoint_bytes)
/// at least: a fresh open reads each with a request of its own, so small
/// puts must bring a checkpoint too (at the default 4 MiB, one every 512
/// segments at most, however small their lines).
pub const SEGMENT_BYTES: u64 = 8 * 1024;

/// The checkpoint a handle reads: its manifest and its tables (mapped, or
/// read whole where the backend has no maps).
pub struct Base {
    pub manifest: Checkpoint,
    /// Oldest first.
    tables: Vec<Table>,
    logs: Logs,
    /// The manifest's version.
    pub version: Option<Version>,
    /// Whether coverage counts segments ([`Appends::Segments`]), rather
    /// than bytes of logs that grow in place.
    pub segments: bool,
}

/// The live line of a key in a checkpoint.
pub struct Hit {
    pub time: u64,
    /// The writer, by position in the manifest.
    pub writer: u32,
    /// The line's text; `None` for a removal.
    pub text: Option<Arc<str>>,
    /// Where the line's fields are in `text`.
    pub spans: Option<Spans>,
    pub seq: u64,
    /// When the line's entry expires, in nanoseconds since the Unix epoch.
    pub expires: Option<u64>,
}

/// Which lines of a log [`Base::needed`] is asked for.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Asked {
    /// Every one.
    Every,
    /// Those the caller asks for by their bytes, past its first bytes
    /// (none of whose lines is asked for: the caller read them).
    PastFirst(u64),
}

/// What [`Base::needed`] read.
pub struct Needed {
    /// The newest line of each key asked for.
    pub lines: HashMap<Box<str>, Hit, Fast>,
    /// By key hash, the time and writer of the newest line in the tables.
    pub newest: HashMap<u64, (u64, u32), Fast>,
}

impl Hit {
    /// The line `text` entry `e` points at, read as `view`, its spans not
    /// kept.
    fn of(e: &Entry, text: &str, view: &LineView<'_>) -> Hit {
        Hit {
            time: e.time,
            writer: e.writer,
            text: (!e.removed).then(|| Arc::from(text)),
            spans: None,
            seq: view.seq,
            expires: view.expires,
        }
    }
}

/// The writers' logs, mapped for reading the lines tables point at
/// (where logs grow in place; elsewhere tables hold their lines, and
/// `backend` is `None`).
struct Logs {
    backend: Option<Arc<dyn Backend>>,
    ids: Vec<String>,
    maps: RwLock<Vec<Option<Arc<Mapped>>>>,
}

impl Logs {
    fn new(backend: Option<&Arc<dyn Backend>>, writers: &[Covered]) -> Logs {
        Logs {
            backend: backend.cloned(),
            ids: writers.iter().map(|w| w.id.clone()).collect(),
            maps: RwLock::new(vec![None; writers.len()]),
        }
    }

    /// The text of the line `e` points at, checked.
    fn line(&self, e: &Entry) -> Result<(Arc<Mapped>, usize, usize), Damaged> {
        let w = e.writer as usize;
        let id = self
            .ids
            .get(w)
            .ok_or_else(|| Damaged(format!("an entry names writer {w}, unknown")))?;
        let past_the_end = || {
            Damaged(format!(
                "an entry points past the end of {}",
                layout::log_name(id)
            ))
        };
        let start = usize::try_from(e.offset).map_err(|_| past_the_end())?;
        let end = (start.checked_add(e.len as usize)).ok_or_else(past_the_end)?;
        let cached = self.maps.read()[w].clone();
        let map = match cached {
            Some(map) if map.len() > end => map,
            _ => {
                let no_maps =
                    || Damaged("a table without its lines, where logs are not mapped".into());
                let backend = self.backend.as_ref().ok_or_else(no_maps)?;
                let maps = backend.maps().ok_or_else(no_maps)?;
                // Logs are append-only: no byte a checkpoint covers is
                // ever rewritten or truncated (compaction deletes whole
                // logs, with no handle open), and reads are bounds-checked.
                let map = maps
                    .map(&layout::log_name(id))
                    .map_err(|e| Damaged(e.to_string()))?;
                let map = Arc::new(map);
                self.maps.write()[w] = Some(map.clone());
                map
            }
        };
        if map.len() <= end || map[end] != b'\n' {
            return Err(past_the_end());
        }
        Ok((map, start, end))
    }
}

/// A table the manifest names is not there.
struct Missing(String);

/// Why [`Base::open`] gave no checkpoint.
#[derive(Debug)]
pub enum Unopened {
    /// Its bytes are not what was written: the logs are read instead.
    Damaged(Damaged),
    /// A read failed (an I/O error, a timeout): not a sign of damage. The
    /// checkpoint may hold lines that no log holds any more (segments a
    /// power cut took after a table covering them was synced), so it is
    /// not given up for the logs: try again.
    Failed(BackendError),
}

/// A line's text, checked, and its view.
fn checked(bytes: &[u8]) -> Result<(&str, LineView<'_>), Damaged> {
    let text = check_line(bytes).map_err(|why| Damaged(format!("a line it points at: {why}")))?;
    let view = LineView::parse(text).map_err(|e| Damaged(format!("a line it points at: {e}")))?;
    Ok((text, view))
}

/// Table `name` of a manifest of `writers` writers: mapped where the
/// backend has maps (tables are written aside and linked into place, then
/// never written again: a new checkpoint writes new files, and deletes old
/// ones by name, which leaves maps intact), else read whole; `Ok(None)` if
/// it is gone.
pub(super) fn open_table(
    backend: &dyn Backend,
    name: &str,
    writers: usize,
) -> Result<Option<Result<Table, Damaged>>, BackendError> {
    match backend.maps() {
        Some(maps) => match maps.map(name) {
            Ok(map) => Ok(Some(Table::from_mapped(map, writers))),
            Err(e) if e.source.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        },
        None => Ok(backend
            .read(name)?
            .map(|bytes| Table::from_bytes(bytes, writers))),
    }
}

impl Base {
    /// The checkpoint of the store in `backend`; `Ok(None)` if it has
    /// none. Its tables are mapped where the backend has maps, else read
    /// whole (one request each).
    pub fn open(backend: &Arc<dyn Backend>) -> Result<Option<Base>, Unopened> {
        // A build that merged tables deletes them after replacing the
        // manifest: a table gone missing means a newer manifest to read.
        let mut tries = 0;
        loop {
            match Self::open_once(backend) {
                Err(Missing(why)) if tries < 5 => {
                    tries += 1;
                    let _ = why;
                }
                Err(Missing(why)) => return Err(Unopened::Damaged(Damaged(why))),
                Ok(result) => return result,
            }
        }
    }

    fn open_once(backend: &Arc<dyn Backend>) -> Result<Result<Option<Base>, Unopened>, Missing> {
        let read = backend.read_versioned(layout::CHECKPOINT);
        let (bytes, version) = match read {
            Ok(Some(read)) => read,
            Ok(None) => return Ok(Ok(None)),
            Err(e) => return Ok(Err(Unopened::Failed(e))),
        };
        let manifest = match parse_manifest(&bytes) {
            Ok(manifest) => manifest,
            Err(e) => return Ok(Err(Unopened::Damaged(e))),
        };
        let mut tables = Vec::with_capacity(manifest.tables.len());
        for &n in &manifest.tables {
            let name = layout::table_object(n);
            let table = match open_table(&**backend, &name, manifest.writers.len()) {
                Ok(Some(table)) => table,
                Ok(None) => return Err(Missing(format!("{name} is missing"))),
                Err(e) => return Ok(Err(Unopened::Failed(e))),
            };
            match table {
                Ok(table) => tables.push(table),
                Err(Damaged(why)) => {
                    let why = format!("{}: {why}", backend.address(&name));
                    return Ok(Err(Unopened::Damaged(Damaged(why))));
                }
            }
        }
        let segments = backend.appends() == Appends::Segments;
        Ok(Ok(Some(Base {
            logs: Logs::new((!segments).then_some(backend), &manifest.writers),
            manifest,
            tables,
            version: Some(version),
            segments,
        })))
    }

    /// Runs `f` on the line entry `e` of table `t` points at.
    fn with_line<R>(
        &self,
        t: usize,
        e: &Entry,
        f: impl FnOnce(&[u8]) -> Result<R, Damaged>,
    ) -> Result<R, Damaged> {
        match self.tables[t].own_line(e) {
            Some(line) => f(line?),
            None => {
                let (map, start, end) = self.logs.line(e)?;
                f(&map[start..end])
            }
        }
    }

    /// The writer ids, by position.
    pub fn writer_ids(&self) -> &[String] {
        &self.logs.ids
    }

    /// The newest line of `key` in the tables.
    pub fn lookup(&self, key: &str) -> Result<Option<Hit>, Damaged> {
        let hash = key_hash(key);
        let mut found = Vec::new();
        let mut best: Option<Hit> = None;
        for (t, table) in self.tables.iter().enumerate() {
            found.clear();
            (table.find(hash, &mut found)).map_err(|d| self.in_table(t, d))?;
            for e in &found {
                let newer = best.as_ref().is_none_or(|b| {
                    (e.time, &self.logs.ids[e.writer as usize])
                        > (b.time, &self.logs.ids[b.writer as usize])
                });
                if !newer {
                    continue;
                }
                let hit = self.with_line(t, e, |line| {
                    let (text, view) = checked(line)?;
                    check_entry(e, &view)?;
                    if view.key != key {
                        return Ok(None); // another key with the same hash
                    }
                    Ok(Some(Hit {
                        time: e.time,
                        writer: e.writer,
                        text: (!e.removed).then(|| Arc::from(text)),
                        spans: view.spans(text),
                        seq: view.seq,
                        expires: view.expires,
                    }))
                })?;
                if hit.is_some() {
                    best = hit;
                }
            }
        }
        Ok(best)
    }

    /// Every key's newest line in the tables, removals included.
    pub fn all(&self) -> Result<HashMap<Box<str>, Hit, Fast>, Damaged> {
        // foldhash, as the index's maps: every key of the store is hashed
        // here, at each compaction and each pass of the bounds.
        let entries = self.tables.iter().map(Table::len).sum();
        let mut out: HashMap<Box<str>, Hit, Fast> =
            HashMap::with_capacity_and_hasher(entries, Fast::default());
        let ids = &self.logs.ids;
        for (t, table) in self.tables.iter().enumerate() {
            for e in table.iter() {
                let e = e.map_err(|d| self.in_table(t, d))?;
                self.with_line(t, &e, |line| {
                    let (text, view) = checked(line)?;
                    check_entry(&e, &view)?;
                    match out.get_mut(&*view.key) {
                        Some(known) => {
                            let newer = (e.time, &ids[e.writer as usize])
                                > (known.time, &ids[known.writer as usize]);
                            if newer {
                                *known = Hit::of(&e, text, &view);
                            }
                        }
                        None => {
                            let hit = Hit::of(&e, text, &view);
                            out.insert(view.key.into(), hit);
                        }
                    }
                    Ok(())
                })?;
            }
        }
        Ok(out)
    }

    /// The newest line of each key in the tables that the caller asks
    /// for, with its text: of each log, what `log_asked` (its writer id)
    /// says, and where it says so, the lines `line_asked` (their bytes,
    /// not checked yet) says; and the newest time and writer of each key
    /// hash in the tables. A line not asked for is not checked nor
    /// parsed, and one of a log that asks for none not read at all: a
    /// compaction copies few of the store's lines, and reading them all
    /// was most of its work. `None` if a line asked for shares its hash
    /// with a newer line of another key (never seen): the caller reads
    /// them all then ([`all`](Self::all)).
    pub fn needed(
        &self,
        log_asked: &dyn Fn(&str) -> Asked,
        line_asked: &dyn Fn(&[u8]) -> bool,
    ) -> Result<Option<Needed>, Damaged> {
        let ids = &self.logs.ids;
        let logs_asked: Vec<Asked> = ids.iter().map(|id| log_asked(id)).collect();
        let newer = |a: &Entry, b: &Entry| {
            (a.time, &ids[a.writer as usize]) > (b.time, &ids[b.writer as usize])
        };
        let entries = self.tables.iter().map(Table::len).sum();
        let mut newest: HashMap<u64, (usize, Entry), Fast> =
            HashMap::with_capacity_and_hasher(entries, Fast::default());
        for (t, e) in self.table_entries() {
            let e = e?;
            match newest.get_mut(&e.hash) {
                Some(known) if !newer(&e, &known.1) => {}
                Some(known) => *known = (t, e),
                None => {
                    newest.insert(e.hash, (t, e));
                }
            }
        }
        let mut lines: HashMap<Box<str>, Hit, Fast> = HashMap::default();
        for (t, e) in self.table_entries() {
            let e = e?;
            let asked = match logs_asked.get(e.writer as usize) {
                Some(Asked::Every) => Some(true),
                Some(Asked::PastFirst(read)) if e.offset < *read => continue,
                _ => None,
            };
            let asked = self.with_line(t, &e, |line| {
                if !asked.unwrap_or_else(|| line_asked(line)) {
                    return Ok(None);
                }
                let (text, view) = checked(line)?;
                check_entry(&e, &view)?;
                Ok(Some((
                    Box::<str>::from(&*view.key),
                    Hit::of(&e, text, &view),
                )))
            })?;
            let Some((key, hit)) = asked else { continue };
            let (nt, ne) = newest[&e.hash];
            if (nt, ne) != (t, e) {
                // A newer line of the same hash: of this key, or not.
                let same = self.with_line(nt, &ne, |line| Ok(checked(line)?.1.key == *key))?;
                if !same {
                    return Ok(None);
                }
                continue;
            }
            lines.insert(key, hit);
        }
        let newest = (newest.into_iter())
            .map(|(hash, (_, e))| (hash, (e.time, e.writer)))
            .collect();
        Ok(Some(Needed { lines, newest }))
    }

    /// Every entry of the tables with the position of its table.
    fn table_entries(&self) -> impl Iterator<Item = (usize, Result<Entry, Damaged>)> + '_ {
        (self.tables.iter().enumerate()).flat_map(move |(t, table)| {
            (table.iter()).map(move |e| (t, e.map_err(|d| self.in_table(t, d))))
        })
    }

    /// Every entry of the tables, oldest table first, without reading
    /// the lines they point at.
    pub fn entries(
        &self,
    ) -> impl Iterator<Item = Result<crate::index::table::Entry, Damaged>> + '_ {
        self.table_entries().map(|(_, e)| e)
    }

    /// `damage` of table `t`'s own bytes, named by its object.
    fn in_table(&self, t: usize, Damaged(why): Damaged) -> Damaged {
        Damaged(format!(
            "{}: {why}",
            layout::table_object(self.manifest.tables[t])
        ))
    }

    /// Checks every table block and every line the tables point at.
    pub fn verify(&self) -> Result<usize, Damaged> {
        for (t, table) in self.tables.iter().enumerate() {
            table.verify().map_err(|d| self.in_table(t, d))?;
        }
        Ok(self.all()?.len())
    }
}

/// Whether entry `e` says what the line it points at says: the hash of
/// its key (an entry that points at another key's line would hide its
/// own key, taken for another with the same hash), its time, and whether
/// it removes the key.
fn check_entry(e: &Entry, view: &LineView<'_>) -> Result<(), Damaged> {
    if key_hash(&view.key) != e.hash {
        return Err(Damaged(format!(
            "an entry of another key points at the line of `{}`",
            view.key
        )));
    }
    if view.time != e.time || view.handler.is_none() != e.removed {
        return Err(Damaged(format!(
            "the entry of `{}` does not match its line",
            view.key
        )));
    }
    Ok(())
}

/// The error of a damaged checkpoint of the store `backend` holds, with
/// the fix.
pub(crate) fn damaged(backend: &dyn Backend, Damaged(why): Damaged) -> crate::error::StoreError {
    crate::error::StoreError::damaged_file(
        backend,
        layout::CHECKPOINT,
        format!(
            "{why}. It is the index checkpoint: a handle that finds it damaged reads the logs \
             instead and rebuilds it at its next checkpoint; on a folder, `codec verify \
             --rebuild-index` (Admin::rebuild_index) rebuilds it now"
        ),
    )
}

/// A manifest's bytes, checked: `<json>\n<crc32 hex>\n`.
pub fn parse_manifest(bytes: &[u8]) -> Result<Checkpoint, Damaged> {
    let damaged = |why: String| Damaged(format!("{}: {why}", layout::CHECKPOINT));
    let text = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    let split = memchr::memrchr(b'\n', text).ok_or_else(|| damaged("no checksum".into()))?;
    let (json, crc) = (&text[..split], &text[split + 1..]);
    let crc = std::str::from_utf8(crc)
        .ok()
        .and_then(|c| u32::from_str_radix(c, 16).ok())
        .ok_or_else(|| damaged("malformed checksum".into()))?;
    if crc32fast::hash(json) != crc {
        return Err(damaged("checksum mismatch".into()));
    }
    let manifest: Checkpoint =
        codec_runtime::from_json_slice(json).map_err(|e| damaged(e.to_string()))?;
    if manifest.format != FORMAT {
        return Err(damaged(format!("unknown format {}", manifest.format)));
    }
    // The next build takes this number and counts on from it.
    if manifest.next_table == u64::MAX {
        return Err(damaged("no table number left after the last".into()));
    }
    Ok(manifest)
}

/// A manifest's bytes: `<json>\n<crc32 hex>\n`.
fn encode_manifest(manifest: &Checkpoint) -> Result<Vec<u8>, codec_runtime::EncodeError> {
    let mut bytes = codec_runtime::to_json_vec(manifest)?;
    let crc = crc32fast::hash(&bytes);
    bytes.extend_from_slice(format!("\n{crc:08x}\n").as_bytes());
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::folder::Folder;
    use crate::backend::memory::Memory;
    use crate::index::table::{encode, encode_with_lines};
    use crate::{Cache, CacheOptions};

    /// A store in `backend` holding `k` in its checkpoint, whose tables
    /// are then written again with `edit` applied to their entries (a
    /// hostile writer's tables, their checksums right).
    fn hostile_checkpoint(backend: Arc<dyn Backend>, edit: impl Fn(&mut Vec<Entry>)) {
        hostile_checkpoint_of(backend, &["k"], edit);
    }

    /// [`hostile_checkpoint`] of a store holding `keys`, put in order.
    fn hostile_checkpoint_of(
        backend: Arc<dyn Backend>,
        keys: &[&str],
        edit: impl Fn(&mut Vec<Entry>),
    ) {
        let cache = Cache::open_backend(backend.clone(), CacheOptions::default()).unwrap();
        for key in keys {
            cache.put(key, &1u32).unwrap();
        }
        cache.admin().checkpoint().unwrap();
        drop(cache);
        let bytes = backend.read(layout::CHECKPOINT).unwrap().unwrap();
        let manifest = parse_manifest(&bytes).unwrap();
        for &n in &manifest.tables {
            let name = layout::table_object(n);
            let bytes = backend.read(&name).unwrap().unwrap();
            let table = Table::from_bytes(bytes, manifest.writers.len()).unwrap();
            let mut entries: Vec<Entry> = table.iter().map(Result::unwrap).collect();
            let own_lines = table.own_line(&entries[0]).is_some();
            let mut lines = Vec::new();
            for e in &mut entries {
                if let Some(line) = table.own_line(e) {
                    let line = line.unwrap();
                    e.offset = lines.len() as u64;
                    lines.extend_from_slice(line);
                    lines.push(b'\n');
                }
            }
            edit(&mut entries);
            let bytes = match own_lines {
                true => encode_with_lines(&entries, &lines),
                false => encode(&entries),
            };
            backend.write(&name, &bytes, false).unwrap();
        }
    }

    /// Of the lines asked for, only the newest of each key are read: one
    /// asked for whose key has a newer line in a newer table, not asked
    /// for, is left out (a compaction would copy it for nothing).
    #[test]
    fn a_line_asked_for_is_left_out_where_its_key_has_a_newer_one() {
        let dir = tempfile::tempdir().unwrap();
        let backend: Arc<dyn Backend> = Arc::new(Folder::new(dir.path()));
        let cache = Cache::open_backend(backend.clone(), CacheOptions::default()).unwrap();
        cache.put("k", &1u32).unwrap();
        // A table too large for the next one's to merge into.
        for i in 0..20u32 {
            cache.put(&format!("other{i}"), &i).unwrap();
        }
        let old = cache.lookup("k").unwrap().unwrap().time;
        cache.admin().checkpoint().unwrap();
        cache.put("k", &2u32).unwrap();
        let new = cache.lookup("k").unwrap().unwrap().time;
        cache.admin().checkpoint().unwrap();
        let base = Base::open(&backend).unwrap().unwrap();
        assert!(base.tables.len() > 1, "one table");
        let written_at = |time: u64| {
            let field = format!(r#""time":{time},"#);
            move |line: &[u8]| memchr::memmem::find(line, field.as_bytes()).is_some()
        };
        let no_log = |_: &str| Asked::PastFirst(0);
        let found = base.needed(&no_log, &written_at(old)).unwrap().unwrap();
        assert!(
            found.lines.is_empty(),
            "{:?}",
            found.lines.keys().collect::<Vec<_>>()
        );
        assert_eq!(found.newest[&key_hash("k")].0, new);
        let found = base.needed(&no_log, &written_at(new)).unwrap().unwrap();
        assert_eq!(found.lines.keys().collect::<Vec<_>>(), [&"k".into()]);
        assert_eq!(found.lines["k"].time, new);
        let every = base.needed(&|_| Asked::Every, &|_| false).unwrap().unwrap();
        assert_eq!(every.lines.len(), 21);
        assert_eq!(every.lines["k"].time, new);
    }

    /// Two keys of one hash (never seen with 64 bits; made here by hand
    /// in a table whose checksums are right): a line asked for whose hash
    /// a newer line of another key shares is not taken for that key's
    /// newest nor left out as older; the tables give up (`None`) and every
    /// line is read instead.
    #[test]
    fn a_line_asked_for_whose_hash_a_newer_key_shares_makes_every_line_read() {
        let backend: Arc<dyn Backend> = Arc::new(Memory::new());
        hostile_checkpoint_of(backend.clone(), &["k", "x"], |entries| {
            for e in entries.iter_mut() {
                if e.hash == key_hash("x") {
                    e.hash = key_hash("k");
                }
            }
            entries.sort_by_key(|e| e.hash);
        });
        let base = Base::open(&backend).unwrap().unwrap();
        let no_log = |_: &str| Asked::PastFirst(0);
        let of_k = |line: &[u8]| memchr::memmem::find(line, br##""#key":"k""##).is_some();
        assert!(base.needed(&no_log, &of_k).unwrap().is_none());
        // What the compaction asks for: `k`'s line, found all the same.
        let cache = Cache::open_backend(backend, CacheOptions::default()).unwrap();
        let lines = cache.newest_lines_needed(&no_log, &of_k).unwrap();
        let keys: Vec<&str> = lines.iter().map(|(key, _, _)| &**key).collect();
        assert_eq!(keys, ["k"]);
        assert!(lines[0]
            .1
            .as_deref()
            .is_some_and(|text| of_k(text.as_bytes())));
    }

    #[test]
    fn a_table_entry_naming_an_unknown_writer_is_damage_not_a_panic() {
        let backend: Arc<dyn Backend> = Arc::new(Memory::new());
        hostile_checkpoint(backend.clone(), |entries| {
            let mut other = entries[0];
            other.writer = 7;
            entries.push(other);
        });
        let base = Base::open(&backend).unwrap().unwrap();
        assert!(base.lookup("k").is_err());
        assert!(base.all().is_err());
        assert!(base.verify().is_err());
    }

    #[test]
    fn a_table_entry_pointing_past_the_end_of_memory_is_damage_not_a_panic() {
        let dir = tempfile::tempdir().unwrap();
        let backend: Arc<dyn Backend> = Arc::new(Folder::new(dir.path()));
        hostile_checkpoint(backend.clone(), |entries| {
            entries[0].offset = u64::MAX - 2;
        });
        let base = Base::open(&backend).unwrap().unwrap();
        assert!(base.lookup("k").is_err());
        assert!(base.all().is_err());
    }
}

#[cfg(test)]
mod numbers {
    use super::*;
    use crate::backend::folder::Folder;
    use crate::backend::memory::Memory;
    use crate::{Cache, CacheOptions};

    fn open(backend: &Arc<dyn Backend>) -> Cache {
        Cache::open_backend(backend.clone(), CacheOptions::default()).unwrap()
    }

    #[test]
    fn a_manifest_with_no_table_number_left_is_rebuilt_not_a_panic() {
        let dir = tempfile::tempdir().unwrap();
        let backends: [Arc<dyn Backend>; 2] =
            [Arc::new(Memory::new()), Arc::new(Folder::new(dir.path()))];
        for backend in backends {
            let cache = open(&backend);
            cache.put("a", &1u32).unwrap();
            cache.admin().checkpoint().unwrap();
            drop(cache);
            let bytes = backend.read(layout::CHECKPOINT).unwrap().unwrap();
            let mut manifest = parse_manifest(&bytes).unwrap();
            manifest.next_table = u64::MAX;
            let bytes = encode_manifest(&manifest).unwrap();
            backend.write(layout::CHECKPOINT, &bytes, false).unwrap();
            let cache = open(&backend);
            cache.put("b", &2u32).unwrap();
            let _ = cache.admin().checkpoint();
            let cache = open(&backend);
            assert_eq!(cache.get::<u32>("a").unwrap(), Some(1));
            assert_eq!(cache.get::<u32>("b").unwrap(), Some(2));
        }
    }

    #[test]
    fn a_log_segment_numbered_past_the_last_number_is_no_panic() {
        let backend: Arc<dyn Backend> = Arc::new(Memory::new());
        let cache = open(&backend);
        cache.put("a", &1u32).unwrap();
        drop(cache);
        let log = backend.list("").unwrap().into_iter();
        let log = log
            .map(|l| l.name)
            .find(|n| n.ends_with(layout::LOG_SUFFIX));
        let log = log.unwrap();
        let bytes = backend.read(&log).unwrap().unwrap();
        let last = layout::segment_name(&log, u64::MAX);
        backend.write(&last, &bytes, false).unwrap();
        let cache = open(&backend);
        let _ = cache.admin().checkpoint();
        let cache = open(&backend);
        assert_eq!(cache.get::<u32>("a").unwrap(), Some(1));
    }
}
