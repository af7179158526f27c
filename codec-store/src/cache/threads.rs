//! The threads of a handle's background work (builds of checkpoints,
//! passes of the bounds, compactions): joined as the handle waits for its
//! work or closes, never by a write. A write that starts one while the
//! last is still ending (its flag is down, its thread not gone yet) does
//! not wait for it: on a busy machine, a thread that ended may not run
//! again for milliseconds.

use std::thread::JoinHandle;

use parking_lot::Mutex;

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
