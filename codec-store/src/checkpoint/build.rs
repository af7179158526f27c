//! Building a checkpoint in a folder: under `checkpoint.lock`, tables
//! written aside, synced and renamed, then the manifest.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use super::super::backend::folder::Folder;
use super::super::index::{index_files, read_complete_lines};
use super::super::layout;
use super::super::records::{Checkpoint, Covered};
use super::super::table::{self, key_hash, Damaged, Entry};
use super::super::StoreError;
use super::{checked, encode_manifest, Base, Logs, FORMAT, RATIO};

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
    let logs = Logs::new(Some(dir), &manifest.writers);
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
        newest = merge(&older, &newest, &manifest.writers, |e| {
            let (map, start, end) = logs.line(e)?;
            Ok(checked(&map[start..end])?.1.key.into_owned())
        })?;
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
        lines += add_lines(&mut newest, &buf, from, w, &manifest.writers);
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
/// `key_of` reads an entry's key from its line.
pub(super) fn merge(
    older: &[Entry],
    newer: &[Entry],
    writers: &[Covered],
    key_of: impl Fn(&Entry) -> Result<String, Damaged>,
) -> Result<Vec<Entry>, StoreError> {
    let key_of = |e: &Entry| {
        key_of(e).map_err(|Damaged(why)| StoreError::Corrupt {
            key: layout::CHECKPOINT.into(),
            message: why,
        })
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
    let bytes = encode_manifest(manifest)?;
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
