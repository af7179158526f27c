//! The threads of a handle's background work (builds of checkpoints,
//! passes of the bounds, compactions): joined as the handle waits for its
//! work or closes, never by a write. A write that starts one while the
//! last is still ending (its flag is down, its thread not gone yet) does
//! not wait for it: on a busy machine, a thread that ended may not run
//! again for milliseconds. They take turns ([`Turns`]), so that one
//! processor at least is left to the handle's writers.

use std::thread::JoinHandle;

use parking_lot::{Condvar, Mutex, MutexGuard};

/// The turns a handle's background threads take to work: as many at once
/// as the machine has processors, but one, and one at least. A writer
/// that waits (for the index's lock, for a pace it keeps) on a machine
/// whose every processor runs the upkeep is back only once one of them
/// is preempted, a millisecond or more later: with a firehose of puts
/// on 2 processors, that was most of the puts over 1 ms.
///
/// A thread takes its turn before anything else and holds nothing it
/// waits for while it waits: none waits for the turn of another.
pub(crate) struct Turns {
    free: Mutex<usize>,
    freed: Condvar,
}

/// The processors this process may run on, as it first asked (each
/// handle, and each compaction's own, would read the cgroup's files
/// again).
pub(crate) fn processors() -> usize {
    static PROCESSORS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *PROCESSORS.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// A turn taken, given back as it is dropped.
pub(crate) struct Turn<'a>(&'a Turns);

impl Turns {
    /// Turns for the processors of this machine, but one.
    pub(crate) fn for_this_machine() -> Turns {
        Turns::new(processors().saturating_sub(1).max(1))
    }

    pub(crate) fn new(at_once: usize) -> Turns {
        Turns {
            free: Mutex::new(at_once),
            freed: Condvar::new(),
        }
    }

    /// Waits for a turn.
    pub(crate) fn take(&self) -> Turn<'_> {
        let mut free: MutexGuard<'_, usize> = self.free.lock();
        while *free == 0 {
            self.freed.wait(&mut free);
        }
        *free -= 1;
        Turn(self)
    }

    /// Every turn, once each is free.
    #[cfg(test)]
    pub(crate) fn take_every(&self) -> Vec<Turn<'_>> {
        let mut free = self.free.lock();
        let taken = std::mem::take(&mut *free);
        drop(free);
        (0..taken).map(|_| Turn(self)).collect()
    }
}

impl Drop for Turn<'_> {
    fn drop(&mut self) {
        *self.0.free.lock() += 1;
        self.0.freed.notify_one();
    }
}

/// Threads of one kind of background work, the last one running or not.
#[derive(Default)]
pub(crate) struct Threads(Mutex<Vec<JoinHandle<()>>>);

impl Threads {
    /// Keeps `thread`, to join later; joins those that are gone.
    pub(crate) fn add(&self, thread: JoinHandle<()>) {
        let mut threads = self.0.lock();
        let (gone, running): (Vec<_>, Vec<_>) = std::mem::take(&mut *threads)
            .into_iter()
            .partition(|t| t.is_finished());
        *threads = running;
        threads.push(thread);
        drop(threads);
        for thread in gone {
            let _ = thread.join();
        }
    }

    /// Waits for every thread kept.
    pub(crate) fn join(&self) {
        let threads = std::mem::take(&mut *self.0.lock());
        for thread in threads {
            let _ = thread.join();
        }
    }
}

#[cfg(test)]
mod tests {

    use std::sync::mpsc;
    use std::time::Duration;

    use super::Threads;

    /// A turn is waited for while every other is taken, and taken once
    /// one is given back.
    #[test]
    fn a_turn_is_waited_for_while_none_is_free() {
        let turns = std::sync::Arc::new(super::Turns::new(1));
        let first = turns.take();
        let (tx, rx) = mpsc::channel();
        let waiting = turns.clone();
        let thread = std::thread::spawn(move || {
            let _turn = waiting.take();
            tx.send(()).unwrap();
        });
        // Never wrong on a busy machine: a thread not yet run sends
        // nothing either.
        assert!(rx.recv_timeout(Duration::from_millis(50)).is_err());
        drop(first);
        rx.recv_timeout(Duration::from_secs(60)).unwrap();
        thread.join().unwrap();
    }

    #[test]
    fn keeping_a_thread_waits_for_none_still_running() {
        let threads = std::sync::Arc::new(Threads::default());
        let (release, released) = mpsc::channel::<()>();
        threads.add(std::thread::spawn(move || {
            let _ = released.recv();
        }));
        let (done, ended) = mpsc::channel();
        let adding = {
            let threads = threads.clone();
            std::thread::spawn(move || {
                threads.add(std::thread::spawn(|| {}));
                done.send(()).unwrap();
            })
        };
        let waited = ended.recv_timeout(Duration::from_secs(30));
        release.send(()).unwrap();
        adding.join().unwrap();
        assert!(
            waited.is_ok(),
            "adding a thread waited for one still running"
        );
        threads.join();
        assert!(threads.0.lock().is_empty());
    }
}
