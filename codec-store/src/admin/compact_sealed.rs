//! Compaction of a folder while handles have it open: what is live in the
//! writers' sealed segments is copied, and the segments are retired.
//!
//! A writer appends its log and data to its active segment and seals it
//! at a size (`cache/writers.rs`); a sealed segment never grows again. The
//! compaction works on the segments sealed when it starts (every segment
//! of a writer but its last, and the last one of a writer that is gone,
//! which it holds meanwhile; the handle that compacts seals its own
//! first), while other handles go on writing to their active ones:
//! - it reads the newest line of each key in the active segments, then
//!   the whole store (a handle of its own, which reads every log);
//! - it copies each live entry whose line is in a sealed segment into a
//!   new writer, its line with the time of the line copied, so that a
//!   write made meanwhile (later) still wins and the copy wins a tie with
//!   its original (a new writer's id sorts after every older one);
//! - a key whose newest line in the sealed segments removed it (or
//!   expired) has no live entry to copy, but an older line of it in an
//!   active segment would come back once the segments are gone: the copy
//!   removes it again, at the time just after that line;
//! - once the copies are durable, `compacting.json` lists the sealed
//!   segments (logs, shared data and the files of their entries) as
//!   retired, with the time: readers ignore them from then on, and the
//!   checkpoint is built again without them;
//! - a later compaction deletes them once their retirement is older than
//!   its grace period: a handle that read an entry's line before may read
//!   its data until then (and one that finds it gone reads the index
//!   again, and the copy).
//!
//! One compaction runs at a time (`compact.lock`: one asked for waits for
//! the one under way, the store's own skips its turn), and it holds the
//! store's lock shared, as handles do: a compaction that needs the folder
//! to itself waits for it.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use crate::admin::compact::{
    copy_entries, live_entries, store_size, sync_writers_objects, with_handlers, Compacted,
};
use crate::backend::{Backend, Locking};
use crate::cache::{now_nanos, Cache};
use crate::content::handler::Handler;
use crate::error::StoreError;
use crate::index::line::{check_line, LineView};
use crate::index::logs::{read_marker, LogObject};
use crate::index::records::{Compacting, IndexLine, Info, Mode, RetiredFiles};
use crate::index::{logs, read_complete_lines};
use crate::layout;
use crate::options::CacheOptions;

/// The newest line of a key in the active segments.
struct Active {
    time: u64,
    seq: u64,
    /// Whether it puts a value (else it removes the key).
    puts: bool,
}

/// How a compaction of sealed segments goes.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Compaction {
    /// Asked for: after the compaction under way, if one is.
    Asked(Duration),
    /// By the store itself: nothing if another handle compacts it now.
    IfFree(Duration),
}

/// Compacts the folder `backend` holds online (see the module's comment),
/// deleting what earlier ones retired once that is older than the grace
/// period `how` gives. `cache` is the handle asking, whose active
/// segment is sealed first so that what it wrote is compacted too.
pub(crate) fn compact_sealed(
    cache: Option<&Cache>,
    backend: Arc<dyn Backend>,
    handlers: &[Arc<dyn Handler>],
    how: Compaction,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Compacted, StoreError> {
    let (Compaction::Asked(grace) | Compaction::IfFree(grace)) = how;
    let Some(locks) = backend.locks() else {
        return Err(StoreError::unsupported(
            backend.location(),
            "its online compaction needs locks, which the backend does not have",
        ));
    };
    // Asked for, it waits for a compaction under way (and for a child
    // process between its fork and its exec, which holds a copy of its
    // parent's locks for that instant).
    let wait = match how {
        Compaction::Asked(_) => Locking::Alone,
        Compaction::IfFree(_) => Locking::TryAlone,
    };
    let Some(_compacting) = locks.lock(layout::COMPACT_LOCK, wait)? else {
        return Ok(Compacted::nothing(store_size(&*backend)?));
    };
    // As a handle does: a compaction that needs the folder to itself
    // waits for this one.
    let _shared = locks.lock(layout::LOCK, Locking::Shared)?;
    let size_before = store_size(&*backend)?;
    let mut freed = collect(&*backend, grace, now_nanos())?;
    if let Some(cache) = cache {
        cache.seal_now()?;
    }
    let (mut sealed, mut active) = segments(&*backend)?;
    // The last segment of a writer that is gone is as good as sealed
    // while this compaction holds it: no handle takes it up meanwhile, nor
    // after (it is retired).
    let mut held = Vec::new();
    for log in std::mem::take(&mut active) {
        match backend.take_up_log(std::slice::from_ref(&log.name))? {
            Some(gone) => {
                held.push(gone);
                sealed.push(log);
            }
            None => active.push(log),
        }
    }
    if sealed.is_empty() {
        return Ok(Compacted {
            freed,
            size_after: store_size(&*backend)?,
            ..Compacted::nothing(size_before)
        });
    }
    // The active segments first, the whole store after: a line written
    // in between is in the store's reading, and newer than every line
    // read before.
    let newest_active = newest_lines(&*backend, &active)?;
    let options = CacheOptions {
        checkpoint_bytes: 0,
        fsync: true,
        ..CacheOptions::default()
    };
    // The handle asking reads the store as it is (its index is up to date
    // once refreshed, the checkpoint mapped): no need to read it again.
    let opened;
    let old = match cache {
        Some(cache) => cache,
        None => {
            opened = with_handlers(
                Cache::open_unlocked(backend.clone(), options.clone())?,
                handlers,
            );
            &opened
        }
    };
    let entries = live_entries(old)?;
    let live: std::collections::HashSet<&str> =
        entries.iter().map(|(e, _)| e.key.as_str()).collect();
    // Removed again: keys an active segment puts, dead in the store.
    let mut removals: Vec<(&str, u64)> = (newest_active.iter())
        .filter(|(key, line)| line.puts && !live.contains(key.as_str()))
        .map(|(key, line)| (key.as_str(), line.time + 1))
        .collect();
    removals.sort_unstable();
    let removals: Vec<(String, u64)> = removals
        .into_iter()
        .map(|(key, at)| (key.to_owned(), at))
        .collect();
    // Copied: live entries whose line is older than the active segments'.
    let copies: Vec<_> = entries
        .into_iter()
        .filter(|(entry, time)| {
            newest_active
                .get(&entry.key)
                .is_none_or(|line| line.time < *time)
        })
        .collect();
    drop(newest_active);

    let new = with_handlers(Cache::open_unread(backend.clone(), options)?, handlers);
    let (kept, dropped) = copy_entries(old, &new, copies, progress)?;
    new.in_one_append(|| {
        for (key, at) in &removals {
            new.append_line(removal(key, *at))?;
        }
        Ok(())
    })?;
    let writer_id = new.writer_id.clone();
    drop(new);
    sync_writers_objects(&*backend, &writer_id)?;

    retire(&*backend, &sealed, now_nanos())?;
    drop(held);
    // The checkpoint may point into the segments retired: built again
    // from the logs readers read.
    crate::index::checkpoint::build(&backend, true, true)?;
    // The uses of removed keys go with them.
    old.refresh()?;
    old.keep_uses_of_own_entries()?;
    if grace.is_zero() {
        freed += collect(&*backend, grace, now_nanos())?;
    }
    Ok(Compacted {
        kept,
        dropped,
        freed,
        schemas_removed: 0,
        size_before,
        size_after: store_size(&*backend)?,
    })
}

/// The line that removes `key` at time `at`.
fn removal(key: &str, at: u64) -> IndexLine {
    IndexLine {
        key: key.to_owned(),
        type_name: None,
        fingerprint: None,
        handler: None,
        mode: Mode::Raw,
        info: Info::new(),
        size: 0,
        time: at,
        seq: 0,
        expires: None,
    }
}

/// The store's log segments, sealed and active: a writer's last segment
/// is its active one (it may be taken up and appended to), the others are
/// sealed.
fn segments(backend: &dyn Backend) -> Result<(Vec<LogObject>, Vec<LogObject>), StoreError> {
    let logs = logs(backend)?;
    let mut last: HashMap<String, u64> = HashMap::new();
    for log in &logs {
        let (id, n) = layout::segment_of(&log.writer);
        let at = last.entry(id.to_owned()).or_insert(n);
        *at = (*at).max(n);
    }
    Ok(logs.into_iter().partition(|log| {
        let (id, n) = layout::segment_of(&log.writer);
        n < last[id]
    }))
}

/// The newest line of each key in `logs`, as far as they are written.
fn newest_lines(
    backend: &dyn Backend,
    logs: &[LogObject],
) -> Result<HashMap<String, Active>, StoreError> {
    let mut newest: HashMap<String, Active> = HashMap::new();
    for log in logs {
        let Some(bytes) = read_complete_lines(backend, &log.name, 0)? else {
            continue;
        };
        for raw in bytes.split(|&b| b == b'\n') {
            // A damaged line is skipped, as readers skip it.
            let Some(line) = check_line(raw).ok().and_then(|t| LineView::parse(t).ok()) else {
                continue;
            };
            let (time, seq) = (line.time, line.seq);
            let active = Active {
                time,
                seq,
                puts: line.handler.is_some(),
            };
            match newest.get_mut(&*line.key) {
                Some(known) if (known.time, known.seq) >= (time, seq) => {}
                Some(known) => *known = active,
                None => {
                    newest.insert(line.key.into_owned(), active);
                }
            }
        }
    }
    Ok(newest)
}

/// Lists the sealed segments `sealed` in the marker as retired at `at`:
/// their logs, their writers' shared data segments of the same numbers,
/// and the files of their entries (`data/<writer>-<seq>...`, numbered
/// below the first line of the writer's active segment).
fn retire(backend: &dyn Backend, sealed: &[LogObject], at: u64) -> Result<(), StoreError> {
    let mut files: Vec<String> = Vec::new();
    // The sequence each writer's sealed segments end before.
    let mut ends: HashMap<&str, u64> = HashMap::new();
    for log in sealed {
        let (id, n) = layout::segment_of(&log.writer);
        files.push(log.name.clone());
        files.push(layout::shared_segment(id, n));
        let end = last_seq(backend, log)?.map_or(0, |seq| seq + 1);
        let known = ends.entry(id).or_insert(0);
        *known = (*known).max(end);
    }
    let prefix = format!("{}/", layout::DATA);
    for object in backend.list(&prefix)? {
        let name = &object.name[prefix.len()..];
        let sealed = ends
            .iter()
            .any(|(id, &end)| entry_file_seq(name, id).is_some_and(|seq| seq < end));
        if sealed {
            files.push(object.name);
        }
    }
    let mut marker = match backend.read(layout::COMPACT_MARKER)? {
        Some(_) => read_marker(backend)?,
        None => Compacting {
            replaced: Vec::new(),
            retired: Vec::new(),
        },
    };
    marker.retired.push(RetiredFiles { files, at });
    let bytes = codec_runtime::to_json_vec(&marker)?;
    Ok(backend.write(layout::COMPACT_MARKER, &bytes, true)?)
}

/// The sequence of the entry whose file of `data/` `name` is, if writer
/// `id` wrote it (`<writer>-<seq>.<ext>`, `<writer>-<seq>-<n>.<ext>`).
fn entry_file_seq(name: &str, id: &str) -> Option<u64> {
    let rest = name.strip_prefix(id)?.strip_prefix('-')?;
    let stem = rest.split_once('.').map_or(rest, |(stem, _)| stem);
    let seq = stem.split_once('-').map_or(stem, |(seq, _)| seq);
    seq.parse().ok()
}

/// The sequence of the last whole line of sealed log `log`, if it has one
/// in its last 64 KiB.
fn last_seq(backend: &dyn Backend, log: &LogObject) -> Result<Option<u64>, StoreError> {
    let from = log.size.saturating_sub(64 * 1024);
    let tail = backend.read_range(&log.name, from..log.size)?;
    Ok(tail
        .split(|&b| b == b'\n')
        .rev()
        .find_map(|raw| check_line(raw).ok().and_then(|t| LineView::parse(t).ok()))
        .map(|line| line.seq))
}

/// Deletes what online compactions retired longer than `grace` before
/// `now`; returns the bytes freed.
fn collect(backend: &dyn Backend, grace: Duration, now: u64) -> Result<u64, StoreError> {
    if backend.read(layout::COMPACT_MARKER)?.is_none() {
        return Ok(0);
    }
    let mut marker = read_marker(backend)?;
    let before = now.saturating_sub(u64::try_from(grace.as_nanos()).unwrap_or(u64::MAX));
    let (due, young): (Vec<_>, Vec<_>) = (marker.retired.drain(..)).partition(|r| r.at <= before);
    if due.is_empty() {
        marker.retired = young;
        return Ok(0);
    }
    let mut sizes = HashMap::new();
    for prefix in [String::new(), format!("{}/", layout::DATA)] {
        sizes.extend(backend.list(&prefix)?.into_iter().map(|o| (o.name, o.size)));
    }
    // The files first, the marker after: readers ignore a file the
    // marker lists, deleted or not, and a compaction stopped in between
    // deletes the rest next time.
    let mut freed = 0;
    for name in due.iter().flat_map(|r| &r.files) {
        if let Some(size) = sizes.get(name) {
            backend.delete(name)?;
            freed += size;
        }
    }
    marker.retired = young;
    if marker.replaced.is_empty() && marker.retired.is_empty() {
        backend.delete(layout::COMPACT_MARKER)?;
    } else {
        let bytes = codec_runtime::to_json_vec(&marker)?;
        backend.write(layout::COMPACT_MARKER, &bytes, true)?;
    }
    Ok(freed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_files_of_entries_name_their_writer_and_sequence() {
        let id = "0123456789abc-42-7-deadbeef";
        let file = layout::entry_file_name(id, 12, 0, "bin");
        assert_eq!(entry_file_seq(&file, id), Some(12));
        let file = layout::entry_file_name(id, 12, 3, "npy");
        assert_eq!(entry_file_seq(&file, id), Some(12));
        assert_eq!(entry_file_seq(&file, "0123456789abc-42-7"), None);
        assert_eq!(entry_file_seq(&layout::shared_name(id), id), None);
        let segment = layout::shared_segment(id, 4);
        assert_eq!(entry_file_seq(&segment[layout::DATA.len() + 1..], id), None);
    }
}
