//! Building a checkpoint where logs grow in place (a folder): under
//! `checkpoint.lock`, tables written whole (aside, synced and renamed in
//! a folder), then the manifest.

use std::collections::HashMap;
use std::sync::Arc;

use crate::backend::{Backend, Locking};
use crate::error::StoreError;
use crate::index::checkpoint::{checked, encode_manifest, Base, Logs, Unopened, FORMAT, RATIO};
use crate::index::records::{Checkpoint, Covered};
use crate::index::table::{self, key_hash, Damaged, Entry};
use crate::index::{logs, read_complete_lines};
use crate::layout;

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

/// Builds a checkpoint of the store in `backend` from the lines after
/// the last one (all of them if `full`, or if the last one is damaged).
/// Waits for another build to end if `wait`, else returns `Ok(None)` when
/// one runs.
pub fn build(
    backend: &Arc<dyn Backend>,
    wait: bool,
    full: bool,
) -> Result<Option<Built>, StoreError> {
    let how = if wait {
        Locking::Alone
    } else {
        Locking::TryAlone
    };
    // Without locks, builds do not take turns (no such backend yet).
    let lock = match backend.locks() {
        Some(locks) => match locks.lock(layout::CHECKPOINT_LOCK, how)? {
            Some(lock) => Some(lock),
            None => return Ok(None),
        },
        None => None,
    };
    let mut built = Built::default();
    let base = if full {
        None
    } else {
        match Base::open(backend) {
            Ok(base) => base,
            Err(Unopened::Failed(e)) => return Err(e.into()),
            Err(Unopened::Damaged(Damaged(why))) => {
                built.warnings.push(format!(
                    "{}: the checkpoint is damaged ({why}); rebuilt from the logs",
                    backend.location()
                ));
                None
            }
        }
    };
    // A log that lost its end and was written again holds lines where
    // the checkpoint covers others: built from the logs alone.
    if let Some(b) = &base
        && let (Some(log), _) = changed_logs(&**backend, &b.manifest)?
    {
        drop(lock);
        let mut again = build(backend, true, true)?.unwrap_or_default();
        again.warnings.insert(
            0,
            format!(
                "{}: the checkpoint is damaged ({log} does not end as it did when covered); \
                 rebuilt from the logs",
                backend.location()
            ),
        );
        return Ok(Some(again));
    }
    let mut manifest = base
        .as_ref()
        .map(|b| b.manifest.clone())
        .unwrap_or_else(|| Checkpoint {
            format: FORMAT,
            ..Checkpoint::default()
        });
    // Built again from the logs, the checkpoint replaces the one there,
    // whose tables handles may be about to map: they go once the new
    // manifest is in place, and the new table takes a number of its own.
    let replaced = match base {
        Some(_) => Vec::new(),
        None => previous_tables(&**backend)?,
    };
    manifest.next_table = manifest
        .next_table
        .max(replaced.iter().max().map_or(0, |&n| n + 1));
    delete_unnamed_tables(&**backend, &manifest, &replaced)?;
    let (fresh, lines) = read_new_lines(&**backend, &mut manifest)?;
    built.lines = lines;
    if fresh.is_empty() && base.is_some() {
        built.tables = manifest.tables.len();
        return Ok(Some(built));
    }
    let logs = Logs::new(Some(backend), &manifest.writers);
    let mut older = PointingTables {
        base: base.as_ref(),
        logs: &logs,
    };
    let (newest, kept) = match merge_newest(fresh, &mut older, &manifest.writers, false)? {
        Ok(merged) => merged,
        Err(Damaged(why)) => {
            // Start again from the logs alone.
            drop(lock);
            let mut again = build(backend, true, true)?.unwrap_or_default();
            again.warnings.insert(
                0,
                format!(
                    "{}: the checkpoint is damaged ({why}); rebuilt from the logs",
                    backend.location()
                ),
            );
            return Ok(Some(again));
        }
    };
    let mut merged_away = manifest.tables.split_off(kept);
    merged_away.extend(replaced);
    let number = manifest.next_table;
    manifest.next_table += 1;
    backend.write(&layout::table_object(number), &table::encode(&newest), true)?;
    manifest.tables.push(number);
    backend.write(layout::CHECKPOINT, &encode_manifest(&manifest)?, true)?;
    for n in merged_away {
        let _ = backend.delete(&layout::table_object(n));
    }
    built.tables = manifest.tables.len();
    Ok(Some(built))
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
    base: Option<&'a Base>,
    logs: &'a Logs,
}

impl OlderTables for PointingTables<'_> {
    fn count(&self) -> usize {
        self.base.map_or(0, |b| b.tables.len())
    }

    fn len(&self, t: usize) -> usize {
        self.base.map_or(0, |b| b.tables[t].len())
    }

    fn entries(&mut self, t: usize) -> Result<Vec<Entry>, Damaged> {
        match self.base {
            Some(b) => b.tables[t].iter().collect(),
            None => Ok(Vec::new()),
        }
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

/// Deletes the objects of `index/` the manifest does not name: tables of
/// a build that stopped before its manifest, files written aside.
fn delete_unnamed_tables(
    backend: &dyn Backend,
    manifest: &Checkpoint,
    kept: &[u64],
) -> Result<(), StoreError> {
    let Ok(listing) = backend.list(&format!("{}/", layout::TABLES)) else {
        return Ok(());
    };
    let named: Vec<String> = (manifest.tables.iter().chain(kept))
        .map(|&n| layout::table_object(n))
        .collect();
    for listed in listing {
        if !named.contains(&listed.name) {
            let _ = backend.delete(&listed.name);
        }
    }
    Ok(())
}

/// The tables of the manifest in place, if it parses (a build from the
/// logs replaces them). A read that fails fails the build: its tables
/// would read as named by no manifest, and be deleted under it.
fn previous_tables(backend: &dyn Backend) -> Result<Vec<u64>, StoreError> {
    let manifest = backend.read(layout::CHECKPOINT)?;
    let manifest = manifest.and_then(|bytes| crate::index::checkpoint::parse_manifest(&bytes).ok());
    Ok(manifest.map(|m| m.tables).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use crate::backend::folder::Folder;
    use crate::backend::Backend;
    use crate::{Cache, CacheOptions};

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
        let built = super::build(&backend, true, false).unwrap().unwrap();
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
