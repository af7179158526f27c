//! A handle's index as its threads share it. A write records its lines
//! in the index as it appends them; where another thread holds the index
//! for long (a refresh, a checkpoint taken up, the upkeep's reading of
//! the store), the write leaves its lines for the next thread that takes
//! the index, rather than wait: a put's latency is its own work, not the
//! upkeep's. Every reading applies the lines left first, so that a
//! reader reads every write that ended before it.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use parking_lot::{Mutex, RwLock, RwLockReadGuard, RwLockWriteGuard};

use crate::index::{Index, Stamp};

/// A write's lines, as the index records them.
pub(crate) struct Written {
    /// The log appended (its writer's id as the index names it).
    pub(crate) writer: Box<str>,
    /// Where the log ends after the append.
    pub(crate) end: u64,
    /// Where logs are segments: the segment written, whole.
    pub(crate) segment: Option<(String, Arc<[u8]>)>,
    /// What makes a log's bytes uncovered by a checkpoint count.
    pub(crate) at_least: u64,
    pub(crate) lines: Vec<WrittenLine>,
}

/// One line of a [`Written`].
pub(crate) struct WrittenLine {
    pub(crate) key: Box<str>,
    pub(crate) time: u64,
    pub(crate) seq: u64,
    /// Its offset in the log.
    pub(crate) at: u64,
    /// The text kept in memory (an entry with files of a handler's).
    pub(crate) text: Option<Box<str>>,
}

/// The index of a handle and the writes left for it.
#[derive(Default)]
pub(crate) struct SharedIndex {
    index: RwLock<Index>,
    /// Writes that found the index held, in order: the next thread that
    /// takes it records them.
    left: Mutex<Vec<Written>>,
    /// `left` is not empty.
    any_left: AtomicBool,
    /// The bytes of logs no checkpoint covers, as the last write that
    /// recorded its lines found them.
    uncovered: AtomicU64,
}

impl SharedIndex {
    /// The index to read, with every write that ended recorded.
    pub(crate) fn read(&self) -> RwLockReadGuard<'_, Index> {
        if self.any_left.load(Ordering::Acquire) {
            let mut index = self.index.write();
            self.record_left(&mut index);
            return RwLockWriteGuard::downgrade(index);
        }
        self.index.read()
    }

    /// The index to change, with every write that ended recorded; the
    /// writes that find it held meanwhile are recorded as it is let go,
    /// by this thread.
    pub(crate) fn write(&self) -> IndexWrite<'_> {
        let mut index = self.index.write();
        self.record_left(&mut index);
        IndexWrite {
            shared: self,
            index,
        }
    }

    /// Records `written` in the index, or leaves it for the next thread
    /// that takes the index if another holds it: a wait, however short,
    /// gives the processor away (parks or yields the thread), and on a
    /// busy machine gets it back milliseconds later. Returns the bytes of logs no checkpoint covers
    /// (as the last write that recorded its lines found them, if these are
    /// left).
    pub(crate) fn record(&self, written: Written) -> u64 {
        match self.index.try_write() {
            Some(mut index) => {
                self.record_left(&mut index);
                let uncovered = record(&mut index, written);
                self.uncovered.store(uncovered, Ordering::Relaxed);
                uncovered
            }
            None => {
                let mut left = self.left.lock();
                left.push(written);
                self.any_left.store(true, Ordering::Release);
                self.uncovered.load(Ordering::Relaxed)
            }
        }
    }

    fn record_left(&self, index: &mut Index) {
        if !self.any_left.load(Ordering::Acquire) {
            return;
        }
        let left = {
            let mut left = self.left.lock();
            self.any_left.store(false, Ordering::Release);
            std::mem::take(&mut *left)
        };
        for written in left {
            record(index, written);
        }
    }
}

/// The index held to change ([`SharedIndex::write`]).
pub(crate) struct IndexWrite<'a> {
    shared: &'a SharedIndex,
    index: RwLockWriteGuard<'a, Index>,
}

impl std::ops::Deref for IndexWrite<'_> {
    type Target = Index;

    fn deref(&self) -> &Index {
        &self.index
    }
}

impl std::ops::DerefMut for IndexWrite<'_> {
    fn deref_mut(&mut self) -> &mut Index {
        &mut self.index
    }
}

impl Drop for IndexWrite<'_> {
    fn drop(&mut self) {
        self.shared.record_left(&mut self.index);
    }
}

/// Records the lines of `written` in `index`; returns the bytes of logs
/// no checkpoint covers then.
fn record(index: &mut Index, written: Written) -> u64 {
    let writer = index.writer(&written.writer);
    for line in written.lines {
        let stamp = Stamp {
            time: line.time,
            writer,
            seq: line.seq,
        };
        let text = line.text.as_deref().map(|text| (text, Default::default()));
        index.apply(&line.key, stamp, line.at, text);
    }
    index.wrote_to(writer, written.end);
    if let Some((name, bytes)) = written.segment {
        index.wrote_segment(name, bytes);
    }
    index.uncovered(written.at_least)
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc;
    use std::time::Duration;

    use super::{SharedIndex, Written, WrittenLine};

    fn written(key: &str, time: u64) -> Written {
        Written {
            writer: "w1".into(),
            end: time * 10,
            segment: None,
            at_least: 0,
            lines: vec![WrittenLine {
                key: key.into(),
                time,
                seq: time,
                at: time * 10 - 10,
                text: None,
            }],
        }
    }

    fn has(shared: &SharedIndex, key: &str) -> bool {
        matches!(shared.read().get(key), Ok(Some(_)))
    }

    #[test]
    fn a_write_that_finds_the_index_held_leaves_its_lines_and_does_not_wait() {
        let shared = std::sync::Arc::new(SharedIndex::default());
        let held = shared.write();
        let (done, ended) = mpsc::channel();
        let writer = {
            let shared = shared.clone();
            std::thread::spawn(move || {
                shared.record(written("k", 1));
                done.send(()).unwrap();
            })
        };
        // The write ends while the index is held.
        let waited = ended.recv_timeout(Duration::from_secs(30));
        assert!(waited.is_ok(), "the write waited for the index");
        let _ = writer.join();
        assert!(!held.get("k").is_ok_and(|found| found.is_some()));
        // The holder records it as it lets the index go: none left.
        drop(held);
        assert!(!shared.any_left.load(std::sync::atomic::Ordering::Acquire));
        assert!(has(&shared, "k"));
    }

    #[test]
    fn a_read_records_the_lines_left_first() {
        let shared = SharedIndex::default();
        {
            // Held by this thread: the write leaves its lines.
            let _held = shared.index.write();
            shared.record(written("a", 1));
            shared.record(written("b", 2));
        }
        assert!(shared.any_left.load(std::sync::atomic::Ordering::Acquire));
        assert!(has(&shared, "a") && has(&shared, "b"));
        // And a write that finds it free records them before its own.
        {
            let _held = shared.index.write();
            shared.record(written("c", 3));
        }
        shared.record(written("d", 4));
        let index = shared.index.read();
        assert!(["a", "b", "c", "d"]
            .iter()
            .all(|k| index.get(k).unwrap().is_some()));
        assert_eq!(index.uncovered(0), 40);
    }
}
