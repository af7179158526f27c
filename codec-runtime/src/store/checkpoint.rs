//! Checkpoints: the folder's index as sorted, memory-mapped tables, so that
//! opening a folder reads only the log lines written after the last one.
//!
//! A checkpoint is derived data. The writers' logs stay the source of
//! truth; `checkpoint.json` names the tables and how far into each log they
//! reach (and a checksum of the last bytes it covers of each), and is
//! replaced (written aside, synced, renamed) only after every table it names
//! is in place. The logs are not synced for it: where a power loss took the
//! end of a log, the log's tail no longer matches and the checkpoint is put
//! aside. A process
//! killed at any point leaves the previous checkpoint, or the new one, and
//! perhaps files no checkpoint names, which the next one deletes.
//!
//! One handle at a time builds a checkpoint (`checkpoint.lock`, taken
//! without waiting: another handle busy with one is as good); writers go on
//! appending meanwhile, readers go on reading the tables they mapped.
//!
//! Each build turns the lines after the last checkpoint into a new table,
//! then merges the newest tables while one is not at least four times the
//! size of the next: a folder of `n` entries has about `log4(n / lines per
//! checkpoint)` tables, and each entry is rewritten that many times at most.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, RwLock};

use memmap2::Mmap;

use super::backend::folder::Folder;
use super::index::{index_files, read_complete_lines};
use super::layout;
use super::line::{check_line, LineView, Spans};
use super::records::{Checkpoint, Covered};
use super::table::{self, key_hash, Damaged, Entry, Table};
use super::{Cache, StoreError};

/// The checkpoint format this codec writes and reads.
const FORMAT: u32 = 1;
/// A table is merged into the one before it unless that one is this many
/// times larger.
const RATIO: usize = 4;

/// The checkpoint a handle reads: its manifest and its tables, mapped.
pub struct Base {
    pub manifest: Checkpoint,
    /// Oldest first.
    tables: Vec<Table>,
    logs: Logs,
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
}

/// The writers' logs, mapped for reading the lines tables point at.
struct Logs {
    dir: PathBuf,
    ids: Vec<String>,
    maps: RwLock<Vec<Option<Arc<Mmap>>>>,
}

impl Logs {
    fn new(dir: &Path, writers: &[Covered]) -> Logs {
        Logs {
            dir: dir.to_owned(),
            ids: writers.iter().map(|w| w.id.clone()).collect(),
            maps: RwLock::new(vec![None; writers.len()]),
        }
    }

    /// The text of the line `e` points at, checked.
    fn line(&self, e: &Entry) -> Result<(Arc<Mmap>, usize, usize), Damaged> {
        let w = e.writer as usize;
        let id = self
            .ids
            .get(w)
            .ok_or_else(|| Damaged(format!("an entry names writer {w}, unknown")))?;
        let start = e.offset as usize;
        let end = start + e.len as usize;
        let cached = self.maps.read().unwrap_or_else(|p| p.into_inner())[w].clone();
        let map = match cached {
            Some(map) if map.len() > end => map,
            _ => {
                let path = self.dir.join(layout::log_name(id));
                let file =
                    File::open(&path).map_err(|e| Damaged(format!("{}: {e}", path.display())))?;
                // SAFETY: logs are append-only: no byte a checkpoint covers
                // is ever rewritten or truncated (compaction deletes whole
                // files, with no handle open), and reads are bounds-checked.
                let map = Arc::new(
                    unsafe { Mmap::map(&file) }
                        .map_err(|e| Damaged(format!("{}: {e}", path.display())))?,
                );
                self.maps.write().unwrap_or_else(|p| p.into_inner())[w] = Some(map.clone());
                map
            }
        };
        if map.len() <= end || map[end] != b'\n' {
            return Err(Damaged(format!(
                "an entry points past the end of {}",
                layout::log_name(id)
            )));
        }
        Ok((map, start, end))
    }
}

/// A table the manifest names is not there.
struct Missing(String);

/// A line's text, checked, and its view.
fn checked(bytes: &[u8]) -> Result<(&str, LineView<'_>), Damaged> {
    let text = check_line(bytes).map_err(|why| Damaged(format!("a line it points at: {why}")))?;
    let view = LineView::parse(text).map_err(|e| Damaged(format!("a line it points at: {e}")))?;
    Ok((text, view))
}

impl Base {
    /// The checkpoint of `dir`; `Ok(None)` if it has none.
    pub fn open(dir: &Path) -> Result<Option<Base>, Damaged> {
        // A build that merged tables deletes them after replacing the
        // manifest: a table gone missing means a newer manifest to read.
        let mut tries = 0;
        loop {
            match Self::open_once(dir) {
                Err(Missing(why)) if tries < 5 => {
                    tries += 1;
                    let _ = why;
                }
                Err(Missing(why)) => return Err(Damaged(why)),
                Ok(result) => return result,
            }
        }
    }

    fn open_once(dir: &Path) -> Result<Result<Option<Base>, Damaged>, Missing> {
        let manifest = match read_manifest(dir) {
            Ok(Some(manifest)) => manifest,
            Ok(None) => return Ok(Ok(None)),
            Err(e) => return Ok(Err(e)),
        };
        let mut tables = Vec::with_capacity(manifest.tables.len());
        for &n in &manifest.tables {
            let path = layout::table_path(dir, n);
            let table = match Table::open(&path) {
                Ok(Ok(table)) => table,
                Ok(Err(Damaged(why))) => {
                    return Ok(Err(Damaged(format!("{}: {why}", path.display()))))
                }
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    return Err(Missing(format!("{}: {e}", path.display())))
                }
                Err(e) => return Ok(Err(Damaged(format!("{}: {e}", path.display())))),
            };
            tables.push(table);
        }
        Ok(Ok(Some(Base {
            logs: Logs::new(dir, &manifest.writers),
            manifest,
            tables,
        })))
    }

    /// The writer ids, by position.
    pub fn writer_ids(&self) -> &[String] {
        &self.logs.ids
    }

    /// The newest line of `key` in the tables.
    pub fn lookup(&self, key: &str) -> Result<Option<Hit>, Damaged> {
        let hash = key_hash(key);
        let mut found = Vec::new();
        for table in &self.tables {
            table.find(hash, &mut found)?;
        }
        let mut best: Option<Hit> = None;
        for e in &found {
            let (map, start, end) = self.logs.line(e)?;
            let (text, view) = checked(&map[start..end])?;
            if view.key != key {
                continue; // another key with the same hash
            }
            check_entry(e, &view)?;
            let newer = best.as_ref().is_none_or(|b| {
                (e.time, &self.logs.ids[e.writer as usize])
                    > (b.time, &self.logs.ids[b.writer as usize])
            });
            if newer {
                best = Some(Hit {
                    time: e.time,
                    writer: e.writer,
                    text: (!e.removed).then(|| Arc::from(text)),
                    spans: view.spans(text),
                    seq: view.seq,
                });
            }
        }
        Ok(best)
    }

    /// Every key's newest line in the tables, removals included.
    pub fn all(&self) -> Result<HashMap<String, Hit>, Damaged> {
        let mut out: HashMap<String, Hit> = HashMap::new();
        for table in &self.tables {
            for e in table.iter() {
                let e = e?;
                let (map, start, end) = self.logs.line(&e)?;
                let (text, view) = checked(&map[start..end])?;
                check_entry(&e, &view)?;
                let ids = &self.logs.ids;
                let newer = out.get(&*view.key).is_none_or(|b| {
                    (e.time, &ids[e.writer as usize]) > (b.time, &ids[b.writer as usize])
                });
                if newer {
                    let hit = Hit {
                        time: e.time,
                        writer: e.writer,
                        text: (!e.removed).then(|| Arc::from(text)),
                        spans: None,
                        seq: view.seq,
                    };
                    out.insert(view.key.into_owned(), hit);
                }
            }
        }
        Ok(out)
    }

    /// Checks every table block and every line the tables point at.
    pub fn verify(&self) -> Result<usize, Damaged> {
        for table in &self.tables {
            table.verify()?;
        }
        Ok(self.all()?.len())
    }
}

fn check_entry(e: &Entry, view: &LineView<'_>) -> Result<(), Damaged> {
    if view.time != e.time || view.handler.is_none() != e.removed {
        return Err(Damaged(format!(
            "the entry of `{}` does not match its line",
            view.key
        )));
    }
    Ok(())
}

/// The manifest of `dir`, checked; `Ok(None)` if there is none.
pub fn read_manifest(dir: &Path) -> Result<Option<Checkpoint>, Damaged> {
    let path = dir.join(layout::CHECKPOINT);
    let bytes = match std::fs::read(&path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Damaged(format!("{}: {e}", path.display()))),
    };
    let damaged = |why: String| Damaged(format!("{}: {why}", layout::CHECKPOINT));
    // `<json>\n<crc32 hex>\n`
    let text = bytes.strip_suffix(b"\n").unwrap_or(&bytes);
    let split = memchr::memrchr(b'\n', text).ok_or_else(|| damaged("no checksum".into()))?;
    let (json, crc) = (&text[..split], &text[split + 1..]);
    let crc = std::str::from_utf8(crc)
        .ok()
        .and_then(|c| u32::from_str_radix(c, 16).ok())
        .ok_or_else(|| damaged("malformed checksum".into()))?;
    if crc32fast::hash(json) != crc {
        return Err(damaged("checksum mismatch".into()));
    }
    let manifest: Checkpoint = crate::from_json_slice(json).map_err(|e| damaged(e.to_string()))?;
    if manifest.format != FORMAT {
        return Err(damaged(format!("unknown format {}", manifest.format)));
    }
    Ok(Some(manifest))
}

/// Identifies a version of the manifest file without reading it.
pub fn manifest_stamp(dir: &Path) -> Option<(u64, u64, i64, i64)> {
    let meta = std::fs::metadata(dir.join(layout::CHECKPOINT)).ok()?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Some((meta.ino(), meta.len(), meta.mtime(), meta.mtime_nsec()))
    }
    #[cfg(not(unix))]
    {
        let modified = meta.modified().ok()?;
        let since = modified.duration_since(std::time::UNIX_EPOCH).ok()?;
        Some((
            0,
            meta.len(),
            since.as_secs() as i64,
            since.subsec_nanos() as i64,
        ))
    }
}

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

/// Builds a checkpoint of `dir` from the lines after the last one (all of
/// them if `full`, or if the last one is damaged). Waits for another build
/// to end if `wait`, else returns `Ok(None)` when one runs.
pub fn build(dir: &Path, wait: bool, full: bool) -> Result<Option<Built>, StoreError> {
    let lock_path = dir.join(layout::CHECKPOINT_LOCK);
    let lock = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&lock_path)
        .map_err(|e| StoreError::io(&lock_path, e))?;
    if wait {
        lock.lock().map_err(|e| StoreError::io(&lock_path, e))?;
    } else {
        match lock.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => return Ok(None),
            Err(std::fs::TryLockError::Error(e)) => return Err(StoreError::io(&lock_path, e)),
        }
    }
    let mut built = Built::default();
    let base = if full {
        None
    } else {
        match Base::open(dir) {
            Ok(base) => base,
            Err(Damaged(why)) => {
                built.warnings.push(format!(
                    "{}: the checkpoint is damaged ({why}); rebuilt from the logs",
                    dir.display()
                ));
                None
            }
        }
    };
    let mut manifest = base
        .as_ref()
        .map(|b| b.manifest.clone())
        .unwrap_or_else(|| Checkpoint {
            format: FORMAT,
            ..Checkpoint::default()
        });
    delete_unnamed_tables(dir, &manifest)?;
    let (fresh, lines) = read_new_lines(dir, &mut manifest)?;
    built.lines = lines;
    if fresh.is_empty() && base.is_some() {
        built.tables = manifest.tables.len();
        return Ok(Some(built));
    }
    std::fs::create_dir_all(dir.join(layout::TABLES))
        .map_err(|e| StoreError::io(dir.join(layout::TABLES), e))?;
    let logs = Logs::new(dir, &manifest.writers);
    let mut tables: Vec<(u64, Vec<Entry>)> = Vec::new();
    let mut sizes: Vec<(u64, usize)> = match &base {
        Some(b) => manifest
            .tables
            .iter()
            .zip(&b.tables)
            .map(|(&n, t)| (n, t.len()))
            .collect(),
        None => Vec::new(),
    };
    let mut merged_away = Vec::new();
    let mut newest = fresh;
    // Merge while the table before is not `RATIO` times larger.
    while let Some(&(n, len)) = sizes.last() {
        if len > RATIO * newest.len() {
            break;
        }
        let index = sizes.len() - 1;
        let older = base.as_ref().expect("sizes come from the base").tables[index]
            .iter()
            .collect::<Result<Vec<Entry>, Damaged>>();
        let older = match older {
            Ok(older) => older,
            Err(Damaged(why)) => {
                // Start again from the logs alone.
                drop(lock);
                let mut again = build(dir, true, true)?.unwrap_or_default();
                again.warnings.insert(
                    0,
                    format!(
                        "{}: the checkpoint is damaged ({why}); rebuilt from the logs",
                        dir.display()
                    ),
                );
                return Ok(Some(again));
            }
        };
        newest = merge(&older, &newest, &logs)?;
        merged_away.push(n);
        sizes.pop();
    }
    let number = manifest.next_table;
    manifest.next_table += 1;
    tables.push((number, newest));
    manifest.tables = sizes.iter().map(|&(n, _)| n).collect();
    for (n, entries) in &tables {
        let path = layout::table_path(dir, *n);
        let tmp = path.with_extension(format!("idx{}", layout::TMP_SUFFIX));
        table::write(&tmp, entries).map_err(|e| StoreError::io(&tmp, e))?;
        std::fs::rename(&tmp, &path).map_err(|e| StoreError::io(&path, e))?;
        manifest.tables.push(*n);
    }
    sync_folder(&dir.join(layout::TABLES));
    write_manifest(dir, &manifest)?;
    for n in merged_away {
        let _ = std::fs::remove_file(layout::table_path(dir, n));
    }
    built.tables = manifest.tables.len();
    Ok(Some(built))
}

/// The newest line of each key among the log lines after what `manifest`
/// covers, as entries sorted by hash; moves the manifest's coverage to the
/// end of them. Also returns the lines read.
fn read_new_lines(dir: &Path, manifest: &mut Checkpoint) -> Result<(Vec<Entry>, u64), StoreError> {
    let mut newest: HashMap<Box<str>, Entry> = HashMap::new();
    let mut lines = 0;
    let folder = Folder::new(dir);
    for (id, path) in index_files(dir)? {
        let w = match manifest.writers.iter().position(|c| c.id == id) {
            Some(w) => w,
            None => {
                manifest.writers.push(Covered {
                    id: id.clone(),
                    to: 0,
                    tail: 0,
                });
                manifest.writers.len() - 1
            }
        };
        let from = manifest.writers[w].to;
        let name = layout::log_name(&id);
        let Some(buf) = read_complete_lines(&folder, &name, from)? else {
            continue;
        };
        let mut start = 0;
        for end in memchr::memchr_iter(b'\n', &buf) {
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
            let ids = &manifest.writers;
            let newer = newest
                .get(&*view.key)
                .is_none_or(|b| (entry.time, &ids[w].id) > (b.time, &ids[b.writer as usize].id));
            if newer {
                newest.insert(view.key.into(), entry);
            }
        }
        // Not synced: a checkpoint that covers what a power loss takes
        // from a log is found out by the log's tail and by each line's
        // check, and put aside.
        let to = from + buf.len() as u64;
        manifest.writers[w].to = to;
        manifest.writers[w].tail = tail_crc(&path, to).map_err(|e| StoreError::io(&path, e))?;
    }
    let mut entries: Vec<Entry> = newest.into_values().collect();
    entries.sort_unstable_by_key(|e| (e.hash, e.writer, e.offset));
    Ok((entries, lines))
}

/// The CRC-32 of the 64 bytes of the log at `path` before `to` (fewer if
/// `to` is smaller); an error if the log is shorter than `to`.
pub fn tail_crc(path: &Path, to: u64) -> std::io::Result<u32> {
    use std::io::{Read, Seek, SeekFrom};
    let from = to.saturating_sub(64);
    let mut file = File::open(path)?;
    file.seek(SeekFrom::Start(from))?;
    let mut buf = vec![0; (to - from) as usize];
    file.read_exact(&mut buf)?;
    Ok(crc32fast::hash(&buf))
}

/// Two tables' entries as one: of entries of the same key, the newest.
fn merge(older: &[Entry], newer: &[Entry], logs: &Logs) -> Result<Vec<Entry>, StoreError> {
    let damaged = |Damaged(why)| StoreError::Corrupt {
        key: layout::CHECKPOINT.into(),
        message: why,
    };
    let key_of = |e: &Entry| -> Result<String, StoreError> {
        let (map, start, end) = logs.line(e).map_err(damaged)?;
        let (_, view) = checked(&map[start..end]).map_err(damaged)?;
        Ok(view.key.into_owned())
    };
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
                let ids = &logs.ids;
                match by_key.iter_mut().find(|(k, _)| *k == key) {
                    Some((_, kept)) => {
                        if (e.time, &ids[e.writer as usize])
                            > (kept.time, &ids[kept.writer as usize])
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

/// Deletes the files of `index/` the manifest does not name: tables of a
/// build that stopped before its manifest, files written aside.
fn delete_unnamed_tables(dir: &Path, manifest: &Checkpoint) -> Result<(), StoreError> {
    let folder = dir.join(layout::TABLES);
    let Ok(listing) = std::fs::read_dir(&folder) else {
        return Ok(());
    };
    let named: Vec<PathBuf> = manifest
        .tables
        .iter()
        .map(|&n| layout::table_path(dir, n))
        .collect();
    for entry in listing.flatten() {
        let path = entry.path();
        if !named.contains(&path) {
            let _ = std::fs::remove_file(&path);
        }
    }
    Ok(())
}

fn write_manifest(dir: &Path, manifest: &Checkpoint) -> Result<(), StoreError> {
    let mut bytes = crate::to_json_vec(manifest)?;
    let crc = crc32fast::hash(&bytes);
    bytes.extend_from_slice(format!("\n{crc:08x}\n").as_bytes());
    let path = dir.join(layout::CHECKPOINT);
    let tmp = dir.join(format!("{}{}", layout::CHECKPOINT, layout::TMP_SUFFIX));
    let mut file = File::create(&tmp).map_err(|e| StoreError::io(&tmp, e))?;
    file.write_all(&bytes)
        .and_then(|()| file.sync_all())
        .map_err(|e| StoreError::io(&tmp, e))?;
    std::fs::rename(&tmp, &path).map_err(|e| StoreError::io(&path, e))?;
    sync_folder(dir);
    Ok(())
}

/// Deletes the checkpoint of `dir` (its manifest and tables): compaction
/// and a rebuild start without one.
pub fn remove(dir: &Path) -> Result<(), StoreError> {
    let path = dir.join(layout::CHECKPOINT);
    match std::fs::remove_file(&path) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(StoreError::io(&path, e)),
    }
    let tables = dir.join(layout::TABLES);
    match std::fs::remove_dir_all(&tables) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(StoreError::io(&tables, e)),
    }
}

fn sync_folder(dir: &Path) {
    // Where a folder cannot be synced, the rename stands; only its
    // durability on power loss is the file system's.
    let _ = File::open(dir).and_then(|d| d.sync_all());
}

impl Cache {
    /// Builds a checkpoint of the folder now, from the lines written since
    /// the last one (waiting for a build in progress), and takes it up.
    /// Checkpoints also build by themselves, in the background, once
    /// [`CacheOptions::checkpoint_bytes`](super::CacheOptions::checkpoint_bytes)
    /// of the logs are not covered.
    pub fn checkpoint(&self) -> Result<(), StoreError> {
        if self.backend.folder().is_none() {
            return Ok(()); // only a folder has checkpoints
        }
        self.join_checkpoint();
        let full = self.index_read().is_distrusted();
        let built = build(&self.dir, true, full)?;
        self.record(built);
        if full {
            self.index_write().trust_again();
        }
        self.refresh()
    }

    /// Builds the checkpoint of the folder `dir` again from the logs
    /// alone, whatever state the last one is in (`codec verify
    /// --rebuild-index`). Returns the lines read.
    pub fn rebuild_index(dir: impl AsRef<Path>) -> Result<u64, StoreError> {
        let dir = dir.as_ref();
        if !dir.join(layout::META).exists() {
            return Err(StoreError::Custom {
                message: format!(
                    "{} is not a codec cache folder (no {})",
                    dir.display(),
                    layout::META
                ),
            });
        }
        Ok(build(dir, true, true)?.map_or(0, |b| b.lines))
    }

    /// Checks the checkpoint this handle reads whole: every block of its
    /// tables, every line they point at. Returns the keys it holds
    /// (0 without a checkpoint); a damage is a [`StoreError::Corrupt`].
    pub fn verify_index(&self) -> Result<usize, StoreError> {
        self.refresh()?;
        self.index_read()
            .verify_checkpoint()
            .map_err(|Damaged(why)| StoreError::Corrupt {
                key: layout::CHECKPOINT.into(),
                message: format!(
                    "{why}; rebuild it from the logs with `codec verify --rebuild-index`"
                ),
            })
    }

    /// After a write: a checkpoint in the background if the logs not
    /// covered by one passed the threshold; the one that ended taken up.
    pub(super) fn after_write(&self, uncovered: u64) {
        let c = &self.checkpoints;
        if c.ended.swap(false, Ordering::Relaxed) {
            self.take_up_checkpoint();
        }
        let threshold = self.options.checkpoint_bytes;
        if threshold == 0
            || self.backend.folder().is_none()
            || uncovered < threshold
            || c.running.swap(true, Ordering::AcqRel)
        {
            return;
        }
        self.join_checkpoint_thread();
        let full = self.index_read().is_distrusted();
        let (dir, running, ended, warnings) = (
            self.dir.clone(),
            c.running.clone(),
            c.ended.clone(),
            c.warnings.clone(),
        );
        let rebuilt = c.rebuilt.clone();
        let spawned = std::thread::Builder::new()
            .name("codec-checkpoint".into())
            .spawn(move || {
                lower_priority();
                match build(&dir, false, full) {
                    Ok(Some(built)) => {
                        rebuilt.store(full, Ordering::Relaxed);
                        push_warnings(&warnings, built.warnings);
                    }
                    Ok(None) => {}
                    Err(e) => push_warnings(&warnings, vec![format!("a checkpoint failed: {e}")]),
                }
                ended.store(true, Ordering::Release);
                running.store(false, Ordering::Release);
            });
        match spawned {
            Ok(handle) => {
                *c.thread.lock().unwrap_or_else(|e| e.into_inner()) = Some(handle);
            }
            Err(_) => c.running.store(false, Ordering::Release),
        }
    }

    /// Takes up the checkpoint a background build made.
    pub(super) fn take_up_checkpoint(&self) {
        let mut index = self.index_write();
        if self.checkpoints.rebuilt.swap(false, Ordering::Relaxed) {
            index.trust_again();
        }
        if let Some(dir) = self.backend.folder() {
            index.adopt(dir);
        }
    }

    /// Waits for the background build, if one runs.
    pub(super) fn join_checkpoint(&self) {
        self.join_checkpoint_thread();
        if self.checkpoints.ended.swap(false, Ordering::Relaxed) {
            self.take_up_checkpoint();
        }
    }

    pub(super) fn join_checkpoint_thread(&self) {
        let handle = self
            .checkpoints
            .thread
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        if let Some(handle) = handle {
            let _ = handle.join();
        }
    }

    fn record(&self, built: Option<Built>) {
        if let Some(built) = built {
            push_warnings(&self.checkpoints.warnings, built.warnings);
        }
    }
}

/// Background builds yield the processor to the handle's writers.
fn lower_priority() {
    #[cfg(target_os = "linux")]
    // SAFETY: plain system calls on the calling thread.
    unsafe {
        let _ = libc::setpriority(libc::PRIO_PROCESS, libc::gettid() as libc::id_t, 10);
    }
}

fn push_warnings(to: &Mutex<Vec<String>>, warnings: Vec<String>) {
    for w in &warnings {
        log::warn!("{w}");
    }
    to.lock()
        .unwrap_or_else(|e| e.into_inner())
        .extend(warnings);
}
