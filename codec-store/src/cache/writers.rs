//! Writers' logs: each live handle holds an exclusive lock on its own, so a
//! log nobody holds belongs to a handle that is gone. A new handle takes up
//! such a log (and its shared data file) instead of starting one more: a
//! folder has at most as many logs as handles ever wrote to it at the same
//! time (plus one per compaction), however many short runs write to it.
//! Backends without locks never take a log up: each handle starts its own.
//!
//! In a folder a writer's log and shared data are segments: once they hold
//! [`CacheOptions::segment_bytes`](crate::CacheOptions::segment_bytes)
//! (or a compaction run by the handle asks for it), the writer seals them
//! and goes on in the next ones (`layout::log_segment`). A sealed segment
//! never grows again, so a compaction can copy what is live in it and
//! retire it while the writer writes on. Only the last segment of a writer
//! is ever taken up.

use std::sync::atomic::{AtomicU64, Ordering};

use parking_lot::Mutex;

use crate::backend::{Appended, Appender, Appends, Backend};
use crate::cache::{Store, Writer};
use crate::error::StoreError;
use crate::index::line::{check_line, LineView};
use crate::index::logs;
use crate::layout;

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
    for log in logs(backend)? {
        let (id, n) = layout::segment_of(&log.writer);
        match last.iter_mut().find(|(w, _, _)| w == id) {
            Some(found) if found.1 >= n => {}
            Some(found) => *found = (id.to_owned(), n, log.name),
            None => last.push((id.to_owned(), n, log.name)),
        }
    }
    let names: Vec<String> = last.into_iter().map(|(_, _, name)| name).collect();
    let Some(appender) = backend.take_up_log(&names)? else {
        return Ok(None);
    };
    let (name, _) = appender.end();
    let (id, n) = layout::segment_of(layout::log_writer(&name).unwrap_or(&name));
    let id = id.to_owned();
    let log = resume(backend, appender)?;
    Ok(Some((id, n, log)))
}

/// Starts segment `n` of writer `id`'s log (locked before any other handle
/// can see it, in a folder).
pub fn create(backend: &dyn Backend, id: &str, n: u64) -> Result<Log, StoreError> {
    Ok(Log {
        appender: backend.append_to(&layout::log_segment(id, n))?,
        last_time: 0,
        next_seq: 0,
        torn: false,
    })
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
    let (mut last_time, mut next_seq) = (0, 0);
    for raw in tail.split(|&b| b == b'\n').rev() {
        let view = check_line(raw)
            .ok()
            .and_then(|text| LineView::parse(text).ok().map(|v| (v.time, v.seq)));
        if let Some((time, seq)) = view {
            (last_time, next_seq) = (time, seq + 1);
            break;
        }
    }
    Ok(Log {
        appender,
        last_time,
        next_seq,
        torn,
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

impl Store {
    /// Seals the segment of its log and shared data this handle appends to
    /// (in a folder; elsewhere each append is sealed already): its next
    /// lines and data go to the next segment. The next log exists, locked,
    /// before this one is let go, so that no handle looking for a gone
    /// writer's log takes up this one.
    pub(crate) fn seal(&self, writer: &mut Writer) -> Result<(), StoreError> {
        let mut shared = self.shared.file.lock();
        if self.backend.appends() != Appends::InPlace || (writer.log.is_none() && shared.is_none())
        {
            return Ok(());
        }
        if writer.format_raised < layout::SEGMENTS_FORMAT {
            crate::cache::open::raise_format(&*self.backend, layout::SEGMENTS_FORMAT)?;
            writer.format_raised = layout::SEGMENTS_FORMAT;
        }
        let next = writer.segment + 1;
        writer.log = Some(create(&*self.backend, &self.writer_id, next)?);
        *shared = None;
        self.shared.end.store(0, Ordering::Relaxed);
        writer.torn = false;
        writer.segment = next;
        Ok(())
    }

    /// Whether the segment this handle appends to holds
    /// [`CacheOptions::segment_bytes`](crate::CacheOptions::segment_bytes)
    /// of log and data, or, in a store bounded in bytes, a quarter of the
    /// bound (at least [`MIN_BOUNDED_SEGMENT`]): time to seal it. What the
    /// bounds remove is in sealed segments soon, for the compaction to
    /// give back.
    pub(crate) fn segment_full(&self, log_end: u64) -> bool {
        let bounded = (self.options.bounds.as_ref())
            .and_then(|b| b.max_bytes)
            .map(|max| (max / 4).max(MIN_BOUNDED_SEGMENT));
        let limit = match (self.options.segment_bytes, bounded) {
            (0, _) => 0,
            (limit, Some(bounded)) => limit.min(bounded),
            (limit, None) => limit,
        };
        let data = self.shared.end();
        limit > 0 && self.backend.appends() == Appends::InPlace && log_end + data >= limit
    }
}

/// The smallest segment a bound in bytes makes a writer seal at.
const MIN_BOUNDED_SEGMENT: u64 = 1 << 20;
