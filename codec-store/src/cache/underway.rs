//! Writes under way, and the seals that wait for them.
//!
//! A write stores its data (through its handler, in the segment its
//! handle appends to), then its line. Handlers of different threads run
//! at once: none holds the writer's lock while user code runs, only for
//! the moments it reads the writer's state or appends a line.
//!
//! A seal between a write's data and its line would leave the line in the
//! next segment and the data in a sealed one, which a compaction (of this
//! process or another) may retire before the line is written: an entry
//! acknowledged with its data gone. So a seal waits for the writes under
//! way, and a write that starts while a seal is asked for waits for the
//! seal (a stream of writes never keeps a segment from being sealed).
//!
//! The writes under way have a lock of their own, apart from the
//! writer's: a write takes it as it starts and ends, and the writer's
//! only to append its lines, so that it does not wait, as it ends, for
//! another thread's append (the bounds' removals) that took the writer's
//! lock as it let it go. A seal takes the writer's lock, then this one.

use std::cell::Cell;
use std::thread::ThreadId;

use parking_lot::MutexGuard;

use crate::cache::writers::{LogWriter, Writer};
use crate::error::StoreError;

/// The writes of a handle between their data and their line.
#[derive(Default)]
pub(crate) struct Underway {
    /// The threads with a write under way, and how deep in writes each is
    /// (a batch of puts is one write; each put in it is one more level).
    threads: Vec<(ThreadId, usize)>,
    /// A seal is asked for: the last write under way makes it as it ends,
    /// and writes that start meanwhile wait for it.
    seal_asked: bool,
    /// How many asked-for seals were made (or failed), for those waiting
    /// for one.
    seals: u64,
}

impl Underway {
    /// Whether no write is under way: a seal can be made now.
    pub(crate) fn is_idle(&self) -> bool {
        self.threads.is_empty()
    }

    /// Asks for a seal once the writes under way end.
    pub(crate) fn ask_seal(&mut self) {
        self.seal_asked = true;
    }

    fn depth_of(&mut self, thread: ThreadId) -> Option<&mut usize> {
        (self.threads.iter_mut())
            .find(|(t, _)| *t == thread)
            .map(|(_, depth)| depth)
    }
}

thread_local! {
    /// How deep in writes of any handle this thread is.
    static DEPTH: Cell<usize> = const { Cell::new(0) };
}

/// Whether this thread has a write under way, of any handle: one that
/// waits now holds off the seals asked meanwhile (a compaction's first
/// step), so it waits once it ended
/// ([`upkeep`](crate::cache::upkeep)'s stall).
pub(crate) fn in_write() -> bool {
    DEPTH.get() > 0
}

/// Ends a write of `thread` when dropped, even by a panic.
struct Ending<'s> {
    writer: &'s LogWriter,
    thread: ThreadId,
}

impl Drop for Ending<'_> {
    fn drop(&mut self) {
        DEPTH.set(DEPTH.get().saturating_sub(1));
        let mut underway = self.writer.underway.lock();
        let Some(i) = underway.threads.iter().position(|(t, _)| *t == self.thread) else {
            return;
        };
        underway.threads[i].1 -= 1;
        if underway.threads[i].1 > 0 {
            return;
        }
        underway.threads.swap_remove(i);
        if underway.threads.is_empty() && underway.seal_asked {
            // The writer's lock first: no write starts meanwhile (a seal
            // is asked), and a seal made meanwhile is seen.
            drop(underway);
            let mut writer = self.writer.lock();
            let mut underway = self.writer.underway.lock();
            if underway.is_idle() && underway.seal_asked {
                self.writer.seal_asked(&mut writer, &mut underway);
            }
        }
    }
}

impl LogWriter {
    /// Runs `write`, which stores an entry's data and then its line (or a
    /// batch of them), as one write of this handle: no seal comes between
    /// the two. Writes nest (a put inside a batch, a sub-value inside a
    /// put): only the outermost one counts.
    pub(crate) fn one_write<R>(
        &self,
        write: impl FnOnce() -> Result<R, StoreError>,
    ) -> Result<R, StoreError> {
        let thread = std::thread::current().id();
        if !in_write() {
            crate::cache::upkeep::keep_pace(self);
        }
        {
            let mut underway = self.underway.lock();
            match underway.depth_of(thread) {
                Some(depth) => *depth += 1,
                None => {
                    while underway.seal_asked {
                        self.sealed.wait(&mut underway);
                    }
                    underway.threads.push((thread, 1));
                }
            }
        }
        DEPTH.set(DEPTH.get() + 1);
        let ending = Ending {
            writer: self,
            thread,
        };
        let written = write();
        drop(ending);
        if !in_write() {
            crate::cache::upkeep::stall_after_write(self);
        }
        written
    }

    /// Seals this handle's segment ([`seal`](Self::seal)) once no write is
    /// under way: at once if none is, else after the last one, which
    /// makes the seal. On the thread of a write under way (a compaction
    /// asked for by a handler's dump), the segment stays as it is: it
    /// holds the data of a line not written yet.
    pub(crate) fn seal_now(&self) -> Result<(), StoreError> {
        let mut writer = self.lock();
        let mut underway = self.underway.lock();
        if underway.is_idle() {
            let sealed = self.seal(&mut writer);
            // One asked as the last write ended, which has yet to take
            // the writer's lock: this one is it.
            if underway.seal_asked {
                underway.seal_asked = false;
                underway.seals += 1;
                self.sealed.notify_all();
            }
            return sealed;
        }
        let thread = std::thread::current().id();
        if underway.depth_of(thread).is_some() {
            return Ok(());
        }
        underway.seal_asked = true;
        let seals = underway.seals;
        // The writes under way need the writer's lock for their lines.
        drop(writer);
        while underway.seals == seals {
            self.sealed.wait(&mut underway);
        }
        Ok(())
    }

    /// Makes the seal asked for, now that no write is under way, and wakes
    /// those waiting for it. A seal that fails is a warning (the lines of
    /// the writes that asked for it are written): the next write to a full
    /// segment asks again.
    pub(crate) fn seal_asked(&self, writer: &mut Writer, underway: &mut MutexGuard<'_, Underway>) {
        if let Err(e) = self.seal(writer) {
            self.warnings.lock().push(format!(
                "{}: sealing this handle's segment: {e}",
                self.backend.location()
            ));
        }
        underway.seal_asked = false;
        underway.seals += 1;
        self.sealed.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc;
    use std::sync::Arc;
    use std::time::Duration;

    use crate::{Cache, CacheOptions};

    /// A write starts and ends without the writer's lock, which it takes
    /// only for its lines: it does not wait, as it ends, for another
    /// thread's append that took that lock as it let it go.
    #[test]
    fn a_write_starts_and_ends_while_another_thread_holds_the_writer_s_lock() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Arc::new(Cache::open(dir.path()).unwrap());
        let held = cache.writer.lock();
        let (tx, rx) = mpsc::channel();
        let writer = cache.clone();
        let write = std::thread::spawn(move || {
            writer.writer.one_write(|| Ok(())).unwrap();
            tx.send(()).unwrap();
        });
        let ended = rx.recv_timeout(Duration::from_secs(30));
        drop(held);
        write.join().unwrap();
        assert!(ended.is_ok(), "the write waited for the writer's lock");
    }

    /// A seal made with no write under way while one is asked (by the
    /// last write, as it ended, before it took the writer's lock again)
    /// is that one: it is not made twice, and the writes waiting for it go
    /// on.
    #[test]
    fn a_seal_made_while_one_is_asked_is_that_one() {
        let dir = tempfile::tempdir().unwrap();
        let options = CacheOptions::default().segment_bytes(0);
        let cache = Cache::open_with(dir.path(), options).unwrap();
        cache.put("before", &1u32).unwrap();
        cache.writer.underway.lock().ask_seal();
        cache.writer.seal_now().unwrap();
        assert!(!cache.writer.underway.lock().seal_asked);
        assert_eq!(cache.writer.underway.lock().seals, 1);
        assert_eq!(cache.writer.lock().segment, 1);
        cache.put("after", &2u32).unwrap();
        assert_eq!(cache.get::<u32>("after").unwrap(), Some(2));
    }

    /// A seal asked while writes are under way is made by the last one as
    /// it ends, and the seal's caller waits for it; writes go on after.
    #[test]
    fn a_seal_asked_under_writes_is_made_by_the_last_to_end() {
        let dir = tempfile::tempdir().unwrap();
        let options = CacheOptions::default().segment_bytes(0);
        let cache = Arc::new(Cache::open_with(dir.path(), options).unwrap());
        cache.put("before", &1u32).unwrap();
        let (started, start) = mpsc::channel();
        let (go, wait) = mpsc::channel::<()>();
        let writer = cache.clone();
        let write = std::thread::spawn(move || {
            writer
                .writer
                .one_write(|| {
                    started.send(()).unwrap();
                    wait.recv().unwrap();
                    writer.put("during", &2u32)
                })
                .unwrap();
        });
        start.recv().unwrap();
        let sealer = cache.clone();
        let seal = std::thread::spawn(move || sealer.writer.seal_now().unwrap());
        while !cache.writer.underway.lock().seal_asked {
            std::thread::yield_now();
        }
        assert_eq!(cache.writer.lock().segment, 0);
        go.send(()).unwrap();
        write.join().unwrap();
        seal.join().unwrap();
        assert_eq!(cache.writer.lock().segment, 1);
        cache.put("after", &3u32).unwrap();
        let reopened = Cache::open(dir.path()).unwrap();
        for (key, value) in [("before", 1u32), ("during", 2), ("after", 3)] {
            assert_eq!(reopened.get::<u32>(key).unwrap(), Some(value));
        }
    }
}
