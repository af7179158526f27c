//! The one compaction, of every backend, while handles have the store
//! open: what is live in the writers' sealed segments is copied, and the
//! segments are retired.
//!
//! A sealed segment never grows again. In a folder, a writer appends its
//! log and data to its active segment and seals it at a size
//! (`cache/writers.rs`); on object storage and in memory, each append is
//! an object of its own, sealed as it is written. The compaction works on
//! the segments sealed when it starts (in a folder, every segment of a
//! writer but its last, and the last one of a writer that is gone, which
//! it holds meanwhile; one asked for seals the asking handle's first),
//! while handles go on writing. One asked for retires every sealed
//! segment; the store's own (past its bounds) only the oldest ones of
//! each writer that are mostly dead, and keeps the rest as they are (a
//! segment mostly live would be copied whole at every compaction):
//! - it reads the newest line of each key in the segments kept (the
//!   active ones, and the sealed ones it keeps), then the whole store,
//!   with the log of each live line (the asking handle's index);
//! - it copies each live entry whose line is in a segment retired into a
//!   new writer, its line with the time of the line copied, so that a
//!   write made meanwhile (later) still wins and the copy wins a tie with
//!   its original (a new writer's id sorts after every older one);
//! - a key whose newest line in the segments retired removed it (or
//!   expired) has no live entry to copy, but an older line of it in a
//!   segment kept would come back once they are gone: the copy removes it
//!   again, at the time just after that line;
//! - a put's data and its line are two writes: a seal between them (by
//!   another thread's write, or by a compaction) leaves the line in the
//!   next segment and the data in the sealed one. A live line that names
//!   a file the compaction retires is copied too (its copy, at the same
//!   time, wins the tie by its newer writer id);
//! - once the copies are durable, the segments are retired: readers
//!   ignore them from then on, and the checkpoint no longer points in
//!   them;
//! - a later compaction deletes them once their retirement is older than
//!   its grace period: a handle that read an entry's line before may read
//!   its data until then (and one that finds it gone reads the index
//!   again, and the copy).
//!
//! It also deletes the locks of `memo_lock` (`locks/`) whose holders are
//! gone, and the `used/` records of keys removed.
//!
//! What differs by backend is behind [`Retirement`]: how a compaction
//! keeps others out, which segments are sealed, and how their retirement
//! is recorded and collected. In a folder ([`marker`](super::marker)),
//! one compaction runs at a time (`compact.lock`), beside the handles,
//! and the retirement is a marker, `compacting.json`;
//! [`Admin::compact`](crate::Admin::compact) holds the store alone
//! ([`Compaction::Alone`]): no writer is live, so every segment is sealed
//! and retired, and with them every log and data file that is not a copy
//! (files no line names, whose lines a power cut took), deleted at once.
//! On object storage ([`manifest`](super::manifest)), the retirement is
//! the checkpoint's manifest, committed by compare-and-swap: of two
//! compactions, one commits.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use foldhash::fast::RandomState as Fast;

use crate::backend::{Appender, Appends, Backend};
use crate::cache::{now_nanos, Cache};
use crate::compaction::kept::newest_lines;
use crate::compaction::manifest::Manifest;
use crate::compaction::marker::Marker;
use crate::compaction::{copy_entries, store_size, sync_writers_objects, with_handlers, Compacted};
use crate::content::handler::Handler;
use crate::error::StoreError;
use crate::index::checkpoint::Asked;
use crate::index::line::LineView;
use crate::index::logs::LogObject;
use crate::index::records::{IndexLine, LastCompaction};
use crate::index::{corrupt_line, logs, EntryInfo};
use crate::layout;
use crate::options::CacheOptions;

/// How a compaction of sealed segments goes.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Compaction {
    /// Asked for: after the compaction under way, if one is.
    Asked(Duration),
    /// By the store itself: nothing if another handle compacts it now;
    /// the sealed segments mostly live are left as they are.
    IfFree(Duration),
    /// With the store to itself (its lock held alone, by the caller):
    /// every writer is gone, so every segment is sealed, and everything
    /// but the copies is retired and deleted at once, files no line
    /// names (a power cut took their lines) too.
    Alone,
}

/// What a compaction does its backend's way (see the module's comment).
pub(super) trait Retirement {
    /// Deletes what earlier compactions retired longer than `grace`
    /// before `now`; returns the bytes freed.
    fn collect(&mut self, grace: Duration, now: u64) -> Result<u64, StoreError>;

    /// Deletes the locks of `memo_lock` whose holders are gone (for
    /// longer than `grace`, where a lease tells); returns the bytes freed.
    fn remove_gone_holders(&mut self, grace: Duration) -> Result<u64, StoreError>;

    /// The store's log segments as the compaction starts, sealed and not;
    /// `cache` is the handle asking.
    fn segments(&mut self, cache: Option<&Cache>) -> Result<Segments, StoreError>;

    /// Whether the retirement replaces the checkpoint's tables whole, so
    /// that every live line is copied: a line they hold may be there
    /// alone (a power cut took its segment), named by its writer (whose
    /// segments they cover) rather than a segment. The segments mostly
    /// live are then not worth leaving, and the lines written after the
    /// snapshot are copied too, at worst once too many.
    fn every_line(&self) -> bool;

    /// Notes what retiring the sealed segments `sealed` retires; returns
    /// how the index tells the lines it retires.
    fn retiring(&mut self, sealed: &[LogObject]) -> Result<Retiring, StoreError>;

    /// Retires `sealed`, once the copies (of writer `copies`) are
    /// durable: no reader reads them from then on, and the checkpoint no
    /// longer points in them. Returns the bytes it freed (what earlier
    /// compactions retired that a live line copied may have named).
    fn retire(&mut self, sealed: &[LogObject], copies: &str) -> Result<u64, StoreError>;
}

/// A store's log segments as a compaction finds them.
pub(super) struct Segments {
    /// Those no writer appends to again: the compaction may retire them.
    pub(super) sealed: Vec<LogObject>,
    /// Those writers append to meanwhile.
    pub(super) active: Vec<LogObject>,
    /// The logs of writers gone among `sealed`, taken up (so that no
    /// handle appends to them) until they are retired.
    pub(super) held: Vec<Box<dyn Appender>>,
}

/// How the index tells the lines a compaction retires.
pub(super) struct Retiring {
    /// The ids of the logs whose lines are retired, as the index names
    /// them (unless [`Retirement::every_line`]).
    pub(super) logs: HashSet<String, Fast>,
    /// The data files retired (names in `data/`) that a line kept may
    /// name: a live line naming one is copied too.
    pub(super) data: HashSet<String, Fast>,
}

#[cfg(test)]
thread_local! {
    /// Run on a compaction's thread once it read the segments it keeps,
    /// before it reads the store's lines.
    static AFTER_KEPT_READ: std::cell::RefCell<Option<Box<dyn FnOnce()>>> =
        const { std::cell::RefCell::new(None) };
}

/// Compacts the store `backend` holds online (see the module's comment),
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
    let grace = match how {
        Compaction::Asked(grace) | Compaction::IfFree(grace) => grace,
        Compaction::Alone => Duration::ZERO,
    };
    let alone = matches!(how, Compaction::Alone);
    let mut retirement: Box<dyn Retirement> = match backend.appends() {
        Appends::InPlace => match Marker::begin(backend.clone(), how)? {
            Some(marker) => Box::new(marker),
            // The store's own, while another compaction runs.
            None => return Ok(Compacted::nothing(store_size(&*backend)?)),
        },
        Appends::Segments => match Manifest::begin(backend.clone(), how)? {
            Some(manifest) => Box::new(manifest),
            None => return Ok(Compacted::nothing(store_size(&*backend)?)),
        },
    };
    let size_before = store_size(&*backend)?;
    let mut freed = retirement.collect(grace, now_nanos())?;
    freed += retirement.remove_gone_holders(grace)?;
    // The store's own seals the handle's segment only if it holds a
    // quarter of the store: else it is mostly live (the garbage is in the
    // segments sealed by size), and sealing it at each compaction would
    // make segments smaller than their size, and more of them to read.
    if let Some(cache) = cache {
        let own = matches!(how, Compaction::IfFree(_));
        if !own || cache.writer.segment_size() >= size_before / 4 {
            cache.writer.seal_now()?;
        }
    }
    let Segments {
        mut sealed,
        mut active,
        held,
    } = retirement.segments(cache)?;
    // The store's own compaction leaves the segments mostly live (where
    // it does not copy every line).
    let every = retirement.every_line();
    let mut kept_sealed = Vec::new();
    if let (Compaction::IfFree(_), Some(cache), false) = (how, cache, every) {
        (sealed, kept_sealed) = worth_retiring(cache, sealed)?;
    }
    if sealed.is_empty() {
        return Ok(Compacted {
            freed,
            size_after: store_size(&*backend)?,
            ..Compacted::nothing(size_before)
        });
    }
    let retiring = retirement.retiring(&sealed)?;
    let retired_data: HashSet<&str, Fast> = retiring.data.iter().map(String::as_str).collect();
    // The segments kept first, the whole store after: a line written in
    // between is in the store's reading, and newer than every line read
    // before.
    let known = cache.map(|cache| &cache.upkeep.sealed_lines);
    let newest_kept = newest_lines(&*backend, &active, &kept_sealed, known)?;
    #[cfg(test)]
    if let Some(meanwhile) = AFTER_KEPT_READ.with_borrow_mut(Option::take) {
        meanwhile();
    }
    active.extend(kept_sealed);
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
    // Copied: live entries whose line is in a segment retired, and those
    // whose line names a file retired (a seal came between a put's data
    // and its line; the copy, at the same time, wins the tie by its newer
    // writer id). Only those are parsed.
    let retired_log = |log: &str| every || retiring.logs.contains(log);
    // A line whose bytes hold none of the names of the files retired
    // names none (most lines, skipped unparsed: one pass over the line
    // for every name at once; with names too many for one automaton,
    // each line's strings are looked up).
    let finder = aho_corasick::AhoCorasick::new(&retiring.data).ok();
    let names_retired = |line: &[u8]| {
        !retired_data.is_empty()
            && finder.as_ref().is_none_or(|f| f.is_match(line))
            && names_any(line, &retired_data)
    };
    // The lines of a log kept that the compaction read, none of which
    // names a file retired, are not read again (a segment kept mostly
    // live holds many of the checkpoint's lines). Where logs are objects,
    // a segment never grows past what was read.
    let log_asked = |log: &str| match (retired_log(log), newest_kept.names.get(log)) {
        (true, _) => Asked::Every,
        (false, Some(names)) if !names.may_name_any(retired_data.iter().copied()) => {
            Asked::PastFirst(match backend.appends() {
                Appends::InPlace => names.read,
                Appends::Segments => u64::MAX,
            })
        }
        (false, _) => Asked::PastFirst(0),
    };
    // The lines copied only are read (and, with the store to itself,
    // every line: each is copied, or the store is compacted already).
    let lines = old.newest_lines_needed(&log_asked, &names_retired)?;
    // Compacted already, and nothing written or expired since: copying
    // every entry again would give nothing back.
    if alone && active.is_empty() && compact_already(&*backend, &sealed, &lines)? {
        drop(lines);
        old.keep_uses_of_own_entries()?;
        drop(held);
        return Ok(Compacted {
            freed,
            size_after: store_size(&*backend)?,
            ..Compacted::nothing(size_before)
        });
    }
    // Dead keys whose last line (a removal, or an expired put) is in a
    // segment retired: an older line of theirs in a segment kept would
    // come back.
    let mut dead_retired: HashSet<Box<str>, Fast> = HashSet::default();
    let mut copies = Vec::new();
    for (key, text, log) in lines {
        let Some(text) = text else {
            if retired_log(&log) {
                dead_retired.insert(key);
            }
            continue;
        };
        if retired_log(&log) || names_retired(text.as_bytes()) {
            let line = LineView::parse(&text).map_err(|e| corrupt_line(&key, e))?;
            if let Some(entry) = EntryInfo::of_line(&line)? {
                copies.push((entry, line.time));
            }
        }
    }
    copies.sort_by(|a, b| a.0.key.cmp(&b.0.key));
    // Removed again: keys dead by a line retired with a line in a segment
    // kept, after their newest line there. One that puts would come back;
    // one that removes is dead either way, but the checkpoint built after
    // the retirement keeps its tables' entries of the logs kept, and an
    // older line of the key (a put) may be there where a retired line hid
    // that removal. (A key dead by a line of a segment kept stays dead: a
    // pass of the bounds removes keys while the compaction reads.)
    let mut removals: Vec<(&str, u64)> = (newest_kept.newest.iter())
        .filter(|(key, _)| dead_retired.contains(key.as_str()))
        .map(|(key, line)| (key.as_str(), line.time + 1))
        .collect();
    removals.sort_unstable();
    let removals: Vec<(String, u64)> = removals
        .into_iter()
        .map(|(key, at)| (key.to_owned(), at))
        .collect();
    drop(newest_kept);

    let new = with_handlers(Cache::open_unread(backend.clone(), options)?, handlers);
    // The copies' shared data is made durable once for each append of
    // their lines (`copy_entries`), and their logs before the retirement
    // (`sync_writers_objects`), not at each write (the files of their
    // own that large entries have are synced each as it is written).
    new.writer
        .defer_syncs
        .store(true, std::sync::atomic::Ordering::Relaxed);
    let (kept, dropped) = copy_entries(old, &new, copies, progress)?;
    new.in_one_append(|| {
        for (key, at) in &removals {
            new.append_line(IndexLine::removal(key, *at))?;
        }
        Ok(())
    })?;
    let writer_id = new.writer_id.clone();
    drop(new);
    sync_writers_objects(&*backend, &writer_id)?;

    // A line of a segment kept may be all that stands, once the
    // retirement is durable, for a key whose older line is retired (it
    // was live, so not copied): it must outlive a power cut as the
    // retirement does, and a writer without `fsync` syncs nothing. The
    // segments kept are synced, logs and shared data (a file of an
    // entry's own, not synced, may still be lost with its data, as a put
    // without `fsync` may).
    let kept_segments: Vec<String> = (active.iter())
        .flat_map(|log| {
            let (id, n) = layout::segment_of(&log.writer);
            [log.name.clone(), layout::shared_segment(id, n)]
        })
        .collect();
    backend.sync(&kept_segments)?;

    // The asking handle's index reads the copies as it reads the store
    // again, after the retirement: they change nothing live.
    old.index_write().copies_read(&writer_id);
    match retirement.retire(&sealed, &writer_id) {
        Ok(bytes) => freed += bytes,
        Err(e) => {
            old.index_write().no_copies_read();
            return Err(e);
        }
    }
    drop(held);
    // The uses of removed keys go with them.
    old.refresh()?;
    old.keep_uses_of_own_entries()?;
    if grace.is_zero() {
        freed += retirement.collect(grace, now_nanos())?;
    }
    if alone {
        // For the next compaction with the folder to itself.
        let last = left(&*backend, &logs(&*backend)?)?;
        let bytes = codec_runtime::to_json_vec(&last)?;
        backend.write(layout::LAST_COMPACTION, &bytes, true)?;
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

/// Whether the store of the logs `logs` (all of them) is as the last
/// compaction with the folder to itself left it (`compacted.json`: the
/// same logs and data, by size), and each line of the logs is still the
/// live line of its key (`lines`, with their logs: no line removed,
/// replaced or expired since).
fn compact_already(
    backend: &dyn Backend,
    logs: &[LogObject],
    lines: &[crate::index::NewestLine],
) -> Result<bool, StoreError> {
    let Some(bytes) = backend.read(layout::LAST_COMPACTION)? else {
        return Ok(false);
    };
    // One that does not read is left to the compaction to write again.
    let Ok(last) = codec_runtime::from_json_slice::<LastCompaction>(&bytes) else {
        return Ok(false);
    };
    if last != left(backend, logs)? {
        return Ok(false);
    }
    let mut live: HashMap<&str, u64> = HashMap::new();
    for (_, text, log) in lines {
        if let Some(text) = text {
            *live.entry(&**log).or_default() += text.len() as u64 + 1;
        }
    }
    // (A segment sealed as the copies ended holds no line.)
    let live_in = |log: &LogObject| live.get(log.writer.as_str()).copied().unwrap_or(0);
    Ok(logs.iter().all(|log| live_in(log) == log.size))
}

/// What a compaction leaves: the logs `logs` by size, and `data/`'s files.
fn left(backend: &dyn Backend, logs: &[LogObject]) -> Result<LastCompaction, StoreError> {
    let data = backend.list(&format!("{}/", layout::DATA))?;
    Ok(LastCompaction {
        logs: logs
            .iter()
            .map(|log| (log.name.clone(), log.size))
            .collect(),
        data_files: data.len() as u64,
        data_bytes: data.iter().map(|listed| listed.size).sum(),
    })
}

/// Of the sealed segments, those worth retiring when the store compacts
/// by itself, and those it keeps (read as the active ones are): for each
/// writer, the longest run of its oldest segments at most half of whose
/// lines' bytes are live, without the segments mostly live that end it:
/// a segment mostly live is not copied again at every compaction, and a
/// compaction copies at most as much as it frees. (A run from the
/// oldest: the files of a writer's entries are retired by their
/// sequence.)
fn worth_retiring(
    cache: &Cache,
    sealed: Vec<LogObject>,
) -> Result<(Vec<LogObject>, Vec<LogObject>), StoreError> {
    cache.refresh()?;
    let sizes = cache.index_read().sizes();
    let Ok(live) = sizes.live_bytes_by_log() else {
        // A damaged checkpoint: every sealed segment, as asked.
        return Ok((sealed, Vec::new()));
    };
    let mut by_writer: HashMap<String, Vec<LogObject>> = HashMap::new();
    for log in sealed {
        let (id, _) = layout::segment_of(&log.writer);
        by_writer.entry(id.to_owned()).or_default().push(log);
    }
    let (mut retired, mut kept) = (Vec::new(), Vec::new());
    for mut logs in by_writer.into_values() {
        logs.sort_by_key(|log| layout::segment_of(&log.writer).1);
        let live_in = |log: &LogObject| live.get(log.writer.as_str()).copied().unwrap_or(0);
        let (mut live_bytes, mut bytes, mut run) = (0, 0, 0);
        for (i, log) in logs.iter().enumerate() {
            live_bytes += live_in(log);
            bytes += log.size;
            if live_bytes * 2 <= bytes {
                run = i + 1;
            }
        }
        // Nor the mostly live segments that end the run.
        while run > 0 && live_in(&logs[run - 1]) * 2 > logs[run - 1].size {
            run -= 1;
        }
        kept.extend(logs.split_off(run));
        retired.extend(logs);
    }
    Ok((retired, kept))
}

/// Whether the line `raw` names one of the data files `names` (relative
/// to `data/`): as a string of its own (`"file": "<name>"`) or in a token
/// (`"at:<name>:<offset>:<len>"`).
fn names_any(raw: &[u8], names: &HashSet<&str, Fast>) -> bool {
    !names.is_empty() && file_names(raw).any(|name| names.contains(name))
}

/// What the line `raw` may name as a data file: each of its strings, and
/// the name in a token (`"at:<name>:<offset>:<len>"`).
pub(super) fn file_names(raw: &[u8]) -> impl Iterator<Item = &str> {
    // Between quotes: the line's strings, and what lies between them (a
    // data file's name holds no quote, nor anything JSON escapes, so an
    // escaped quote in a string cannot hide one).
    let text = std::str::from_utf8(raw).unwrap_or_default();
    text.split('"').map(|s| {
        s.strip_prefix("at:")
            .map_or(s, |t| t.split(':').next().unwrap_or(t))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::content::parts::Part;
    use crate::index::records::{Info, Mode};

    /// A put whose data went to a segment before it was sealed, and whose
    /// line came after, in the next one: what a seal by another thread, or
    /// by the store's own compaction, between the two does.
    #[test]
    fn a_put_sealed_between_its_data_and_its_line_keeps_its_data() {
        a_put_sealed_between_its_data_and_its_line_keeps_its_data_with(false);
    }

    /// The same with the line in the checkpoint: the compaction copies the
    /// text of the checkpoint's lines it copies only, and this one names a
    /// file retired.
    #[test]
    fn a_put_sealed_between_its_data_and_its_line_in_the_checkpoint_keeps_its_data() {
        a_put_sealed_between_its_data_and_its_line_keeps_its_data_with(true);
    }

    /// The data of a put of `k` written to `cache`'s segment, then sealed
    /// before its line: the payload, and the line's info and parts.
    fn data_of_k_in_a_sealed_segment(cache: &Cache) -> (Vec<u8>, Info, Vec<Part>) {
        let payload = vec![7u8; 5000];
        let (info, parts, _) = cache
            .dump_with("k", &[], false, |ctx| {
                let (file, offset) = ctx.append_shared(&payload)?;
                Ok(crate::content::handler::range_info(
                    file,
                    offset,
                    payload.len(),
                ))
            })
            .unwrap();
        cache.writer.seal_now().unwrap();
        (payload, info, parts)
    }

    fn a_put_sealed_between_its_data_and_its_line_keeps_its_data_with(checkpoint: bool) {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::open(dir.path()).unwrap();
        cache.put("before", &1u32).unwrap();
        let (payload, info, parts) = data_of_k_in_a_sealed_segment(&cache);
        let line = (info, &parts[..], Vec::new());
        let size = payload.len() as u64;
        (cache.append_entry("k", None, None, layout::SHARED, Mode::Raw, line, size, None)).unwrap();
        if checkpoint {
            cache.admin().checkpoint().unwrap();
        }
        // Another handle compacts: `cache`'s first segment is sealed, `k`'s
        // line is in its active one, `k`'s data in the sealed one.
        let other = Cache::open(dir.path()).unwrap();
        let grace = Duration::ZERO;
        let done = other.admin().compact_online(grace, |_, _| {}).unwrap();
        assert_eq!(done.kept, 2, "{done:?}");
        for handle in [&cache, &other, &Cache::open(dir.path()).unwrap()] {
            assert_eq!(handle.get_bytes("k").unwrap(), Some(payload.clone()));
            assert_eq!(handle.get::<u32>("before").unwrap(), Some(1));
        }
    }

    /// The same with the line appended, and covered by a checkpoint,
    /// once the compaction read the segments it keeps: in the checkpoint,
    /// past what the compaction read of its log.
    #[test]
    fn a_put_whose_line_comes_after_the_compaction_read_its_log_keeps_its_data() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Arc::new(Cache::open(dir.path()).unwrap());
        cache.put("before", &1u32).unwrap();
        let (payload, info, parts) = data_of_k_in_a_sealed_segment(&cache);
        // A line in the active segment the compaction reads.
        cache.put("active", &1u32).unwrap();
        let writer = cache.clone();
        let size = payload.len() as u64;
        let meanwhile = move || {
            let line = (info, &parts[..], Vec::new());
            let kind = (layout::SHARED, Mode::Raw);
            (writer.append_entry("k", None, None, kind.0, kind.1, line, size, None)).unwrap();
            writer.admin().checkpoint().unwrap();
        };
        AFTER_KEPT_READ.with_borrow_mut(|hook| *hook = Some(Box::new(meanwhile)));
        let other = Cache::open(dir.path()).unwrap();
        other
            .admin()
            .compact_online(Duration::ZERO, |_, _| {})
            .unwrap();
        assert!(AFTER_KEPT_READ.with_borrow(Option::is_none), "not run");
        for handle in [&*cache, &other, &Cache::open(dir.path()).unwrap()] {
            assert_eq!(handle.get_bytes("k").unwrap(), Some(payload.clone()));
            assert_eq!(handle.get::<u32>("before").unwrap(), Some(1));
        }
    }

    #[test]
    fn a_line_names_a_file_as_a_string_or_in_a_token() {
        let names: HashSet<&str, Fast> = ["w.bin", "w-3.npy"].into_iter().collect();
        let names_any = |line: &str| names_any(line.as_bytes(), &names);
        assert!(names_any(r#"{"info":{"file":"w.bin","offset":0}}"#));
        assert!(names_any(r#"{"info":{"buf":"at:w-3.npy:64:10"}}"#));
        assert!(names_any(r##"{"#key":"a\"b","info":{"file":"w.bin"}}"##));
        assert!(!names_any(r#"{"info":{"file":"w.1.bin"}}"#));
        assert!(!names_any(r#"{"info":{"data":"w.binary"}}"#));
    }

    mod own {
        use std::collections::BTreeMap;

        use proptest::prelude::*;

        use super::*;
        use crate::PutOptions;

        #[derive(Debug, Clone)]
        enum Op {
            Put { handle: usize, key: u8, big: bool },
            Expiring { handle: usize, key: u8 },
            Remove { handle: usize, key: u8 },
            Compact { handle: usize, asked: bool },
        }

        fn op() -> impl Strategy<Value = Op> {
            let (handle, key) = (0..3usize, 0..8u8);
            prop_oneof![
                6 => (handle.clone(), key.clone(), any::<bool>())
                    .prop_map(|(handle, key, big)| Op::Put { handle, key, big }),
                1 => (handle.clone(), key.clone())
                    .prop_map(|(handle, key)| Op::Expiring { handle, key }),
                2 => (handle.clone(), key).prop_map(|(handle, key)| Op::Remove { handle, key }),
                2 => (handle, any::<bool>())
                    .prop_map(|(handle, asked)| Op::Compact { handle, asked }),
            ]
        }

        /// Every handle, and a fresh one, reads what `model` holds.
        fn reads_as(
            backend: &Arc<dyn Backend>,
            handles: &[Cache],
            model: &BTreeMap<String, String>,
        ) {
            let fresh = Cache::open_backend(backend.clone(), CacheOptions::default()).unwrap();
            for (i, handle) in handles.iter().chain([&fresh]).enumerate() {
                let keys: Vec<String> = model.keys().cloned().collect();
                assert_eq!(handle.keys().unwrap(), keys, "handle {i}");
                for k in 0..8u8 {
                    let key = format!("k{k}");
                    assert_eq!(
                        handle.get::<String>(&key).unwrap().as_ref(),
                        model.get(&key)
                    );
                }
                assert!(handle.warnings().is_empty(), "{:?}", handle.warnings());
            }
        }

        /// Writes, removals and expiries by three handles on segments of a
        /// few lines, and the store's own compactions among them (which
        /// retire the oldest segments mostly dead and keep the others) and
        /// compactions asked for: every handle and a fresh one read what
        /// was written last after each.
        fn the_store_s_own_compaction_changes_nothing_that_reads(
            backend: Arc<dyn Backend>,
            ops: &[Op],
        ) {
            let options = CacheOptions::default().segment_bytes(600);
            let handles: Vec<Cache> = (0..3)
                .map(|_| Cache::open_backend(backend.clone(), options.clone()).unwrap())
                .collect();
            let mut model = BTreeMap::new();
            for (i, op) in ops.iter().enumerate() {
                match *op {
                    Op::Put { handle, key, big } => {
                        let text = match big {
                            true => format!("{i:04}").repeat(60),
                            false => format!("small {i}"),
                        };
                        handles[handle].put(&format!("k{key}"), &text).unwrap();
                        model.insert(format!("k{key}"), text);
                    }
                    Op::Expiring { handle, key } => {
                        let ttl = PutOptions::default().ttl(Duration::from_nanos(1));
                        let gone = "gone".to_owned();
                        handles[handle]
                            .put_with(&format!("k{key}"), &gone, &ttl)
                            .unwrap();
                        model.remove(&format!("k{key}"));
                    }
                    Op::Remove { handle, key } => {
                        handles[handle].refresh().unwrap();
                        handles[handle].remove(&format!("k{key}")).unwrap();
                        model.remove(&format!("k{key}"));
                    }
                    Op::Compact { handle, asked } => {
                        let cache = &handles[handle];
                        let how = match asked {
                            true => Compaction::Asked(Duration::ZERO),
                            false => Compaction::IfFree(Duration::ZERO),
                        };
                        let done =
                            compact_sealed(Some(cache), backend.clone(), &[], how, &mut |_, _| {});
                        done.unwrap();
                        reads_as(&backend, &handles, &model);
                    }
                }
            }
            reads_as(&backend, &handles, &model);
        }

        /// Where each append is an object of its own: a handle that put a
        /// key in a segment of its own, which another handle's compaction
        /// retires and deletes (the key expired since, by a third put),
        /// takes up the checkpoint that replaces it at its next refresh,
        /// though the manifest is as large as the one it read before and
        /// it never listed its own segment (it kept its put, and listed
        /// the key the store no longer holds). Found by the property test
        /// below.
        #[test]
        fn a_handle_takes_up_the_checkpoint_once_its_own_segment_is_retired() {
            use Op::{Compact, Expiring, Put, Remove};
            let compact = |handle| Compact {
                handle,
                asked: false,
            };
            let ops = [
                Put {
                    handle: 0,
                    key: 6,
                    big: false,
                },
                compact(0),
                compact(0),
                compact(0),
                Remove { handle: 0, key: 6 },
                compact(0),
                Put {
                    handle: 1,
                    key: 6,
                    big: false,
                },
                Expiring { handle: 0, key: 6 },
                compact(2),
            ];
            let memory = Arc::new(crate::backend::memory::Memory::new());
            the_store_s_own_compaction_changes_nothing_that_reads(memory, &ops);
        }

        proptest! {
            #![proptest_config(ProptestConfig { cases: 40, ..ProptestConfig::default() })]
            #[test]
            fn the_store_s_own_compaction_keeps_what_reads(
                ops in proptest::collection::vec(op(), 1..40)
            ) {
                let dir = tempfile::tempdir().unwrap();
                crate::cache::open::create_folder(dir.path()).unwrap();
                let folder = Arc::new(crate::backend::folder::Folder::new(dir.path()));
                the_store_s_own_compaction_changes_nothing_that_reads(folder, &ops);
            }

            /// The same where each append is an object of its own.
            #[test]
            fn the_store_s_own_compaction_keeps_what_reads_on_objects(
                ops in proptest::collection::vec(op(), 1..40)
            ) {
                let memory = Arc::new(crate::backend::memory::Memory::new());
                the_store_s_own_compaction_changes_nothing_that_reads(memory, &ops);
            }
        }

        /// A key put in a segment a compaction kept, and removed by
        /// another writer in a segment the next one retires: the next one
        /// removes it again, from the lines of the segment kept that the
        /// first one read (a sealed segment is read once).
        #[test]
        fn a_removal_retired_stays_for_a_put_in_a_segment_kept_before() {
            let dir = tempfile::tempdir().unwrap();
            let options = CacheOptions::default().segment_bytes(0);
            let b = Cache::open_with(dir.path(), options.clone()).unwrap();
            let text = |i: u32| format!("{i:04}").repeat(100);
            // B's first segment dead, its second mostly live.
            for i in 0..20u32 {
                b.put(&format!("dead{i}"), &text(i)).unwrap();
                b.remove(&format!("dead{i}")).unwrap();
            }
            b.writer.seal_now().unwrap();
            b.put("k", &"old".to_owned()).unwrap();
            for i in 0..20u32 {
                b.put(&format!("live{i}"), &text(i)).unwrap();
            }
            b.writer.seal_now().unwrap();
            let own = Compaction::IfFree(Duration::ZERO);
            let backend = b.backend.clone();
            let done = compact_sealed(Some(&b), backend.clone(), &[], own, &mut |_, _| {});
            assert_eq!(done.unwrap().kept, 0);
            // A removes `k`, in a segment of its own that is then dead.
            let a = Cache::open_with(dir.path(), options).unwrap();
            a.refresh().unwrap();
            a.remove("k").unwrap();
            for i in 0..20u32 {
                a.put(&format!("gone{i}"), &text(i)).unwrap();
                a.remove(&format!("gone{i}")).unwrap();
            }
            a.writer.seal_now().unwrap();
            compact_sealed(Some(&b), backend, &[], own, &mut |_, _| {}).unwrap();
            for handle in [&a, &b, &Cache::open(dir.path()).unwrap()] {
                handle.refresh().unwrap();
                assert_eq!(handle.get::<String>("k").unwrap(), None);
                assert_eq!(handle.get::<String>("live3").unwrap(), Some(text(3)));
            }
        }

        /// A folder of dead segments and live ones: the store's own
        /// compaction retires the dead ones and copies nothing live.
        #[test]
        fn the_store_s_own_compaction_leaves_segments_mostly_live() {
            let dir = tempfile::tempdir().unwrap();
            let options = CacheOptions::default().segment_bytes(4000);
            let cache = Cache::open_with(dir.path(), options).unwrap();
            let text = |i: u32| format!("{i:04}").repeat(100);
            for i in 0..40u32 {
                cache.put(&format!("dead{i}"), &text(i)).unwrap();
            }
            for i in 0..40u32 {
                cache.remove(&format!("dead{i}")).unwrap();
            }
            for i in 0..40u32 {
                cache.put(&format!("live{i}"), &text(i)).unwrap();
            }
            let how = Compaction::IfFree(Duration::ZERO);
            let backend = cache.backend.clone();
            let done = compact_sealed(Some(&cache), backend.clone(), &[], how, &mut |_, _| {});
            let done = done.unwrap();
            assert_eq!(done.kept, 0, "{done:?}");
            assert!(done.size_after < done.size_before * 3 / 4, "{done:?}");
            for i in 0..40u32 {
                assert_eq!(
                    cache.get::<String>(&format!("live{i}")).unwrap(),
                    Some(text(i))
                );
            }
            // Asked for, every sealed segment goes, the live entries copied.
            let how = Compaction::Asked(Duration::ZERO);
            let done = compact_sealed(Some(&cache), backend, &[], how, &mut |_, _| {}).unwrap();
            assert_eq!(done.kept, 40, "{done:?}");
        }
    }
}
