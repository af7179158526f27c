//! The checkpointer: a handle's builds of checkpoints. One now
//! ([`Admin::checkpoint`](crate::Admin::checkpoint)), one in the
//! background once the logs no checkpoint covers pass
//! [`CacheOptions::checkpoint_bytes`](crate::CacheOptions::checkpoint_bytes),
//! one as the handle closes if a write asked for it while another ran; and
//! the taking up of what a build made into the handle's index.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use parking_lot::{Mutex, RwLock};

use crate::backend::{Appends, Backend};
use crate::cache::threads::{lower_priority, Threads, Turns, Workers};
use crate::error::StoreError;
use crate::index::checkpoint::objects::Sources;
use crate::index::checkpoint::{build, Built};
use crate::index::Index;

/// A handle's checkpoints: its builds, and the one running.
pub(crate) struct Checkpointer {
    backend: Arc<dyn Backend>,
    /// The bytes of logs no checkpoint covers that start a build (0: only
    /// when asked).
    threshold: u64,
    /// A build runs.
    running: Arc<AtomicBool>,
    /// A build ended and its thread did not take up its checkpoint (a
    /// read failed): take it up.
    ended: Arc<AtomicBool>,
    /// A write asked for a build while one ran.
    wanted: AtomicBool,
    /// The build that ended read the logs whole (the checkpoint was damaged).
    rebuilt: Arc<AtomicBool>,
    /// The handle's warnings: what builds had to say (a damaged
    /// checkpoint rebuilt, a build that failed).
    warnings: Arc<Mutex<Vec<String>>>,
    thread: Threads,
    /// The turns the handle's background threads take.
    turns: Arc<Turns>,
}

impl Checkpointer {
    pub(crate) fn new(
        backend: Arc<dyn Backend>,
        threshold: u64,
        warnings: Arc<Mutex<Vec<String>>>,
        turns: Arc<Turns>,
    ) -> Checkpointer {
        Checkpointer {
            backend,
            threshold,
            running: Default::default(),
            ended: Default::default(),
            wanted: Default::default(),
            rebuilt: Default::default(),
            warnings,
            thread: Default::default(),
            turns,
        }
    }

    /// Takes up into `index` the checkpoint a background build made, if
    /// one ended since and its thread did not.
    #[inline]
    pub(crate) fn take_up_ended(&self, index: &RwLock<Index>) {
        // Read first: a swap would write the flag's cache line on every
        // get, which threads getting at once would pass back and forth.
        if self.ended.load(Ordering::Relaxed) && self.ended.swap(false, Ordering::Relaxed) {
            self.take_up(index);
        }
    }

    fn take_up(&self, index: &RwLock<Index>) {
        take_up(&self.backend, index, &self.rebuilt);
    }

    /// Builds a checkpoint now, waiting for builds of other handles, and
    /// takes it up into `index`.
    pub(crate) fn build_now(&self, index: &RwLock<Index>) -> Result<(), StoreError> {
        self.join(index);
        let full = index.read().is_distrusted();
        let known = index.read().known_segments();
        let built = build(&self.backend, true, full, Sources::Listed(&known))?;
        self.record(built);
        let mut index = index.write();
        if full {
            index.trust_again();
        }
        index.adopt(&self.backend)
    }

    /// After a write that left `uncovered` bytes of logs no checkpoint
    /// covers: a build in the background past the threshold, unless one
    /// runs (then a later write, or the close, builds it). Whether it
    /// started one.
    pub(crate) fn after_write(&self, index: &Arc<RwLock<Index>>, uncovered: u64) -> bool {
        if self.threshold == 0 || uncovered < self.threshold {
            return false;
        }
        if self.running.swap(true, Ordering::AcqRel) {
            self.wanted.store(true, Ordering::Relaxed);
            return false;
        }
        self.wanted.store(false, Ordering::Relaxed);
        let (full, known) = {
            let index = index.read();
            // What this handle wrote or read: other handles build from theirs.
            (index.is_distrusted(), index.known_segments())
        };
        let (backend, running, ended) = (
            self.backend.clone(),
            self.running.clone(),
            self.ended.clone(),
        );
        let (rebuilt, warnings) = (self.rebuilt.clone(), self.warnings.clone());
        let (index, turns) = (index.clone(), self.turns.clone());
        let spawned = BUILDS.spawn(move || {
            lower_priority(BUILD_NICENESS);
            let _turn = turns.take();
            match build(&backend, false, full, Sources::Known(&known)) {
                Ok(Some(built)) => {
                    rebuilt.store(full, Ordering::Relaxed);
                    push_warnings(&warnings, built.warnings);
                }
                Ok(None) => {}
                Err(e) => push_warnings(&warnings, vec![format!("a checkpoint failed: {e}")]),
            }
            // Taken up here, not by the next write: reading the
            // tables and checking the logs they cover, and freeing
            // what they replace, is not the work of a put. One that
            // failed is for the handle's next write.
            if !take_up(&backend, &index, &rebuilt) {
                ended.store(true, Ordering::Release);
            }
            running.store(false, Ordering::Release);
        });
        match spawned {
            Ok(handle) => {
                self.thread.add(handle);
                true
            }
            Err(_) => {
                self.running.store(false, Ordering::Release);
                false
            }
        }
    }

    /// As the handle closes: the build a write asked for while one ran
    /// (and no write came after it to start one), here, so that a writer
    /// leaves what it wrote covered and the next open does not read it
    /// again. A handle whose writes asked for none builds none.
    pub(crate) fn close(&self, index: &RwLock<Index>) {
        self.join(index);
        if !self.wanted.swap(false, Ordering::Relaxed) {
            return;
        }
        let at_least = match self.backend.appends() {
            Appends::InPlace => 0,
            Appends::Segments => crate::index::checkpoint::SEGMENT_BYTES,
        };
        if self.threshold == 0 || index.read().uncovered(at_least) < self.threshold {
            return;
        }
        let full = index.read().is_distrusted();
        let known = index.read().known_segments();
        match build(&self.backend, false, full, Sources::Known(&known)) {
            Ok(built) => self.record(built),
            Err(e) => log::debug!(target: "codec::store", "a checkpoint as the handle closed: {e}"),
        }
    }

    /// Waits for the background build, if one runs, and takes up what it
    /// made.
    pub(crate) fn join(&self, index: &RwLock<Index>) {
        self.join_thread();
        if self.ended.swap(false, Ordering::Relaxed) {
            self.take_up(index);
        }
    }

    fn join_thread(&self) {
        self.thread.join();
    }

    fn record(&self, built: Option<Built>) {
        if let Some(built) = built {
            push_warnings(&self.warnings, built.warnings);
        }
    }
}

/// The threads of the builds in the background, at a lower priority.
static BUILDS: Workers = Workers::new("codec-checkpoint");

/// The niceness of a build in the background: below the passes and the
/// compactions of the bounds
/// ([`UPKEEP_NICENESS`](crate::cache::threads::UPKEEP_NICENESS)), which a
/// writer that outruns them waits for.
const BUILD_NICENESS: i32 = 10;

/// Takes up into `index` the checkpoint a build made (trusting the
/// checkpoint again if the build read the logs whole, `rebuilt`), reading
/// it without the index's lock ([`Index::adopt_aside`]). Whether it did.
fn take_up(backend: &Arc<dyn Backend>, index: &RwLock<Index>, rebuilt: &AtomicBool) -> bool {
    if rebuilt.swap(false, Ordering::Relaxed) {
        index.write().trust_again();
    }
    // A read that fails leaves the index as it was: the next refresh
    // takes the checkpoint up.
    match Index::adopt_aside(index, backend) {
        Ok(()) => true,
        Err(e) => {
            log::debug!(target: "codec::store", "the checkpoint built is not taken up yet: {e}");
            false
        }
    }
}

fn push_warnings(to: &Mutex<Vec<String>>, warnings: Vec<String>) {
    for w in &warnings {
        log::warn!("{w}");
    }
    to.lock().extend(warnings);
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::Ordering;

    use crate::{Cache, CacheOptions};

    /// A checkpoint built in the background is taken up by the build's
    /// thread, not by the handle's next write (reading its tables,
    /// checking the logs they cover and freeing what they replace is not
    /// the work of a put): once the build ended, the index reads it with
    /// no write or refresh after.
    #[test]
    fn a_checkpoint_built_in_the_background_is_taken_up_by_its_thread() {
        let dir = tempfile::tempdir().unwrap();
        let options = CacheOptions::default().checkpoint_bytes(64 << 10);
        let cache = Cache::open_with(dir.path(), options).unwrap();
        let value = "v".repeat(1000);
        let mut i = 0;
        while cache.index.read().uncovered(0) < 64 << 10 {
            cache.put(&format!("k{i}"), &value).unwrap();
            i += 1;
        }
        // The write past the threshold started a build.
        cache.put("last", &value).unwrap();
        cache.checkpointer.join_thread();
        assert!(!cache.checkpointer.ended.load(Ordering::Acquire));
        assert!(
            cache.index.read().uncovered(0) < 64 << 10,
            "the checkpoint waits for the next write"
        );
        assert_eq!(cache.get::<String>("k0").unwrap(), Some(value));
    }

    /// A build in the background waits for its turn, as a pass of the
    /// bounds and a compaction do.
    #[test]
    fn a_build_in_the_background_waits_for_its_turn() {
        let dir = tempfile::tempdir().unwrap();
        let options = CacheOptions::default().checkpoint_bytes(64 << 10);
        let cache = Cache::open_with(dir.path(), options).unwrap();
        let value = "v".repeat(1000);
        let turns = cache.turns.take_every();
        let mut i = 0;
        while !cache.checkpointer.running.load(Ordering::Acquire) {
            cache.put(&format!("k{i}"), &value).unwrap();
            i += 1;
        }
        // Never wrong on a busy machine: a build not yet run is under way
        // too.
        std::thread::sleep(std::time::Duration::from_millis(50));
        assert!(
            cache.checkpointer.running.load(Ordering::Acquire),
            "the build ran"
        );
        drop(turns);
        cache.checkpointer.join_thread();
        assert!(cache.index.read().uncovered(0) < 64 << 10);
    }
}
