//! Writers' logs: each live handle holds an exclusive lock on its own, so a
//! log nobody holds belongs to a handle that is gone. A new handle takes up
//! such a log (and its shared data file) instead of starting one more: a
//! folder has at most as many logs as handles ever wrote to it at the same
//! time (plus one per compaction), however many short runs write to it.
//! Backends without locks never take a log up: each handle starts its own.
//! A log taken up whose shared data may have been cut short by a power
//! cut is sealed as it is: the handle goes on in its next segment (see
//! [`claim_dead`]).
//!
//! In a folder a writer's log and shared data are segments: once they hold
//! [`CacheOptions::segment_bytes`](crate::CacheOptions::segment_bytes)
//! (or a compaction run by the handle asks for it), the writer seals them
//! and goes on in the next ones (`layout::log_segment`). A sealed segment
//! never grows again, so a compaction can copy what is live in it and
//! retire it while the writer writes on. Only the last segment of a writer
//! is ever taken up.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use parking_lot::{Condvar, Mutex, MutexGuard};

use crate::backend::{Appended, Appender, Appends, Backend, LogAhead};
use crate::cache::underway;
use crate::error::StoreError;
use crate::index::line::{check_line, LineView};
use crate::index::logs;
use crate::index::records::{IndexLine, InfoValue};
use crate::layout;
use crate::options::CacheOptions;
use codec_runtime::Fingerprint;

/// How long a thread waits for a writer's lock on its processor before it
/// sleeps ([`LogWriter::lock`]), as a write does for the index's. A pass
/// of the bounds holds it as it writes a few removals: in one run at a
/// steady 15,000 puts a second, 1,700 of the 2,600 times a put over
/// 100 µs left its processor, it was asleep on this lock, and woke long
/// after its release.
const SPIN_FOR_WRITER: std::time::Duration = std::time::Duration::from_micros(200);

/// The threads that waited for a writer's lock on their processor.
#[cfg(test)]
pub(crate) static SPUN_FOR_WRITER: AtomicU64 = AtomicU64::new(0);

/// A log this handle appends to (locked, in a folder).
pub struct Log {
    pub appender: Box<dyn Appender>,
    /// The time of its last line.
    pub last_time: u64,
    /// The sequence number of its next line.
    pub next_seq: u64,
    /// It ends in a partial line.
    pub torn: bool,
}

/// The log of a writer that is gone, taken for this handle, with its id
/// and segment; `None` if every log has a live writer (or the backend
/// cannot tell). Only a writer's last segment is taken up: the others are
/// sealed.
pub fn claim_dead(backend: &dyn Backend) -> Result<Option<(String, u64, Log)>, StoreError> {
    let mut last: Vec<(String, u64, String)> = Vec::new();
    let listed = logs(backend)?;
    for log in &listed {
        let (id, n) = layout::segment_of(&log.writer);
        match last.iter_mut().find(|(w, _, _)| w == id) {
            Some(found) if found.1 >= n => {}
            Some(found) => *found = (id.to_owned(), n, log.name.clone()),
            None => last.push((id.to_owned(), n, log.name.clone())),
        }
    }
    let names: Vec<String> = last.into_iter().map(|(_, _, name)| name).collect();
    let Some(appender) = backend.take_up_log(&names)? else {
        return Ok(None);
    };
    let (name, _) = appender.end();
    let (id, n) = layout::segment_of(layout::log_writer(&name).unwrap_or(&name));
    let id = id.to_owned();
    let mut log = resume(backend, appender)?;
    // A segment with no whole line (sealed just before its writer went,
    // or its lines taken by a power loss) says nothing of the sequence,
    // and the writer's segments before it may be retired by a compaction.
    // Entries' files are named after their sequence: starting again at 0
    // named a file after an older entry, which read as the new file where
    // a power loss took the old file and left its line, or where a handle
    // opened before the compaction still read its retired line (and the
    // retired file's removal would take the new one). It goes on from the
    // clock in nanoseconds, which no count of lines written before reaches.
    if log.next_seq == 0 {
        log.next_seq = crate::cache::now_nanos();
    }
    // A power cut may have cut its shared data short of what its lines
    // point at (they are in another file, and a writer without `fsync`
    // syncs neither): data appended at the cut would then read as theirs.
    // Unless the file holds all they point at, its log and data are
    // sealed as they are, and this handle goes on in the next segment.
    if !shared_data_whole(backend, &id, n, &log)? {
        crate::cache::open::raise_format(backend, layout::SEGMENTS_FORMAT)?;
        let next = create(backend, &id, n + 1)?;
        log = Log {
            appender: next.appender,
            torn: false,
            ..log
        };
        return Ok(Some((id, n + 1, log)));
    }
    Ok(Some((id, n, log)))
}

/// The longest log a take-up reads whole to see where its lines point
/// into the shared data (about 1.5 ms, at 1.4 µs a line naming it); a
/// longer one is sealed, so short runs one after the other begin a
/// segment every 256 KiB of log (a thousand puts or so).
const WHOLE_LOG_MAX: u64 = 256 << 10;

/// Whether writer `id`'s shared data segment `n`, if there is one, holds
/// every byte the lines of `log` (its log segment, taken up) point at, as
/// far as a take-up can tell: `false` where a line names the file without
/// a range this reads (a user handler's own info, without recorded
/// parts), or where the log is too long to read.
fn shared_data_whole(
    backend: &dyn Backend,
    id: &str,
    n: u64,
    log: &Log,
) -> Result<bool, StoreError> {
    let shared = layout::shared_segment(id, n);
    let Some(maps) = backend.maps() else {
        return Ok(false);
    };
    let size = match maps.map(&shared) {
        Ok(map) => map.len() as u64,
        Err(e) if e.source.kind() == std::io::ErrorKind::NotFound => return Ok(true),
        Err(e) => return Err(e.into()),
    };
    let (name, end) = log.appender.end();
    if end > WHOLE_LOG_MAX {
        return Ok(false);
    }
    let file = shared
        .strip_prefix(&format!("{}/", layout::DATA))
        .unwrap_or(&shared);
    let finder = memchr::memmem::Finder::new(file.as_bytes());
    let mut reach = 0;
    for raw in backend.read_range(&name, 0..end)?.split(|&b| b == b'\n') {
        if finder.find(raw).is_none() {
            continue;
        }
        // A line that does not check is read by no one.
        let Some(line) = check_line(raw).ok().and_then(|t| LineView::parse(t).ok()) else {
            continue;
        };
        let Ok(info) = line.info() else {
            return Ok(false);
        };
        if !reach_into(&InfoValue::Map(info), file, &mut reach) {
            return Ok(false);
        }
    }
    Ok(reach <= size)
}

/// Raises `reach` to the end of each range of data file `file` that
/// `value` points at (`{"file", "offset", "len"}` maps, a shared entry's
/// info and recorded parts alike, an `auto` entry's buffers apart, and
/// `at:<file>:<offset>:<len>` tokens); `false` if it names the file
/// otherwise.
fn reach_into(value: &InfoValue, file: &str, reach: &mut u64) -> bool {
    match value {
        InfoValue::Map(map) => {
            let names = |key: &str| matches!(map.get(key), Some(InfoValue::Text(f)) if f == file);
            let (in_file, in_bins) = (names("file"), names("bins"));
            if in_file {
                let (Some(InfoValue::Int(offset)), Some(InfoValue::Int(len))) =
                    (map.get("offset"), map.get("len"))
                else {
                    return false;
                };
                *reach = (*reach).max(offset.saturating_add(*len).max(0) as u64);
            }
            if in_bins {
                // An `auto` entry's buffers kept apart.
                let Some(bins) = crate::content::apart::bins_reach(map) else {
                    return false;
                };
                *reach = (*reach).max(bins);
            }
            (map.iter())
                .filter(|(key, _)| !(in_file && *key == "file" || in_bins && *key == "bins"))
                .all(|(_, v)| reach_into(v, file, reach))
        }
        InfoValue::List(items) => items.iter().all(|v| reach_into(v, file, reach)),
        InfoValue::Text(text) => match crate::content::handler::shared_token(text) {
            Some((name, offset, len)) if name == file => {
                *reach = (*reach).max(offset.saturating_add(len));
                true
            }
            _ => !text.contains(file),
        },
        _ => true,
    }
}

/// Starts segment `n` of writer `id`'s log (locked before any other handle
/// can see it, in a folder).
pub fn create(backend: &dyn Backend, id: &str, n: u64) -> Result<Log, StoreError> {
    Ok(Log::new(backend.append_to(&layout::log_segment(id, n))?))
}

impl Log {
    /// A new log, empty, appended to by `appender`.
    fn new(appender: Box<dyn Appender>) -> Log {
        Log {
            appender,
            last_time: 0,
            next_seq: 0,
            torn: false,
        }
    }
}

/// Where a dead writer's log left off: its last line's time and sequence,
/// whether it ends in a partial line.
fn resume(backend: &dyn Backend, appender: Box<dyn Appender>) -> Result<Log, StoreError> {
    let (name, end) = appender.end();
    // The last lines are in the last 64 KiB, unless a line is longer: then
    // its time is unknown, and the clock (later than any line written)
    // serves.
    let from = end.saturating_sub(64 * 1024);
    let tail = backend.read_range(&name, from..end)?;
    let torn = tail.last().is_some_and(|&b| b != b'\n');
    let (last_time, next_seq) = last_of(&tail).map_or((0, 0), |(time, seq)| (time, seq + 1));
    Ok(Log {
        appender,
        last_time,
        next_seq,
        torn,
    })
}

/// The time and sequence of the last line of `tail` that checks.
fn last_of(tail: &[u8]) -> Option<(u64, u64)> {
    tail.split(|&b| b == b'\n').rev().find_map(|raw| {
        let text = check_line(raw).ok()?;
        LineView::parse(text).ok().map(|v| (v.time, v.seq))
    })
}

/// The shared data segment a handle appends to (`data/<writer>.<n>.bin`),
/// opened at its first append.
#[derive(Default)]
pub(crate) struct SharedData {
    pub(crate) file: Mutex<Option<Box<dyn Appender>>>,
    /// Its size, read without its lock: a write asks whether its segment
    /// is full while a handler may be streaming into the file.
    end: AtomicU64,
}

impl SharedData {
    /// Appends `bytes` to `file` (the guard of [`SharedData::file`]),
    /// opening segment `segment` of writer `id`'s shared data if it is
    /// not open yet, with zeros before them to start at a multiple of
    /// `align`; synced if `fsync`.
    pub(crate) fn append(
        &self,
        file: &mut Option<Box<dyn Appender>>,
        backend: &dyn Backend,
        (id, segment): (&str, u64),
        bytes: &[u8],
        align: u64,
        fsync: bool,
    ) -> Result<Appended, StoreError> {
        let file = match file {
            Some(file) => file,
            None => file.insert(backend.append_to(&layout::shared_segment(id, segment))?),
        };
        let appended = file.append(bytes, align)?;
        if fsync {
            file.sync()?;
        }
        self.end.store(appended.end, Ordering::Relaxed);
        Ok(appended)
    }

    /// The size of the segment, as far as this handle appended to it.
    pub(crate) fn end(&self) -> u64 {
        self.end.load(Ordering::Relaxed)
    }
}

/// The writer of a handle: its log and shared data, the segment it
/// appends to and its seals, and the writes under way that a seal waits
/// for (`cache/underway.rs`).
pub(crate) struct LogWriter {
    pub(crate) backend: Arc<dyn Backend>,
    id: String,
    /// The size of log and data at which a segment is sealed (0: never).
    segment_limit: AtomicU64,
    /// The segment size the options give, which the bounds' passes may
    /// lower ([`size_segments_to`](Self::size_segments_to)).
    options_limit: u64,
    /// The bytes of log and shared data of the segments this handle sealed.
    pub(crate) sealed_bytes: AtomicU64,
    /// How many segments this handle sealed (read without its lock).
    pub(crate) seals: AtomicU64,
    /// The bytes of log and shared data of the segment this handle
    /// appends to, as its last write left them (read without its lock).
    active_bytes: AtomicU64,
    /// Where each append is an object of its own: the number of the next
    /// shared data object this handle appends, as it last had no write
    /// under way (the moment of a seal, which is nothing more there).
    /// Every object below holds the data of writes whose lines are
    /// written.
    data_mark: AtomicU64,
    /// The handle's warnings (a seal that failed).
    pub(crate) warnings: Arc<Mutex<Vec<String>>>,
    state: Mutex<Writer>,
    /// The writes under way, which a seal waits for: taken after `state`
    /// where both are.
    pub(crate) underway: Mutex<underway::Underway>,
    /// Signalled when a seal that writes under way held back is made
    /// (waited on with `underway`).
    pub(crate) sealed: Condvar,
    /// The shared data segment this handle appends to, apart from the
    /// writer's lock: handlers of different threads append to it while
    /// other threads write their lines.
    pub(crate) shared: SharedData,
    /// The file names dumps gave: `DumpContext::next_file_name`.
    pub(crate) files_named: Mutex<(u64, u64)>,
    /// The next log, made ahead of the seal that names it by the
    /// upkeep's threads ([`make_ahead`](Self::make_ahead)).
    ahead: Mutex<Option<Box<dyn LogAhead>>>,
    /// A handle with `fsync` whose caller syncs its log and shared data
    /// itself, many writes at once (a compaction's copies): each write
    /// syncs only the files of its own entries.
    pub(crate) defer_syncs: std::sync::atomic::AtomicBool,
}

/// The state of a handle's writer, under its lock: its log, its
/// segment and sequence.
#[derive(Default)]
pub(crate) struct Writer {
    /// This handle's log, locked, once it has one.
    pub(crate) log: Option<Log>,
    /// The last index write failed: the file may end in a partial line.
    pub(crate) torn: bool,
    pub(crate) seq: u64,
    pub(crate) last_time: u64,
    /// The time of the next lines instead of the clock's: a compaction's
    /// copies keep the time of the lines they copy.
    pub(crate) pinned_time: Option<u64>,
    pub(crate) schemas_written: Vec<Fingerprint>,
    /// The layout version this handle made sure the store has at least
    /// (`open::raise_format`).
    pub(crate) format_raised: u32,
    /// The number of the segment of its log and shared data this handle
    /// appends to (`layout::log_segment`): 0 until it seals one.
    pub(crate) segment: u64,
    /// The bytes of the line being written, reused between lines.
    pub(crate) line_buf: Vec<u8>,
    /// Where each line of the write being made starts in `line_buf` (and
    /// where the last ends), reused between writes.
    pub(crate) line_starts: Vec<usize>,
    /// The lines of each thread's [`Cache::put_many`] under way.
    pub(crate) batches: Vec<(std::thread::ThreadId, Vec<IndexLine>)>,
}

impl LogWriter {
    /// The writer of id `id` in `backend`, from `state` (a log taken up,
    /// or none yet), sealing its segments as `options` say.
    pub(crate) fn new(
        backend: Arc<dyn Backend>,
        id: String,
        options: &CacheOptions,
        state: Writer,
        warnings: Arc<Mutex<Vec<String>>>,
    ) -> LogWriter {
        let bounded = (options.bounds.as_ref())
            .and_then(|b| b.max_bytes)
            .map(|max| (max / 4).max(MIN_BOUNDED_SEGMENT));
        let segment_limit = match (options.segment_bytes, bounded) {
            (0, _) => 0,
            (limit, Some(bounded)) => limit.min(bounded),
            (limit, None) => limit,
        };
        LogWriter {
            backend,
            id,
            segment_limit: AtomicU64::new(segment_limit),
            options_limit: segment_limit,
            sealed_bytes: AtomicU64::new(0),
            seals: AtomicU64::new(0),
            active_bytes: AtomicU64::new(0),
            data_mark: AtomicU64::new(0),
            warnings,
            state: Mutex::new(state),
            underway: Mutex::default(),
            sealed: Condvar::new(),
            shared: SharedData::default(),
            files_named: Mutex::default(),
            ahead: Mutex::default(),
            defer_syncs: std::sync::atomic::AtomicBool::new(false),
        }
    }

    /// Whether its caller syncs the log and shared data it appends to.
    pub(crate) fn defers_syncs(&self) -> bool {
        self.defer_syncs.load(Ordering::Relaxed)
    }

    /// Whether each write syncs the log and shared data it appends to.
    pub(crate) fn syncs_appends(&self, fsync: bool) -> bool {
        fsync && !self.defers_syncs()
    }

    /// Makes the shared data this handle appended since its segment
    /// `since` durable, as a caller that defers the syncs does before the
    /// lines naming it: the segment appended to (where each append is an
    /// object, every object its appender wrote), and, in place, those
    /// sealed since.
    pub(crate) fn sync_shared(&self, since: u64) -> Result<(), StoreError> {
        if let Some(file) = self.shared.file.lock().as_mut() {
            file.sync()?;
        }
        let now = self.lock().segment;
        if self.backend.appends() == Appends::InPlace && now > since {
            let names: Vec<String> = (since..now)
                .map(|n| layout::shared_segment(&self.id, n))
                .collect();
            #[cfg(test)]
            SYNCED_SEALED.with_borrow_mut(|synced| synced.extend(names.iter().cloned()));
            self.backend.sync(&names)?;
        }
        Ok(())
    }

    /// Makes the next log ahead of the seal that needs it, once the
    /// segment this handle appends to is half full: off the write path,
    /// where the seal then only names it (a folder's file created takes
    /// 40-100 µs, a rename 15). A log that cannot be made so is made by
    /// the seal.
    pub(crate) fn make_ahead(&self) {
        let limit = self.segment_limit();
        if limit == 0 || self.active_bytes.load(Ordering::Relaxed) < limit / 2 {
            return;
        }
        let Some(mut ahead) = self.ahead.try_lock() else {
            return;
        };
        if ahead.is_some() {
            return;
        }
        match self.backend.log_ahead(&self.id) {
            Ok(made) => *ahead = made,
            Err(e) => log::debug!(target: "codec::store", "the next log is made by the seal: {e}"),
        }
    }

    /// Whether the segment this handle appends to is half full, and its
    /// next log is not made ahead yet ([`make_ahead`](Self::make_ahead)).
    pub(crate) fn wants_ahead(&self) -> bool {
        let limit = self.segment_limit();
        limit > 0
            && self.backend.appends() == Appends::InPlace
            && self.active_bytes.load(Ordering::Relaxed) >= limit / 2
            && self.ahead.try_lock().is_some_and(|ahead| ahead.is_none())
    }

    /// The writer's state, locked: waited for on the processor a while
    /// ([`SPIN_FOR_WRITER`]) before the thread sleeps. A pass of the
    /// bounds holds it as it writes a few removals, a put as it writes
    /// its line: briefly, and often.
    pub(crate) fn lock(&self) -> MutexGuard<'_, Writer> {
        crate::cache::threads::take_spinning(
            SPIN_FOR_WRITER,
            || self.state.try_lock(),
            || self.state.is_locked(),
            || self.state.lock(),
            || {
                #[cfg(test)]
                SPUN_FOR_WRITER.fetch_add(1, Ordering::Relaxed);
            },
        )
    }

    /// Seals the segment of its log and shared data this handle appends to
    /// (in a folder; elsewhere each append is sealed already): its next
    /// lines and data go to the next segment. The next log exists, locked,
    /// before this one is let go, so that no handle looking for a gone
    /// writer's log takes up this one.
    pub(crate) fn seal(&self, writer: &mut Writer) -> Result<(), StoreError> {
        let mut shared = self.shared.file.lock();
        if self.backend.appends() != Appends::InPlace {
            // Each append is sealed already: no write is under way now.
            let next = shared.as_ref().map_or(0, |file| {
                let (name, _) = file.end();
                let stem = name.strip_suffix(".bin").unwrap_or(&name);
                layout::segment_of(stem).1
            });
            self.data_mark.store(next, Ordering::Relaxed);
            return Ok(());
        }
        if writer.log.is_none() && shared.is_none() {
            return Ok(());
        }
        if writer.format_raised < layout::SEGMENTS_FORMAT {
            crate::cache::open::raise_format(&*self.backend, layout::SEGMENTS_FORMAT)?;
            writer.format_raised = layout::SEGMENTS_FORMAT;
        }
        let next = writer.segment + 1;
        let log = writer.log.as_ref().map_or(0, |log| log.appender.end().1);
        let size = log + self.shared.end();
        writer.log = Some(self.next_log(next)?);
        self.sealed_bytes.fetch_add(size, Ordering::Relaxed);
        self.active_bytes.store(0, Ordering::Relaxed);
        self.seals.fetch_add(1, Ordering::Relaxed);
        *shared = None;
        self.shared.end.store(0, Ordering::Relaxed);
        writer.torn = false;
        writer.segment = next;
        Ok(())
    }

    /// The log of segment `next`: the one made ahead, named, if there is
    /// one; else made now (also while one is being made: the seal does
    /// not wait for it, which the next seal names).
    fn next_log(&self, next: u64) -> Result<Log, StoreError> {
        let name = layout::log_segment(&self.id, next);
        let ahead = self.ahead.try_lock().and_then(|mut ahead| ahead.take());
        if let Some(ahead) = ahead {
            match ahead.name(&name) {
                Ok(appender) => return Ok(Log::new(appender)),
                Err(e) => log::debug!(target: "codec::store", "the log made ahead: {e}"),
            }
        }
        create(&*self.backend, &self.id, next)
    }

    /// Where each append is an object of its own, the shared data objects
    /// of this handle below this number hold the data of writes whose
    /// lines were written when it last had no write under way
    /// ([`seal_now`](Self::seal_now) makes such a moment).
    pub(crate) fn data_mark(&self) -> u64 {
        self.data_mark.load(Ordering::Relaxed)
    }

    /// Whether the segment this handle appends to holds
    /// [`CacheOptions::segment_bytes`](crate::CacheOptions::segment_bytes)
    /// of log and data, or, in a store bounded in bytes, a quarter of the
    /// bound (at least [`MIN_BOUNDED_SEGMENT`]; under other bounds, of
    /// what the last pass kept: [`size_segments_to`](Self::size_segments_to)):
    /// time to seal it. What the
    /// bounds remove is in sealed segments soon, for the compaction to
    /// give back.
    pub(crate) fn segment_full(&self, log_end: u64) -> bool {
        let limit = self.segment_limit.load(Ordering::Relaxed);
        let data = self.shared.end();
        limit > 0 && self.backend.appends() == Appends::InPlace && log_end + data >= limit
    }

    /// After a write that left the log of the segment this handle
    /// appends to `log_end` bytes long: the bytes it wrote in all
    /// ([`written`](Self::written)) counted.
    pub(crate) fn wrote(&self, log_end: u64) {
        let size = log_end + self.shared.end();
        self.active_bytes.store(size, Ordering::Relaxed);
    }

    /// The bytes of log and shared data this handle wrote in a folder, as
    /// its last write and seal left them: those written since a
    /// compaction started are left for the next one.
    pub(crate) fn written(&self) -> u64 {
        self.sealed_bytes.load(Ordering::Relaxed) + self.active_bytes.load(Ordering::Relaxed)
    }

    /// The size of log and data at which a segment is sealed (0: never).
    pub(crate) fn segment_limit(&self) -> u64 {
        self.segment_limit.load(Ordering::Relaxed)
    }

    /// The bytes of log and shared data of the segment this handle
    /// appends to.
    pub(crate) fn segment_size(&self) -> u64 {
        let log = self
            .lock()
            .log
            .as_ref()
            .map_or(0, |log| log.appender.end().1);
        log + self.shared.end()
    }

    /// Seals segments at a quarter of `kept` bytes (at least
    /// [`MIN_BOUNDED_SEGMENT`], at most the options' size): what a pass of
    /// bounds other than in bytes (entries, age) kept. As a bound in bytes
    /// does, so that what the bounds remove is soon in a sealed segment,
    /// for the compaction to give back.
    pub(crate) fn size_segments_to(&self, kept: u64) {
        if self.options_limit > 0 {
            let limit = (kept / 4).max(MIN_BOUNDED_SEGMENT).min(self.options_limit);
            self.segment_limit.store(limit, Ordering::Relaxed);
        }
    }
}

/// The smallest segment a bound makes a writer seal at.
const MIN_BOUNDED_SEGMENT: u64 = 1 << 20;

#[cfg(test)]
thread_local! {
    /// The shared data segments sealed since that [`LogWriter::sync_shared`]
    /// synced by name on this thread.
    static SYNCED_SEALED: std::cell::RefCell<Vec<String>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::Ordering;
    use std::time::Duration;

    use super::reach_into;
    use crate::index::records::{Info, InfoValue};
    use crate::layout;

    /// How far the info `json` reaches into `w.bin`, if it says.
    fn reach(json: &str) -> Option<u64> {
        let info: Info = codec_runtime::from_json_slice(json.as_bytes()).unwrap();
        let mut reach = 0;
        reach_into(&InfoValue::Map(info), "w.bin", &mut reach).then_some(reach)
    }

    /// In a store bounded in bytes, a writer seals its segment at a
    /// quarter of the bound (at least 1 MiB): what the bounds remove is
    /// soon in a sealed segment, for the compaction to give back.
    #[test]
    fn a_bound_in_bytes_seals_segments_at_a_quarter_of_it() {
        let dir = tempfile::tempdir().unwrap();
        let bounds = crate::options::Bounds::default().max_bytes(8 << 20);
        let options = crate::CacheOptions::default().bounds(bounds);
        let cache = crate::Cache::open_with(dir.path(), options).unwrap();
        let value = "v".repeat(64 << 10);
        for i in 0..40 {
            // 2.5 MiB in all, far below the default segment size.
            cache.put(&format!("k{i}"), &value).unwrap();
        }
        assert!(cache.writer.lock().segment >= 1, "no segment sealed");
    }

    /// In a store bounded otherwise (in entries, in age), a writer seals
    /// its segment at a quarter of the payload the last pass of the bounds
    /// kept (at least 1 MiB): without it the default 64 MiB segment held
    /// everything, and the store compacted only when the whole of it was.
    #[test]
    fn a_bound_in_entries_seals_segments_at_a_quarter_of_what_a_pass_kept() {
        let dir = tempfile::tempdir().unwrap();
        let bounds = crate::options::Bounds::default().max_entries(10);
        let options = crate::CacheOptions::default().bounds(bounds);
        let cache = crate::Cache::open_with(dir.path(), options).unwrap();
        let value = "v".repeat(64 << 10);
        cache.put("first", &value).unwrap();
        // A pass of the bounds.
        cache.admin().checkpoint().unwrap();
        for i in 0..40 {
            // 2.5 MiB in all, far below the default segment size.
            cache.put(&format!("k{i}"), &value).unwrap();
        }
        assert!(cache.writer.lock().segment >= 1, "no segment sealed");
    }

    /// A handle whose caller syncs its shared data itself (a compaction's
    /// copies, before the lines naming it) syncs, with the segment it
    /// appends to, every one sealed since: a seal in the middle of the
    /// copies leaves data there that their lines name.
    #[test]
    fn shared_data_sealed_since_is_synced_with_the_segment_appended_to() {
        let dir = tempfile::tempdir().unwrap();
        let options = crate::CacheOptions::default().segment_bytes(16 << 10);
        let cache = crate::Cache::open_with(dir.path(), options).unwrap();
        cache.writer.defer_syncs.store(true, Ordering::Relaxed);
        // Over the inline limit: in the shared data.
        let value = "v".repeat(2 << 10);
        for i in 0..40 {
            cache.put(&format!("k{i}"), &value).unwrap();
        }
        let since = 1;
        let now = cache.writer.lock().segment;
        assert!(now > since + 1, "segments sealed: {now}");
        super::SYNCED_SEALED.with_borrow_mut(Vec::clear);
        cache.writer.sync_shared(since).unwrap();
        let expected: Vec<String> = (since..now)
            .map(|n| layout::shared_segment(&cache.writer.id, n))
            .collect();
        assert_eq!(super::SYNCED_SEALED.with_borrow(Vec::clone), expected);
        for name in &expected {
            assert!(dir.path().join(name).exists(), "{name}");
        }
    }

    /// The next log is made ahead once the segment is half full, and the
    /// seal names it (the same file): no file is created on the write
    /// path. One left by a handle that closes goes with it; one left by a
    /// handle killed goes with the next compaction, and one a live handle
    /// holds stays.
    #[cfg(unix)]
    #[test]
    fn the_log_made_ahead_is_the_one_the_seal_names() {
        use std::os::unix::fs::MetadataExt;
        let dir = tempfile::tempdir().unwrap();
        let options = crate::CacheOptions::default().segment_bytes(64 << 10);
        let cache = crate::Cache::open_with(dir.path(), options).unwrap();
        let id = cache.writer.id.clone();
        let next = dir.path().join(format!("{id}{}", layout::NEXT_LOG_SUFFIX));
        let value = "v".repeat(1 << 10);
        let mut n = 0;
        let mut put = |cache: &crate::Cache| {
            cache.put(&format!("k{n}"), &value).unwrap();
            n += 1;
        };
        put(&cache);
        cache.writer.make_ahead();
        assert!(
            !next.exists(),
            "made ahead while the segment is nearly empty"
        );
        while cache.writer.active_bytes.load(Ordering::Relaxed) < 40 << 10 {
            put(&cache);
        }
        cache.writer.make_ahead();
        // Held open: its inode is not another file's meanwhile.
        let held = std::fs::File::open(&next).expect("made ahead");
        let made = held.metadata().unwrap().ino();
        while cache.writer.lock().segment == 0 {
            put(&cache);
        }
        let named = dir.path().join(layout::log_segment(&id, 1));
        assert_eq!(std::fs::metadata(&named).unwrap().ino(), made);
        assert!(!next.exists());
        // Made again, and held: a compaction leaves it; a stale one (of
        // a writer killed) goes.
        while cache.writer.active_bytes.load(Ordering::Relaxed) < 40 << 10 {
            put(&cache);
        }
        cache.writer.make_ahead();
        let stale = dir.path().join(format!("gone{}", layout::NEXT_LOG_SUFFIX));
        std::fs::write(&stale, b"").unwrap();
        // And a log being made, left by a process killed before it locked
        // and named it.
        let made = dir.path().join(format!("killed{}", layout::NEW_LOG_SUFFIX));
        std::fs::write(&made, b"").unwrap();
        // Another handle's: this one's own seals first (and names it).
        let other = crate::Cache::open(dir.path()).unwrap();
        crate::compaction::compact_handle_online(&other, Duration::ZERO, &mut |_, _| {}).unwrap();
        assert!(next.exists(), "a live handle's log made ahead was deleted");
        assert!(!stale.exists(), "a gone writer's log made ahead stays");
        assert!(!made.exists(), "a killed writer's log being made stays");
        drop(cache);
        assert!(!next.exists(), "a closed handle's log made ahead stays");
    }

    #[test]
    fn a_take_up_reads_where_each_kind_of_line_points_into_the_shared_data() {
        // A shared entry, recorded parts, tokens, however deep.
        assert_eq!(reach(r#"{"file":"w.bin","offset":10,"len":5}"#), Some(15));
        let parts = r##"{"#parts":[{"file":"w.bin","offset":3,"len":4,"crc":"00"},
                      {"file":"w-2.bin","len":90,"crc":"00"}]}"##;
        assert_eq!(reach(parts), Some(7));
        let tokens = r#"{"a":{"b":["at:w.bin:100:20","at:w.1.bin:900:1"]}}"#;
        assert_eq!(reach(tokens), Some(120));
        // Other files, and no file at all.
        assert_eq!(reach(r#"{"file":"w.1.bin","offset":10,"len":5}"#), Some(0));
        assert_eq!(reach(r#"{"data":"AAA="}"#), Some(0));
    }

    #[test]
    fn a_take_up_reads_where_an_auto_entry_s_buffers_apart_end() {
        use base64::Engine as _;
        // The rest inline, holding two references (offset, len).
        let mut rest = b"\x92".to_vec();
        for (offset, len) in [(64u64, 100u64), (192, 8)] {
            rest.extend_from_slice(&[0xc7, 16, crate::content::apart::REF_EXT as u8]);
            rest.extend_from_slice(&offset.to_be_bytes());
            rest.extend_from_slice(&len.to_be_bytes());
        }
        let data = base64::engine::general_purpose::STANDARD.encode(&rest);
        let info = format!(r#"{{"data":"{data}","bins":"w.bin","refs":"1,20"}}"#);
        assert_eq!(reach(&info), Some(200));
        // The rest in the shared data too, after the buffers.
        let shared = r#"{"file":"w.bin","offset":300,"len":9,"bins":"w.bin","refs":"1"}"#;
        assert_eq!(reach(shared), Some(309));
        // References that do not read.
        let bad = format!(r#"{{"data":"{data}","bins":"w.bin","refs":"2"}}"#);
        assert_eq!(reach(&bad), None);
    }

    #[test]
    fn a_line_naming_the_shared_data_without_a_range_is_not_understood() {
        // A user handler's own info, without recorded parts.
        assert_eq!(reach(r#"{"path":"w.bin"}"#), None);
        assert_eq!(reach(r#"{"file":"w.bin","len":5}"#), None);
        assert_eq!(reach(r#"{"x":["see w.bin"]}"#), None);
        assert_eq!(reach(r#"{"t":"at:w.bin:x:5"}"#), None);
    }
}
