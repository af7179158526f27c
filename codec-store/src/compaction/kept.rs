//! The newest line of each key in the segments a compaction keeps (the
//! active ones, and the sealed ones the store's own compaction leaves):
//! a key a segment kept puts, dead by a line the compaction retires, is
//! removed again among its copies, or it would come back.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;

use foldhash::fast::RandomState as Fast;

use crate::backend::Backend;
use crate::error::StoreError;
use crate::index::line::{check_line, LineView};
use crate::index::logs::LogObject;
use crate::index::read_complete_lines;

/// The newest line of a key in the segments kept.
#[derive(Clone, Copy)]
pub(super) struct Kept {
    pub(super) time: u64,
    seq: u64,
    /// Whether it puts a value (else it removes the key).
    pub(super) puts: bool,
}

/// The newest line of each key, by key (foldhash, as the index's maps:
/// every line's key is hashed here).
pub(super) type Newest = HashMap<String, Kept, Fast>;

/// The newest line of each key in the sealed segments a handle's
/// compactions kept, by segment: a sealed segment never changes, and the
/// store's own compaction keeps the ones mostly live, which the next ones
/// would read again each time. Its own compactions read only the segments
/// sealed since.
#[derive(Default)]
pub(crate) struct SealedLines {
    segments: parking_lot::Mutex<HashMap<String, SegmentLines>>,
}

/// The newest line of each key in one sealed segment of `size` bytes.
struct SegmentLines {
    size: u64,
    newest: Arc<Newest>,
}

/// The newest line of each key in the logs `active` and `sealed`, as far
/// as they are written; those of `sealed` from `known` where a compaction
/// read them before (and kept there for the next, the others forgotten).
pub(super) fn newest_lines(
    backend: &dyn Backend,
    active: &[LogObject],
    sealed: &[LogObject],
    known: Option<&SealedLines>,
) -> Result<Newest, StoreError> {
    let mut newest = Newest::default();
    let Some(known) = known else {
        for log in active.iter().chain(sealed) {
            merge(&mut newest, &read_newest(backend, log)?);
        }
        return Ok(newest);
    };
    for log in active {
        merge(&mut newest, &read_newest(backend, log)?);
    }
    let mut known = known.segments.lock();
    let mut kept: HashMap<String, SegmentLines> = HashMap::with_capacity(sealed.len());
    for log in sealed {
        // A segment of a writer gone, kept, may be taken up and grow
        // again: its lines are read again once its size changed.
        let lines = match known.remove(&log.name) {
            Some(lines) if lines.size == log.size => lines.newest,
            _ => Arc::new(read_newest(backend, log)?),
        };
        merge(&mut newest, &lines);
        kept.insert(
            log.name.clone(),
            SegmentLines {
                size: log.size,
                newest: lines,
            },
        );
    }
    *known = kept;
    Ok(newest)
}

/// Merges the newest lines `lines` into `newest`.
fn merge(newest: &mut Newest, lines: &Newest) {
    for (key, line) in lines {
        keep_newer(newest, Cow::Borrowed(key), *line);
    }
}

/// Notes `line` of `key` in `newest`, if newer than the one noted.
fn keep_newer(newest: &mut Newest, key: Cow<'_, str>, line: Kept) {
    match newest.get_mut(&*key) {
        Some(known) if (known.time, known.seq) >= (line.time, line.seq) => {}
        Some(known) => *known = line,
        None => {
            newest.insert(key.into_owned(), line);
        }
    }
}

/// The newest line of each key in `log`, as far as it is written.
fn read_newest(backend: &dyn Backend, log: &LogObject) -> Result<Newest, StoreError> {
    let mut newest = Newest::default();
    let Some(bytes) = read_complete_lines(backend, &log.name, 0)? else {
        return Ok(newest);
    };
    for raw in bytes.split(|&b| b == b'\n') {
        // A damaged line is skipped, as readers skip it.
        let Some(line) = check_line(raw).ok().and_then(|t| LineView::parse(t).ok()) else {
            continue;
        };
        let kept = Kept {
            time: line.time,
            seq: line.seq,
            puts: line.handler.is_some(),
        };
        keep_newer(&mut newest, line.key, kept);
    }
    Ok(newest)
}
