//! Compaction: the live entries of sealed segments copied into a fresh
//! writer, and the segments retired, while handles write on. It is one
//! algorithm for every backend ([`compact_sealed`]); how a backend keeps
//! other compactions out and records a retirement is behind a seam of its
//! own ([`sealed::Retirement`]):
//! - a folder, where an append grows its file in place, has locks: one
//!   compaction at a time, and `compacting.json` lists what it retired
//!   ([`marker`]);
//! - object storage and memory, where each append is an object of its
//!   own, have compare-and-swap: the checkpoint's manifest retires it
//!   ([`manifest`]).
//!
//! [`Admin::compact`](crate::Admin::compact) runs it with the folder to
//! itself (the store's lock, which every handle holds shared, taken
//! alone): every segment is sealed then, so everything but the copies is
//! retired and deleted at once, and the writer schemas no live entry uses
//! are deleted too. A compaction of older code stopped midway left a
//! marker listing what it replaced: it is completed first.
//!
//! [`compact_sealed`]: sealed::compact_sealed

mod kept;
mod manifest;
mod marker;
pub(crate) mod sealed;

pub(crate) use kept::SealedLines;
pub(crate) use manifest::overtaken;

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use crate::backend::folder::Folder;
use crate::backend::{Appends, Backend, Lock, Locking, Locks};
use crate::cache::open::create_folder;
use crate::cache::write::Payload;
use crate::cache::Cache;
use crate::compaction::sealed::{compact_sealed, Compaction};
use crate::content::apart;
use crate::content::handler::{DumpContext, Handler};
use crate::error::StoreError;
use crate::index::records::{Compacting, Info, InfoValue};
use crate::index::EntryInfo;
use crate::layout::{self, COMPACT_MARKER as MARKER};
use crate::options::CacheOptions;
use codec_runtime::__store::LargeBin;

/// Copies whose lines a compaction appends at once (on object storage,
/// one segment object per this many entries, not one per entry).
const COPIES_PER_APPEND: usize = 1000;

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

impl Compacted {
    /// A compaction that did nothing, of a store of `size` bytes.
    pub(crate) fn nothing(size: u64) -> Compacted {
        Compacted {
            kept: 0,
            dropped: Vec::new(),
            freed: 0,
            schemas_removed: 0,
            size_before: size,
            size_after: size,
        }
    }
}

/// [`Admin::compact`](crate::Admin::compact).
pub(crate) fn compact_folder(
    dir: &Path,
    handlers: &[Arc<dyn Handler>],
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Compacted, StoreError> {
    crate::cache::open::require_cache_folder(dir)?;
    create_folder(dir)?;
    compact_alone(Arc::new(Folder::new(dir)), handlers, progress)
}

/// [`Admin::compact_backend`](crate::Admin::compact_backend).
pub(crate) fn compact_backend(
    backend: Arc<dyn Backend>,
    handlers: &[Arc<dyn Handler>],
    grace: Duration,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Compacted, StoreError> {
    if backend.read(layout::META)?.is_none() {
        return Err(StoreError::open(
            backend.location(),
            format!("it is not a codec cache (no {})", layout::META),
        ));
    }
    // A folder, where appends grow files in place, is compacted with the
    // store to itself.
    match backend.appends() {
        Appends::InPlace => compact_alone(backend, handlers, progress),
        Appends::Segments => {
            compact_sealed(None, backend, handlers, Compaction::Asked(grace), progress)
        }
    }
}

/// [`Admin::compact_online`](crate::Admin::compact_online): the store
/// `cache` has open, with the handlers registered on it.
pub(crate) fn compact_handle_online(
    cache: &Cache,
    grace: Duration,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Compacted, StoreError> {
    let handlers: Vec<Arc<dyn Handler>> = (cache.handlers.read()).values().cloned().collect();
    let backend = cache.backend.clone();
    compact_sealed(
        Some(cache),
        backend,
        &handlers,
        Compaction::Asked(grace),
        progress,
    )
}

/// Compacts the store `backend` holds with the store to itself (see the
/// module's comment); `backend` is a cache already.
pub(crate) fn compact_alone(
    backend: Arc<dyn Backend>,
    handlers: &[Arc<dyn Handler>],
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Compacted, StoreError> {
    let Some(locks) = backend.locks() else {
        return Err(StoreError::unsupported(
            backend.location(),
            "its compaction needs the store to itself, and the backend has no locks \
             to keep other handles out",
        ));
    };
    let _alone = take_alone(locks, &backend.location())?;
    let size_before = store_size(&*backend)?;
    // A compaction of older code stopped midway: its marker lists what
    // it replaced, deleted first.
    let finished = finish(&*backend)?;
    // The compaction of every folder, every writer's segments sealed
    // (none is live).
    let done = compact_sealed(None, backend.clone(), handlers, Compaction::Alone, progress)?;
    // What no handle can be using: the writer schemas no live entry uses.
    let schemas_removed = remove_unused_schemas(&backend)?;
    Ok(Compacted {
        freed: done.freed + finished,
        schemas_removed,
        size_before,
        size_after: store_size(&*backend)?,
        ..done
    })
}

/// The store's lock, taken alone.
fn take_alone(locks: &dyn Locks, location: &str) -> Result<Lock, StoreError> {
    // A handle closing at this moment is not one in use, nor is a child
    // process between its fork and its exec, which holds a copy of its
    // parent's descriptors (and so of their locks) for that instant: try
    // again for a moment before refusing.
    let patience = std::time::Instant::now() + std::time::Duration::from_millis(250);
    loop {
        if let Some(lock) = locks.lock(layout::LOCK, Locking::TryAlone)? {
            return Ok(lock);
        }
        if std::time::Instant::now() >= patience {
            return Err(StoreError::InUse {
                dir: location.into(),
            });
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}

/// `cache` with `handlers` registered.
pub(crate) fn with_handlers(cache: Cache, handlers: &[Arc<dyn Handler>]) -> Cache {
    for h in handlers {
        cache.register_handler(h.clone());
    }
    cache
}

/// Copies `entries` (live entries of `old`, each with the time of its
/// line) into `new`, each line with the time of the line it copies (so
/// that a write made meanwhile by another handle, later, still wins, and
/// the copy wins a tie with its original: a new writer's id sorts after
/// every older one), the lines `COPIES_PER_APPEND` to an append. Returns
/// how many it copied and the entries dropped as damaged; an entry of a
/// handler not given is an error before anything is written, any other
/// read error stops it.
pub(crate) fn copy_entries(
    old: &Cache,
    new: &Cache,
    entries: Vec<(EntryInfo, u64)>,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<(usize, Vec<(String, StoreError)>), StoreError> {
    // An entry of a handler not given is copied from the bytes its dump
    // recorded; one that recorded none (written before entries did)
    // needs its handler.
    if let Some((e, _)) = entries
        .iter()
        .find(|(e, _)| old.handler(&e.handler).is_none() && e.parts.is_none())
    {
        return Err(StoreError::UnknownHandler {
            key: e.key.clone(),
            handler: e.handler.clone(),
        });
    }
    let mut dropped = Vec::new();
    let mut done = 0;
    for copies in entries.chunks(COPIES_PER_APPEND) {
        let first_segment = new.writer.lock().segment;
        new.in_one_append(|| {
            for (entry, time) in copies {
                new.writer.lock().pinned_time = Some(*time);
                let copied = if entry.info.contains_key(layout::VALUES) {
                    copy_holding_values(old, new, entry)
                } else if old.handler(&entry.handler).is_none() {
                    copy_recorded(old, new, entry)
                } else {
                    read_entry(old, entry)
                        .and_then(|(payload, large)| write_entry(new, entry, &payload, &large))
                };
                match copied {
                    Ok(()) => {}
                    Err(e) if e.is_damage() => dropped.push((entry.key.clone(), e)),
                    // Anything else (permissions, too many open files)
                    // may pass: stop rather than drop an entry that is
                    // intact.
                    Err(e) => return Err(e),
                }
                done += 1;
                progress(done, entries.len());
            }
            // Copies are read as soon as their lines are written (they win
            // over their originals): their shared data is durable first,
            // once for the lines of an append, where the handle does not
            // sync each write (one sync for each entry copied was most of
            // a compaction's time).
            if new.writer.defers_syncs() {
                new.writer.sync_shared(first_segment)?;
            }
            Ok(())
        })?;
    }
    // The lines `new` writes after are timed by the clock, or as given.
    new.writer.lock().pinned_time = None;
    Ok((entries.len() - dropped.len(), dropped))
}

/// Copies an entry of a handler `old` does not have from the bytes its
/// dump recorded (`content/parts.rs`): each file and range, checked, to a
/// file or range of `new`, and the info's names of them (a file's name, a
/// sub-value's `at:` token) to the copies'. A part the info does not name
/// so is refused: only the handler knows where it keeps it.
fn copy_recorded(old: &Cache, new: &Cache, entry: &EntryInfo) -> Result<(), StoreError> {
    let mut info = entry.info.clone();
    let mut values = take_values(&mut info);
    let (info, copied, held) = new.dump_with(&entry.key, &[], true, |dump| {
        copy_parts(old, entry, dump, &mut info, &mut values)?;
        Ok(info)
    })?;
    new.append_entry(
        &entry.key,
        entry.type_name.clone(),
        entry.fingerprint.clone(),
        &entry.handler,
        entry.mode,
        (info, &copied, values),
        held.max(entry.size),
        entry.expires,
    )
}

/// Copies an entry of a built-in handler whose payload holds the places
/// of values of handled types (`#values`): the payload as
/// [`write_entry`] stores it, and the values' recorded bytes as
/// [`copy_recorded`] copies them, without their handlers. One not built
/// in is copied by `copy_recorded`, which its handler need not read.
fn copy_holding_values(old: &Cache, new: &Cache, entry: &EntryInfo) -> Result<(), StoreError> {
    if !layout::is_built_in_handler(&entry.handler) {
        return copy_recorded(old, new, entry);
    }
    let (payload, large) = read_entry(old, entry)?;
    let mut values = take_values(&mut entry.info.clone());
    let handler = (!layout::is_sized_handler(&entry.handler)).then_some(entry.handler.as_str());
    new.write_entry_made(
        &entry.key,
        entry.type_name.clone(),
        entry.fingerprint.clone(),
        entry.mode,
        handler,
        entry.expires,
        |dump| {
            dump.record = true;
            copy_parts(old, entry, dump, &mut Info::new(), &mut values)?;
            Ok((payload, large, values))
        },
    )
}

/// The tokens of the values an entry's payload holds the places of,
/// taken out of its info.
fn take_values(info: &mut Info) -> Vec<InfoValue> {
    match info.remove(layout::VALUES) {
        Some(InfoValue::List(values)) => values,
        Some(other) => vec![other],
        None => Vec::new(),
    }
}

/// Copies each part `entry` recorded (`content/parts.rs`) from `old`,
/// checked, to a file or range of `dump`'s entry, renaming where `info`
/// or `values` name it (a file's name, a sub-value's `at:` token). A
/// part neither names so is refused: only its handler knows where it is
/// kept.
fn copy_parts(
    old: &Cache,
    entry: &EntryInfo,
    dump: &mut DumpContext<'_>,
    info: &mut Info,
    values: &mut [InfoValue],
) -> Result<(), StoreError> {
    let ctx = old.load_context(&entry.key);
    for part in entry.parts.as_deref().unwrap_or_default() {
        let bytes = part.read_checked(&ctx)?;
        let (from, to) = match part.offset {
            None => {
                let extension = part.file.rsplit_once('.').map_or("", |(_, e)| e);
                (part.file.clone(), dump.write_file(extension, &bytes)?)
            }
            Some(offset) => {
                let (file, at) = dump.append_shared(&bytes)?;
                let token = |file: &str, at: u64| format!("at:{file}:{at}:{}", part.len);
                (token(&part.file, offset), token(&file, at))
            }
        };
        let renamed =
            rename_in(info.values_mut(), &from, &to) + rename_in(values.iter_mut(), &from, &to);
        if renamed == 0 {
            return Err(StoreError::UnknownHandler {
                key: entry.key.clone(),
                handler: entry.handler.clone(),
            });
        }
    }
    Ok(())
}

/// Replaces every text `from` of `info`, at any depth, by `to`; returns
/// how many it replaced.
fn rename_in<'v>(info: impl Iterator<Item = &'v mut InfoValue>, from: &str, to: &str) -> usize {
    fn walk(value: &mut InfoValue, from: &str, to: &str) -> usize {
        match value {
            InfoValue::Text(text) if text == from => {
                *text = to.to_owned();
                1
            }
            InfoValue::List(items) => items.iter_mut().map(|v| walk(v, from, to)).sum(),
            InfoValue::Map(map) => map.values_mut().map(|v| walk(v, from, to)).sum(),
            _ => 0,
        }
    }
    info.map(|v| walk(v, from, to)).sum()
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
        entry.expires,
    )
}

/// Makes every object of writer `id` durable: the copies must be before
/// the marker makes readers rely on them alone.
pub(crate) fn sync_writers_objects(backend: &dyn Backend, id: &str) -> Result<(), StoreError> {
    let mut names = Vec::new();
    for prefix in [String::new(), format!("{}/", layout::DATA)] {
        for listed in backend.list(&prefix)? {
            if layout::is_writers_file(&listed.name[prefix.len()..], id) {
                names.push(listed.name);
            }
        }
    }
    Ok(backend.sync(&names)?)
}

/// Deletes the objects the marker lists, then the marker; returns the
/// bytes freed.
fn finish(backend: &dyn Backend) -> Result<u64, StoreError> {
    let Some(bytes) = backend.read(MARKER)? else {
        return Ok(0);
    };
    let marker: Compacting = codec_runtime::from_json_slice(&bytes)
        .map_err(|e| crate::index::logs::damaged_marker(backend, &e))?;
    let mut sizes = HashMap::new();
    for prefix in [String::new(), format!("{}/", layout::DATA)] {
        sizes.extend(backend.list(&prefix)?.into_iter().map(|o| (o.name, o.size)));
    }
    let mut freed = 0;
    for name in marker.ignored() {
        if name.contains("..") || name.starts_with('/') {
            return Err(StoreError::Corrupt {
                key: MARKER.into(),
                message: format!("`{name}` is not a file of the folder"),
            });
        }
        let Some(size) = sizes.get(name) else {
            continue;
        };
        backend.delete(name)?;
        freed += size;
    }
    backend.delete(MARKER)?;
    Ok(freed)
}

/// Deletes the writer schemas no live entry names; returns how many.
fn remove_unused_schemas(backend: &Arc<dyn Backend>) -> Result<usize, StoreError> {
    let live: HashSet<String> = Cache::open_unlocked(backend.clone(), CacheOptions::default())?
        .entries()?
        .into_iter()
        .filter_map(|e| e.fingerprint)
        .map(|fp| layout::schema_name(&fp))
        .collect();
    let prefix = format!("{}/", layout::SCHEMAS);
    let mut removed = 0;
    for listed in backend.list(&prefix)? {
        let name = &listed.name[prefix.len()..];
        if name.ends_with(".json") && !live.contains(name) {
            backend.delete(&listed.name)?;
            removed += 1;
        }
    }
    Ok(removed)
}

/// Bytes of the store's objects.
pub(crate) fn store_size(backend: &dyn Backend) -> Result<u64, StoreError> {
    let mut total = 0;
    for prefix in [
        String::new(),
        format!("{}/", layout::DATA),
        format!("{}/", layout::SCHEMAS),
        format!("{}/", layout::TABLES),
    ] {
        total += backend.list(&prefix)?.iter().map(|o| o.size).sum::<u64>();
    }
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compaction::marker::all_but_writers;
    use crate::index::line::LineView;

    /// Copies every live entry of `old` into `new`, as a compaction of
    /// older code did.
    fn copy_live_entries(
        old: &Cache,
        new: &Cache,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<(usize, Vec<(String, StoreError)>), StoreError> {
        copy_entries(old, new, live_entries(old)?, progress)
    }

    /// Every live entry and the time of its line, by key.
    fn live_entries(cache: &Cache) -> Result<Vec<(EntryInfo, u64)>, StoreError> {
        let mut out = Vec::new();
        for (key, text) in cache.live_lines()? {
            let line = LineView::parse(&text).map_err(|e| crate::index::corrupt_line(&key, e))?;
            if let Some(entry) = EntryInfo::of_line(&line)? {
                out.push((entry, line.time));
            }
        }
        out.sort_by(|a, b| a.0.key.cmp(&b.0.key));
        Ok(out)
    }

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
        let folder = Folder::new(dir);
        let lock = take_alone(&folder, "").unwrap();
        let backend: Arc<dyn Backend> = Arc::new(folder.clone());
        let old = Cache::open_unlocked(backend.clone(), CacheOptions::default()).unwrap();
        let new = Cache::open_unread(backend.clone(), CacheOptions::default()).unwrap();
        let (kept, dropped) = copy_live_entries(&old, &new, &mut |_, _| {}).unwrap();
        assert_eq!((kept, dropped.len()), (2, 0));
        let id = new.writer_id.clone();
        drop((old, new));
        sync_writers_objects(&folder, &id).unwrap();
        // The marker a compaction of older code wrote: every other log
        // and data file replaced.
        let replaced = all_but_writers(&folder, &id).unwrap();
        let marker = Compacting {
            replaced,
            retired: Vec::new(),
        };
        let bytes = codec_runtime::to_json_vec(&marker).unwrap();
        folder.write(MARKER, &bytes, true).unwrap();
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
        let done = compact_folder(dir, &[], &mut |_, _| {}).unwrap();
        assert_eq!(done.kept, 2);
        assert!(done.freed > 5000, "{done:?}");
        assert!(!dir.join(MARKER).exists());
        // One writer's logs (its segments, sealed at a small size).
        let indexes = crate::index::logs(&Folder::new(dir)).unwrap();
        let mut writers: Vec<&str> = (indexes.iter())
            .map(|log| layout::segment_of(&log.writer).0)
            .collect();
        writers.dedup();
        assert_eq!(writers.len(), 1, "{indexes:?}");
        let reader = Cache::open(dir).unwrap();
        assert_eq!(reader.keys().unwrap(), ["big", "kept"]);
        assert_eq!(reader.get::<u32>("kept").unwrap(), Some(10));
    }
}
