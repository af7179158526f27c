//! How a folder retires what a compaction copied: handles append in place
//! to their active segments, so the compaction works on the sealed ones,
//! one at a time (`compact.lock`), beside the handles (the store's lock
//! held shared, as they do; alone by [`Admin::compact`](crate::Admin::compact)).
//! Its retirement is a marker, `compacting.json`, listing the files
//! retired and when: readers ignore them from then on, and the
//! checkpoint is built again without them. A later compaction deletes them
//! once their retirement is older than its grace period.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use crate::backend::{Appender, Backend, Lock, Locking, Locks};
use crate::cache::{now_nanos, Cache};
use crate::compaction::sealed::{Compaction, Retirement, Retiring, Segments};
use crate::error::StoreError;
use crate::index::checkpoint::objects::Sources;
use crate::index::line::{check_line, LineView};
use crate::index::logs;
use crate::index::logs::{read_marker, LogObject};
use crate::index::records::{Compacting, RetiredFiles};
use crate::layout;

/// A folder's retirement, its locks held.
pub(super) struct Marker {
    backend: Arc<dyn Backend>,
    /// `compact.lock`: one compaction at a time.
    _compacting: Lock,
    /// The store's lock, shared as handles hold it (`None` when the caller
    /// holds it alone).
    _shared: Option<Lock>,
    alone: bool,
    /// What retiring the sealed segments retires.
    retiring: Vec<String>,
}

impl Marker {
    /// The retirement of a compaction of the folder `backend` holds, once
    /// the compaction under way ends (asked for), or `None` if one is under
    /// way (the store's own).
    pub(super) fn begin(
        backend: Arc<dyn Backend>,
        how: Compaction,
    ) -> Result<Option<Marker>, StoreError> {
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
            Compaction::Asked(_) | Compaction::Alone => Locking::Alone,
            Compaction::IfFree(_) => Locking::TryAlone,
        };
        let Some(compacting) = locks.lock(layout::COMPACT_LOCK, wait)? else {
            return Ok(None);
        };
        // As a handle does: a compaction that needs the folder to itself
        // waits for this one (one that has it holds it already).
        let alone = matches!(how, Compaction::Alone);
        let shared = match alone {
            true => None,
            false => Some(locks.lock(layout::LOCK, Locking::Shared)?),
        };
        Ok(Some(Marker {
            backend: backend.clone(),
            _compacting: compacting,
            _shared: shared.flatten(),
            alone,
            retiring: Vec::new(),
        }))
    }
}

impl Retirement for Marker {
    fn collect(&mut self, grace: Duration, now: u64) -> Result<u64, StoreError> {
        collect(&*self.backend, grace, now)
    }

    fn remove_gone_holders(&mut self, _grace: Duration) -> Result<u64, StoreError> {
        if let Some(locks) = self.backend.locks() {
            remove_unheld_key_locks(&*self.backend, locks)?;
            remove_unheld_logs_made_ahead(&*self.backend, locks)?;
        }
        Ok(0)
    }

    fn segments(&mut self, _cache: Option<&Cache>) -> Result<Segments, StoreError> {
        let (mut sealed, mut active) = segments(&*self.backend)?;
        // The last segment of a writer that is gone is as good as sealed
        // while this compaction holds it: no handle takes it up meanwhile,
        // nor after (it is retired).
        let mut held: Vec<Box<dyn Appender>> = Vec::new();
        for log in std::mem::take(&mut active) {
            match self.backend.take_up_log(std::slice::from_ref(&log.name))? {
                Some(gone) => {
                    held.push(gone);
                    sealed.push(log);
                }
                None => active.push(log),
            }
        }
        Ok(Segments {
            sealed,
            active,
            held,
        })
    }

    fn every_line(&self) -> bool {
        // A checkpoint's table names each line by its segment, and is
        // built again from the logs readers read.
        false
    }

    fn retiring(&mut self, sealed: &[LogObject]) -> Result<Retiring, StoreError> {
        self.retiring = retirement(&*self.backend, sealed)?;
        let data_prefix = format!("{}/", layout::DATA);
        Ok(Retiring {
            logs: sealed.iter().map(|log| log.writer.clone()).collect(),
            data: (self.retiring.iter())
                .filter_map(|name| name.strip_prefix(&data_prefix))
                .map(str::to_owned)
                .collect(),
        })
    }

    fn retire(&mut self, _sealed: &[LogObject], copies: &str) -> Result<u64, StoreError> {
        let mut retiring = std::mem::take(&mut self.retiring);
        // With the store to itself: every log and data file but the
        // copies, files no line names (a power cut took their lines) too.
        if self.alone {
            retiring = all_but_writers(&*self.backend, copies)?;
        }
        retire(&*self.backend, retiring, now_nanos())?;
        // The checkpoint may point into the segments retired: built again
        // without them (from its tables less their entries, and the
        // copies' lines).
        crate::index::checkpoint::build(&self.backend, true, false, Sources::Every)?;
        Ok(0)
    }
}

/// Deletes the lock files of `memo_lock` that no caller holds (their
/// holders are gone: the lock died with them), each locked meanwhile.
fn remove_unheld_key_locks(backend: &dyn Backend, locks: &dyn Locks) -> Result<(), StoreError> {
    for listed in backend.list(&format!("{}/", layout::KEY_LOCKS))? {
        if let Some(_held) = locks.lock(&listed.name, Locking::TryAlone)? {
            // Where a file open cannot be deleted, it stays: an empty
            // file, harmless.
            if let Err(e) = backend.delete(&listed.name) {
                log::debug!(target: "codec::store", "a lock file stays: {e}");
            }
        }
    }
    Ok(())
}

/// Deletes the logs made ahead of a seal (`<writer>-info.jsonl.next`),
/// and those being made (`<writer>-info.jsonl.new`, named once locked),
/// that no handle holds: their writers are gone (killed; one that closes
/// deletes its own, and names the other as soon as it locked it; one
/// that finds the other locked here, or gone, makes it again).
fn remove_unheld_logs_made_ahead(
    backend: &dyn Backend,
    locks: &dyn Locks,
) -> Result<(), StoreError> {
    for listed in backend.list("")? {
        let name = &listed.name;
        if !name.ends_with(layout::NEXT_LOG_SUFFIX) && !name.ends_with(layout::NEW_LOG_SUFFIX) {
            continue;
        }
        if let Some(_held) = locks.lock(&listed.name, Locking::TryAlone)?
            && let Err(e) = backend.delete(&listed.name)
        {
            log::debug!(target: "codec::store", "a log made ahead stays: {e}");
        }
    }
    Ok(())
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

/// What retiring the sealed segments `sealed` retires: their logs, their
/// writers' shared data segments of the same numbers, and the files of
/// their entries (`data/<writer>-<seq>...`, numbered below the last line
/// of the writer's last sealed segment).
fn retirement(backend: &dyn Backend, sealed: &[LogObject]) -> Result<Vec<String>, StoreError> {
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
    Ok(files)
}

/// Every log and data object but writer `keep`'s.
pub(crate) fn all_but_writers(
    backend: &dyn Backend,
    keep: &str,
) -> Result<Vec<String>, StoreError> {
    let mut files = Vec::new();
    for prefix in [String::new(), format!("{}/", layout::DATA)] {
        for listed in backend.list(&prefix)? {
            let name = &listed.name[prefix.len()..];
            let is_log = layout::log_writer(name).is_some();
            if !layout::is_writers_file(name, keep) && (!prefix.is_empty() || is_log) {
                files.push(listed.name);
            }
        }
    }
    Ok(files)
}

/// Lists `files` in the marker as retired at `at`.
fn retire(backend: &dyn Backend, files: Vec<String>, at: u64) -> Result<(), StoreError> {
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
pub(super) fn entry_file_seq(name: &str, id: &str) -> Option<u64> {
    let rest = name.strip_prefix(id)?.strip_prefix('-')?;
    let stem = rest.split_once('.').map_or(rest, |(stem, _)| stem);
    let seq = stem.split_once('-').map_or(stem, |(seq, _)| seq);
    seq.parse().ok()
}

/// The sequence of the last whole line of sealed log `log`, if it has one
/// in its last 64 KiB.
pub(super) fn last_seq(backend: &dyn Backend, log: &LogObject) -> Result<Option<u64>, StoreError> {
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
