//! Writers' logs: each live handle holds an exclusive lock on its own, so a
//! log nobody holds belongs to a handle that is gone. A new handle takes up
//! such a log (and its shared data file) instead of starting one more: a
//! folder has at most as many logs as handles ever wrote to it at the same
//! time (plus one per compaction), however many short runs write to it.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use super::index::index_files;
use super::layout;
use super::line::{check_line, LineView};
use super::StoreError;

/// A log this handle appends to, locked.
pub struct Log {
    pub file: File,
    /// Its length: where the next line goes.
    pub end: u64,
    /// The time of its last line.
    pub last_time: u64,
    /// The sequence number of its next line.
    pub next_seq: u64,
    /// It ends in a partial line.
    pub torn: bool,
}

/// The log of a writer that is gone, locked for this handle, with its id;
/// `None` if every log has a live writer.
pub fn claim_dead(dir: &Path) -> Result<Option<(String, Log)>, StoreError> {
    for (id, path) in index_files(dir)? {
        let Ok(file) = OpenOptions::new().read(true).append(true).open(&path) else {
            continue; // read-only, or deleted meanwhile
        };
        if file.try_lock().is_err() {
            continue; // its writer lives (or locks are not to be had)
        }
        // Deleted (by a compaction) between the listing and the lock?
        if !path.exists() {
            continue;
        }
        let log = resume(file).map_err(|e| StoreError::io(&path, e))?;
        return Ok(Some((id, log)));
    }
    Ok(None)
}

/// Creates writer `id`'s log, locked before any other handle can see it.
pub fn create(dir: &Path, id: &str) -> Result<Log, StoreError> {
    let path = dir.join(layout::log_name(id));
    let new = dir.join(format!("{id}{}", layout::NEW_LOG_SUFFIX));
    let file = OpenOptions::new()
        .read(true)
        .append(true)
        .create(true)
        .truncate(false)
        .open(&new)
        .map_err(|e| StoreError::io(&new, e))?;
    // Where there are no locks, go on: the log is then never taken up.
    let _ = file.try_lock();
    std::fs::rename(&new, &path).map_err(|e| StoreError::io(&path, e))?;
    Ok(Log {
        file,
        end: 0,
        last_time: 0,
        next_seq: 0,
        torn: false,
    })
}

/// Where a dead writer's log left off: its length, its last line's time
/// and sequence, whether it ends in a partial line.
fn resume(mut file: File) -> std::io::Result<Log> {
    let end = file.metadata()?.len();
    // The last lines are in the last 64 KiB, unless a line is longer: then
    // its time is unknown, and the clock (later than any line written)
    // serves.
    let from = end.saturating_sub(64 * 1024);
    file.seek(SeekFrom::Start(from))?;
    let mut tail = Vec::new();
    (&mut file).take(end - from).read_to_end(&mut tail)?;
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
        file,
        end,
        last_time,
        next_seq,
        torn,
    })
}
