//! Compaction: the live entries rewritten by one fresh writer, every other
//! index and data file deleted.
//!
//! It runs alone: every [`Cache`] handle holds a shared lock on
//! `codec-store.lock` and compaction takes it exclusively, so it never
//! deletes a file under a live handle (and handles opened meanwhile wait).
//! A stop at any point leaves a folder that reads as before or as after:
//! - while copying, the copies are new lines of the same values;
//! - then `compacting.json` lists the files being replaced, atomically, and
//!   readers ignore them from then on, deleted or not (so a removal in one
//!   old file can never be undone by a put in another that survived);
//! - the next compaction finishes deleting them before it starts.

use std::collections::HashSet;
use std::fs::File;
use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use crate::backend::folder::lock_file;
use crate::cache::open::create_folder;
use crate::cache::write::Payload;
use crate::cache::Cache;
use crate::content::apart;
use crate::content::handler::Handler;
use crate::error::StoreError;
use crate::index::logs::read_marker;
use crate::index::records::Compacting;
use crate::index::EntryInfo;
use crate::options::CacheOptions;
use codec_runtime::__store::LargeBin;

/// The marker of a compaction that has copied every live entry.
use crate::layout::{self, COMPACT_MARKER as MARKER, LOCK};

/// What [`Admin::compact`](crate::Admin::compact) did.
#[derive(Debug)]
#[non_exhaustive]
pub struct Compacted {
    /// Live entries rewritten.
    pub kept: usize,
    /// Entries that could not be read (damaged data), with why: they are gone.
    pub dropped: Vec<(String, StoreError)>,
    /// Bytes of the files deleted (the copies written in their place not
    /// counted: see `size_before` and `size_after`).
    pub freed: u64,
    /// Writer schemas (`schemas/<fingerprint>.json`) no live entry uses
    /// any more, deleted.
    pub schemas_removed: usize,
    /// Bytes of the folder's files before the compaction.
    pub size_before: u64,
    /// Bytes of the folder's files after it: `size_before - size_after` is
    /// what the compaction gave back (zero for a folder compacted already).
    pub size_after: u64,
}

/// An error unless `dir` is a cache folder already: what works on one
/// (compaction, rebuilding the index) never makes one of another folder.
pub(crate) fn require_cache_folder(dir: &Path) -> Result<(), StoreError> {
    if dir.join(layout::META).exists() {
        return Ok(());
    }
    Err(StoreError::open(
        dir.display().to_string(),
        format!("it is not a codec cache folder (no {})", layout::META),
    ))
}

impl Cache {
    /// [`Admin::compact`](crate::Admin::compact).
    pub(crate) fn compact(
        dir: impl AsRef<Path>,
        handlers: &[Arc<dyn Handler>],
        mut progress: impl FnMut(usize, usize),
    ) -> Result<Compacted, StoreError> {
        let dir = dir.as_ref();
        require_cache_folder(dir)?;
        create_folder(dir)?;
        let lock = lock_file(dir).map_err(|e| StoreError::io(dir.join(LOCK), e))?;
        // A handle closing at this moment is not one in use, nor is a child
        // process between its fork and its exec, which holds a copy of its
        // parent's descriptors (and so of their locks) for that instant:
        // try again for a moment before refusing.
        let patience = std::time::Instant::now() + std::time::Duration::from_millis(250);
        loop {
            match lock.try_lock() {
                Ok(()) => break,
                Err(std::fs::TryLockError::WouldBlock) if std::time::Instant::now() < patience => {
                    std::thread::sleep(std::time::Duration::from_millis(5));
                }
                Err(std::fs::TryLockError::WouldBlock) => {
                    return Err(StoreError::InUse {
                        dir: dir.to_owned(),
                    })
                }
                Err(std::fs::TryLockError::Error(e)) => {
                    return Err(StoreError::io(dir.join(LOCK), e))
                }
            }
        }
        let size_before = folder_size(dir)?;
        let mut freed = finish(dir)?;
        let (kept, dropped, writer_id) = copy_live_entries(dir, handlers, &mut progress)?;
        // The checkpoint points into logs the compaction deletes: the
        // folder reads from the logs until the next one.
        crate::index::checkpoint::remove(dir)?;
        mark_replaced(dir, &writer_id)?;
        freed += finish(dir)?;
        let schemas_removed = remove_unused_schemas(dir)?;
        // No handle holds a key lock while the folder is compacted.
        let locks = dir.join(layout::KEY_LOCKS);
        if locks.exists() {
            std::fs::remove_dir_all(&locks).map_err(|e| StoreError::io(&locks, e))?;
        }
        Ok(Compacted {
            kept,
            dropped,
            freed,
            schemas_removed,
            size_before,
            size_after: folder_size(dir)?,
        })
    }
}

/// Copies every live entry into a new writer, synced to disk; returns how
/// many, the entries dropped as damaged, and the new writer's id.
#[allow(clippy::type_complexity)]
fn copy_live_entries(
    dir: &Path,
    handlers: &[Arc<dyn Handler>],
    progress: &mut dyn FnMut(usize, usize),
) -> Result<(usize, Vec<(String, StoreError)>, String), StoreError> {
    let open = |options| -> Result<Cache, StoreError> {
        let cache = Cache::open_locked(dir, options, None)?;
        for h in handlers {
            cache.register_handler(h.clone());
        }
        Ok(cache)
    };
    // No checkpoint while compacting: it would name the logs it deletes.
    let options = CacheOptions {
        checkpoint_bytes: 0,
        ..CacheOptions::default()
    };
    let old = open(options.clone())?;
    let entries = old.entries()?;
    if let Some(e) = entries.iter().find(|e| old.handler(&e.handler).is_none()) {
        return Err(StoreError::UnknownHandler {
            key: e.key.clone(),
            handler: e.handler.clone(),
        });
    }
    let new = open(options)?;
    let mut dropped = Vec::new();
    for (done, entry) in entries.iter().enumerate() {
        match read_entry(&old, entry) {
            Ok((payload, large)) => write_entry(&new, entry, &payload, &large)?,
            Err(e) if e.is_damage() => dropped.push((entry.key.clone(), e)),
            // Anything else (permissions, too many open files) may pass:
            // stop rather than drop an entry that is intact.
            Err(e) => return Err(e),
        }
        progress(done + 1, entries.len());
    }
    sync_writer_files(dir, &new.writer_id)?;
    Ok((
        entries.len() - dropped.len(),
        dropped,
        new.writer_id.clone(),
    ))
}

/// An entry's payload, and where the buffers its `auto` handler kept apart
/// are in it (so that the copy keeps exactly those apart).
pub(crate) fn read_entry(
    cache: &Cache,
    entry: &EntryInfo,
) -> Result<(Vec<u8>, Vec<LargeBin>), StoreError> {
    if entry.handler == layout::AUTO {
        apart::Parts::load(&entry.info, &cache.load_context(&entry.key))?.reassemble()
    } else {
        Ok((cache.entry_payload(entry)?, Vec::new()))
    }
}

/// Stores `payload` as `entry` describes it: its type, fingerprint, mode
/// and handler (a built-in one chosen again by size).
pub(crate) fn write_entry(
    cache: &Cache,
    entry: &EntryInfo,
    payload: &[u8],
    large: &[LargeBin],
) -> Result<(), StoreError> {
    let handler = (!layout::is_sized_handler(&entry.handler)).then_some(entry.handler.as_str());
    cache.write_entry(
        &entry.key,
        entry.type_name.clone(),
        entry.fingerprint.clone(),
        entry.mode,
        Payload {
            bytes: payload,
            large,
        },
        handler,
    )
}

/// Syncs every file of writer `id` to disk: the copies must be durable
/// before the marker makes readers rely on them alone.
fn sync_writer_files(dir: &Path, id: &str) -> Result<(), StoreError> {
    for (folder, prefix) in [
        (dir.to_owned(), format!("{id}-")),
        (dir.join(layout::DATA), id.to_owned()),
    ] {
        let listing = std::fs::read_dir(&folder).map_err(|e| StoreError::io(&folder, e))?;
        for entry in listing {
            let entry = entry.map_err(|e| StoreError::io(&folder, e))?;
            if entry.file_name().to_string_lossy().starts_with(&prefix) {
                let path = entry.path();
                File::open(&path)
                    .and_then(|f| f.sync_all())
                    .map_err(|e| StoreError::io(&path, e))?;
            }
        }
    }
    sync_folder(&dir.join(layout::DATA))?;
    sync_folder(dir)
}

/// Lists every index and data file but the new writer's in the marker,
/// written aside, synced, then renamed into place.
fn mark_replaced(dir: &Path, keep: &str) -> Result<(), StoreError> {
    let mut replaced = Vec::new();
    for sub in ["", layout::DATA] {
        let folder = dir.join(sub);
        let listing = std::fs::read_dir(&folder).map_err(|e| StoreError::io(&folder, e))?;
        for entry in listing {
            let entry = entry.map_err(|e| StoreError::io(&folder, e))?;
            let Ok(name) = entry.file_name().into_string() else {
                continue;
            };
            let ours = layout::is_writers_file(&name, keep);
            let is_index = layout::log_writer(&name).is_some();
            if !ours && (sub == layout::DATA || is_index) {
                replaced.push(if sub.is_empty() {
                    name
                } else {
                    format!("{sub}/{name}")
                });
            }
        }
    }
    replaced.sort();
    let bytes = codec_runtime::to_json_vec(&Compacting { replaced })?;
    let tmp = dir.join(format!("{MARKER}{}", layout::TMP_SUFFIX));
    let mut file = File::create(&tmp).map_err(|e| StoreError::io(&tmp, e))?;
    file.write_all(&bytes)
        .and_then(|()| file.sync_all())
        .map_err(|e| StoreError::io(&tmp, e))?;
    let path = dir.join(MARKER);
    std::fs::rename(&tmp, &path).map_err(|e| StoreError::io(&path, e))?;
    sync_folder(dir)
}

/// Deletes the files the marker lists, then the marker; returns the bytes freed.
fn finish(dir: &Path) -> Result<u64, StoreError> {
    if !dir.join(MARKER).exists() {
        return Ok(0);
    }
    let marker = read_marker(&crate::backend::folder::Folder::new(dir))?;
    let mut freed = 0;
    for name in &marker.replaced {
        if name.contains("..") || name.starts_with('/') {
            return Err(StoreError::Corrupt {
                key: MARKER.into(),
                message: format!("`{name}` is not a file of the folder"),
            });
        }
        let path = dir.join(name);
        match std::fs::metadata(&path) {
            Ok(meta) => freed += meta.len(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(StoreError::io(&path, e)),
        }
        std::fs::remove_file(&path).map_err(|e| StoreError::io(&path, e))?;
    }
    let path = dir.join(MARKER);
    std::fs::remove_file(&path).map_err(|e| StoreError::io(&path, e))?;
    Ok(freed)
}

/// Deletes the writer schemas no live entry names; returns how many.
fn remove_unused_schemas(dir: &Path) -> Result<usize, StoreError> {
    let live: HashSet<String> = Cache::open_locked(dir, CacheOptions::default(), None)?
        .entries()?
        .into_iter()
        .filter_map(|e| e.fingerprint)
        .map(|fp| layout::schema_name(&fp))
        .collect();
    let folder = dir.join(layout::SCHEMAS);
    let listing = std::fs::read_dir(&folder).map_err(|e| StoreError::io(&folder, e))?;
    let mut removed = 0;
    for entry in listing {
        let entry = entry.map_err(|e| StoreError::io(&folder, e))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.ends_with(".json") && !live.contains(&name) {
            let path = entry.path();
            std::fs::remove_file(&path).map_err(|e| StoreError::io(&path, e))?;
            removed += 1;
        }
    }
    Ok(removed)
}

/// Bytes of the files under `dir`, subfolders included.
fn folder_size(dir: &Path) -> Result<u64, StoreError> {
    let mut total = 0;
    let listing = std::fs::read_dir(dir).map_err(|e| StoreError::io(dir, e))?;
    for entry in listing {
        let entry = entry.map_err(|e| StoreError::io(dir, e))?;
        let meta = entry
            .metadata()
            .map_err(|e| StoreError::io(entry.path(), e))?;
        total += if meta.is_dir() {
            folder_size(&entry.path())?
        } else {
            meta.len()
        };
    }
    Ok(total)
}

/// Makes a rename in `dir` durable.
fn sync_folder(dir: &Path) -> Result<(), StoreError> {
    // Some platforms cannot open or sync a folder; the rename stands
    // there, only its durability on power loss is the file system's.
    let _ = File::open(dir).and_then(|d| d.sync_all());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_compaction_stopped_after_its_marker_reads_as_after() {
        let dir = tempfile::tempdir().unwrap();
        let dir = dir.path();
        let a = Cache::open(dir).unwrap();
        a.put("kept", &1u32).unwrap();
        a.put("gone", &2u32).unwrap();
        a.put("big", &"b".repeat(5000)).unwrap();
        let b = Cache::open(dir).unwrap();
        b.remove("gone").unwrap();
        b.put("kept", &10u32).unwrap();
        let b_index = dir.join(layout::log_name(b.writer_id()));
        drop((a, b));

        // Compaction's steps, up to the marker, under its lock.
        let lock = lock_file(dir).unwrap();
        lock.try_lock().unwrap();
        let (kept, dropped, id) = copy_live_entries(dir, &[], &mut |_, _| {}).unwrap();
        assert_eq!((kept, dropped.len()), (2, 0));
        mark_replaced(dir, &id).unwrap();
        drop(lock);
        // Stopped after deleting only the index file that removed `gone`:
        // read without the marker, the other old file would bring it back.
        std::fs::remove_file(&b_index).unwrap();
        let reader = Cache::open(dir).unwrap();
        assert_eq!(reader.keys().unwrap(), ["big", "kept"]);
        assert_eq!(reader.get::<u32>("kept").unwrap(), Some(10));
        assert_eq!(reader.get::<String>("big").unwrap(), Some("b".repeat(5000)));
        drop(reader);

        // The next compaction completes it.
        let done = Cache::compact(dir, &[], |_, _| {}).unwrap();
        assert_eq!(done.kept, 2);
        assert!(done.freed > 5000, "{done:?}");
        assert!(!dir.join(MARKER).exists());
        let indexes = crate::index::index_files(dir).unwrap();
        assert_eq!(indexes.len(), 1, "{indexes:?}");
        let reader = Cache::open(dir).unwrap();
        assert_eq!(reader.keys().unwrap(), ["big", "kept"]);
        assert_eq!(reader.get::<u32>("kept").unwrap(), Some(10));
    }
}
