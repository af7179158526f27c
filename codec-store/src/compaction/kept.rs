//! The newest line of each key in the segments a compaction keeps (the
//! active ones, and the sealed ones the store's own compaction leaves):
//! a key with a line in a segment kept, dead by a line the compaction
//! retires, is removed again among its copies, or it would come back.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use foldhash::fast::RandomState as Fast;

use crate::backend::Backend;
use crate::error::StoreError;
use crate::index::line::{check_line, LineView};
use crate::index::logs::LogObject;
use crate::index::read_complete_lines;
use crate::index::table::key_hash;

use super::sealed::file_names;

/// The newest line of a key in the segments kept.
#[derive(Clone, Copy)]
pub(super) struct Kept {
    pub(super) time: u64,
    seq: u64,
}

/// The newest line of each key, by key (foldhash, as the index's maps:
/// every line's key is hashed here).
pub(super) type Newest = HashMap<String, Kept, Fast>;

/// The strings longest of those [`Names`] records: a data file's name is
/// far shorter (the payloads in base64 are left out).
pub(super) const NAME_MAX: usize = 256;

/// What the lines of a log may name as a data file ([`file_names`]), by
/// the hash of each name ([`key_hash`]), as far as the log was read: a
/// compaction reads the lines of the checkpoint in a log that names none
/// of the files it retires only if they come after.
#[derive(Default)]
pub(super) struct Names {
    /// The bytes of the log read.
    pub(super) read: u64,
    hashes: HashSet<u64, Fast>,
}

impl Names {
    /// Whether a line of the bytes read may name one of `names`.
    pub(super) fn may_name_any<'a>(&self, mut names: impl Iterator<Item = &'a str>) -> bool {
        names.any(|name| name.len() > NAME_MAX || self.hashes.contains(&key_hash(name)))
    }
}

/// The newest lines of the segments kept and what their lines may name.
pub(super) struct KeptLines {
    pub(super) newest: Newest,
    /// By the writer id of each log (a segment's own).
    pub(super) names: HashMap<String, Arc<Names>>,
}

/// The newest line of each key in the sealed segments a handle's
/// compactions kept, by segment: a sealed segment never changes, and the
/// store's own compaction keeps the ones mostly live, which the next ones
/// would read again each time. Its own compactions read only the segments
/// sealed since.
#[derive(Default)]
pub(crate) struct SealedLines {
    segments: parking_lot::Mutex<HashMap<String, SegmentLines>>,
}

/// The newest line of each key in one sealed segment of `size` bytes,
/// and what its lines may name.
struct SegmentLines {
    size: u64,
    newest: Arc<Newest>,
    names: Arc<Names>,
}

/// The newest line of each key in the logs `active` and `sealed`, as far
/// as they are written, and what the lines of each may name; those of
/// `sealed` from `known` where a compaction read them before (and kept
/// there for the next, the others forgotten).
pub(super) fn newest_lines(
    backend: &dyn Backend,
    active: &[LogObject],
    sealed: &[LogObject],
    known: Option<&SealedLines>,
) -> Result<KeptLines, StoreError> {
    let mut kept = KeptLines {
        newest: Newest::default(),
        names: HashMap::new(),
    };
    // The logs read now: every one, or the active ones where the sealed
    // ones were read before.
    let read_now = match known {
        None => active.iter().chain(sealed),
        Some(_) => active.iter().chain(&[]),
    };
    for log in read_now {
        let (lines, names) = read_newest(backend, log)?;
        merge(&mut kept.newest, &lines);
        kept.names.insert(log.writer.clone(), Arc::new(names));
    }
    let Some(known) = known else {
        return Ok(kept);
    };
    let mut known = known.segments.lock();
    let mut segments: HashMap<String, SegmentLines> = HashMap::with_capacity(sealed.len());
    for log in sealed {
        // A segment of a writer gone, kept, may be taken up and grow
        // again: its lines are read again once its size changed.
        let lines = match known.remove(&log.name) {
            Some(lines) if lines.size == log.size => lines,
            _ => {
                let (newest, names) = read_newest(backend, log)?;
                SegmentLines {
                    size: log.size,
                    newest: Arc::new(newest),
                    names: Arc::new(names),
                }
            }
        };
        merge(&mut kept.newest, &lines.newest);
        kept.names.insert(log.writer.clone(), lines.names.clone());
        segments.insert(log.name.clone(), lines);
    }
    *known = segments;
    Ok(kept)
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

/// The newest line of each key in `log`, as far as it is written, and
/// what its lines may name.
fn read_newest(backend: &dyn Backend, log: &LogObject) -> Result<(Newest, Names), StoreError> {
    let mut newest = Newest::default();
    let mut names = Names::default();
    let Some(bytes) = read_complete_lines(backend, &log.name, 0)? else {
        return Ok((newest, names));
    };
    names.read = bytes.len() as u64;
    for raw in bytes.split(|&b| b == b'\n') {
        // Every line's, damaged or not: what the checkpoint points at
        // is checked as it is read.
        for name in file_names(raw).filter(|name| name.len() <= NAME_MAX) {
            names.hashes.insert(key_hash(name));
        }
        // A damaged line is skipped, as readers skip it.
        let Some(line) = check_line(raw).ok().and_then(|t| LineView::parse(t).ok()) else {
            continue;
        };
        let kept = Kept {
            time: line.time,
            seq: line.seq,
        };
        keep_newer(&mut newest, line.key, kept);
    }
    Ok((newest, names))
}
