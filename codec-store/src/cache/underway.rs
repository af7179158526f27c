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

use std::cell::Cell;
use std::thread::ThreadId;

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
        let mut writer = self.writer.lock();
        let underway = &mut writer.underway;
        let Some(i) = underway.threads.iter().position(|(t, _)| *t == self.thread) else {
            return;
        };
        underway.threads[i].1 -= 1;
        if underway.threads[i].1 > 0 {
            return;
        }
        underway.threads.swap_remove(i);
        if underway.threads.is_empty() && underway.seal_asked {
            self.writer.seal_asked(&mut writer);
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
            let mut writer = self.lock();
            match writer.underway.depth_of(thread) {
                Some(depth) => *depth += 1,
                None => {
                    while writer.underway.seal_asked {
                        self.sealed.wait(&mut writer);
                    }
                    writer.underway.threads.push((thread, 1));
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
        if writer.underway.is_idle() {
            return self.seal(&mut writer);
        }
        let thread = std::thread::current().id();
        if writer.underway.depth_of(thread).is_some() {
            return Ok(());
        }
        writer.underway.seal_asked = true;
        let seals = writer.underway.seals;
        while writer.underway.seals == seals {
            self.sealed.wait(&mut writer);
        }
        Ok(())
    }

    /// Makes the seal asked for, now that no write is under way, and wakes
    /// those waiting for it. A seal that fails is a warning (the lines of
    /// the writes that asked for it are written): the next write to a full
    /// segment asks again.
    pub(crate) fn seal_asked(&self, writer: &mut Writer) {
        if let Err(e) = self.seal(writer) {
            self.warnings.lock().push(format!(
                "{}: sealing this handle's segment: {e}",
                self.backend.location()
            ));
        }
        writer.underway.seal_asked = false;
        writer.underway.seals += 1;
        self.sealed.notify_all();
    }
}
