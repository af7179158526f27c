//! Writers' logs: each live handle holds an exclusive lock on its own, so a
//! log nobody holds belongs to a handle that is gone. A new handle takes up
//! such a log (and its shared data file) instead of starting one more: a
//! folder has at most as many logs as handles ever wrote to it at the same
//! time (plus one per compaction), however many short runs write to it.
//! Backends without locks never take a log up: each handle starts its own.

use super::backend::{Appender, Backend};
use super::index::logs;
use super::layout;
use super::line::{check_line, LineView};
use super::StoreError;

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

/// The log of a writer that is gone, taken for this handle, with its id;
/// `None` if every log has a live writer (or the backend cannot tell).
pub fn claim_dead(backend: &dyn Backend) -> Result<Option<(String, Log)>, StoreError> {
    let names: Vec<String> = logs(backend)?.into_iter().map(|log| log.name).collect();
    let Some(appender) = backend.take_up_log(&names)? else {
        return Ok(None);
    };
    let (name, _) = appender.end();
    let id = layout::log_writer(&name).unwrap_or(&name).to_owned();
    let log = resume(backend, appender)?;
    Ok(Some((id, log)))
}

/// Starts writer `id`'s log (locked before any other handle can see it,
/// in a folder).
pub fn create(backend: &dyn Backend, id: &str) -> Result<Log, StoreError> {
    Ok(Log {
        appender: backend.append_to(&layout::log_name(id))?,
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
