//! A handle's upkeep of its store: the admin's checkpoint and its check,
//! and the passes of the bounds in the background, which a write starts
//! beside the checkpointer's builds.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use crate::backend::folder::Folder;
use crate::backend::Backend;
use crate::cache::Cache;
use crate::error::StoreError;
use crate::index::checkpoint::build;

impl Cache {
    /// [`Admin::checkpoint`](crate::Admin::checkpoint).
    pub(crate) fn checkpoint(&self) -> Result<(), StoreError> {
        // One pass of the bounds at a time.
        self.join_bounds_thread();
        self.join_compaction();
        self.checkpointer.join(&self.index);
        self.apply_bounds();
        // The compaction the bounds asked for, if they did, or one an
        // earlier pass asked for while another ran.
        self.compact_asked();
        self.checkpointer.build_now(&self.index)?;
        self.refresh()
    }

    /// [`Admin::rebuild_index`](crate::Admin::rebuild_index).
    pub(crate) fn rebuild_index(dir: impl AsRef<Path>) -> Result<u64, StoreError> {
        let dir = dir.as_ref();
        crate::cache::open::require_cache_folder(dir)?;
        let folder: Arc<dyn Backend> = Arc::new(Folder::new(dir));
        Ok(build(&folder, true, true)?.map_or(0, |b| b.lines))
    }

    /// [`Admin::verify_index`](crate::Admin::verify_index).
    pub(crate) fn verify_index(&self) -> Result<usize, StoreError> {
        self.refresh()?;
        self.index_read()
            .verify_checkpoint()
            .map_err(|damaged| crate::index::checkpoint::damaged(&*self.backend, damaged))
    }

    /// After a write that left `uncovered` bytes of logs no checkpoint
    /// covers: a pass of the bounds if enough writes came since the last
    /// (the writes stalled if they ran far ahead of the upkeep), and a
    /// checkpoint in the background past the threshold, with a pass of the
    /// bounds.
    pub(crate) fn after_write(&self, uncovered: u64) {
        self.checkpointer.take_up_ended(&self.index);
        let c = &self.upkeep;
        if self.bounded() {
            let writes = c.writes_since_bounds.fetch_add(1, Ordering::Relaxed) + 1;
            let every = (c.bounds_every.load(Ordering::Relaxed)).max(MIN_WRITES_BETWEEN_BOUNDS);
            if writes >= every {
                self.start_bounds_pass();
            }
            if writes >= every.saturating_mul(PASSES_AHEAD) {
                self.stall(&c.bounding);
            }
            if c.compacting.load(Ordering::Acquire) {
                let sealed = self.writer.lock().segment;
                let started = c.compaction_segment.load(Ordering::Relaxed);
                if sealed >= started + SEGMENTS_AHEAD {
                    self.stall(&c.compacting);
                }
            }
        }
        if self.checkpointer.after_write(&self.index, uncovered) && self.bounded() {
            self.start_bounds_pass();
        }
    }

    /// Whether the options bound the store.
    pub(crate) fn bounded(&self) -> bool {
        (self.options.bounds.as_ref()).is_some_and(|b| !b.is_unbounded())
    }

    /// Applies the bounds in a thread of their own, unless a pass runs:
    /// never in a put, as reading every live line is the work of the
    /// whole store. At the writers' priority: writes that outran the
    /// passes would leave the store past its bounds, and each pass
    /// longer. The next pass comes after an eighth of the entries this
    /// one read were written (at least [`MIN_WRITES_BETWEEN_BOUNDS`]),
    /// or with the next checkpoint, whichever is first.
    fn start_bounds_pass(&self) {
        let c = &self.upkeep;
        if c.bounding.swap(true, Ordering::AcqRel) {
            return;
        }
        c.writes_since_bounds.store(0, Ordering::Relaxed);
        self.join_bounds_thread();
        let cache = self.for_background();
        let (bounding, every) = (c.bounding.clone(), c.bounds_every.clone());
        let spawned = std::thread::Builder::new()
            .name("codec-bounds".into())
            .spawn(move || {
                MAINTAINING.set(true);
                if let Some(read) = cache.apply_bounds() {
                    every.store(read / 8, Ordering::Relaxed);
                }
                drop(cache);
                bounding.store(false, Ordering::Release);
            });
        match spawned {
            Ok(handle) => *c.bounds_thread.lock() = Some(handle),
            Err(_) => c.bounding.store(false, Ordering::Release),
        }
    }

    /// Writes that outran the store's upkeep wait for it, as an LSM
    /// store's writes stall behind its compactions: [`PASSES_AHEAD`]
    /// times the writes between two passes of the bounds while one runs
    /// (else each pass finds more to remove than the last, takes longer,
    /// and the store runs away from its bounds), or [`SEGMENTS_AHEAD`]
    /// segments sealed while the compaction the bounds asked for runs
    /// (else the folder grows faster than it is given back). Each write
    /// waits [`MAX_STALL`] at most, so none waits long; not in the
    /// store's own threads, which the upkeep may wait for.
    fn stall(&self, running: &AtomicBool) {
        if MAINTAINING.get() {
            return;
        }
        let until = std::time::Instant::now() + MAX_STALL;
        while running.load(Ordering::Acquire) && std::time::Instant::now() < until {
            std::thread::sleep(std::time::Duration::from_micros(200));
        }
    }

    /// Waits for the pass of the bounds, if one runs.
    pub(crate) fn join_bounds_thread(&self) {
        let handle = self.upkeep.bounds_thread.lock().take();
        if let Some(handle) = handle {
            let _ = handle.join();
        }
    }

    /// As the handle closes: its upkeep ended, and the checkpoint a
    /// write asked for built (see [`Checkpointer::close`]).
    ///
    /// [`Checkpointer::close`]: crate::cache::checkpointer::Checkpointer::close
    pub(crate) fn close_upkeep(&self) {
        // Its removals may ask for a build, and for a compaction.
        self.join_bounds_thread();
        self.join_compaction();
        self.checkpointer.close(&self.index);
    }
}

/// The fewest writes between two passes of the bounds.
const MIN_WRITES_BETWEEN_BOUNDS: u64 = 1024;

/// How many passes' worth of writes the writers may run ahead of the pass
/// of the bounds under way.
const PASSES_AHEAD: u64 = 4;

/// How many segments a writer may seal while the compaction the bounds
/// asked for runs (a bound in bytes makes a segment a quarter of it).
const SEGMENTS_AHEAD: u64 = 2;

/// The longest a write waits for the store's upkeep.
const MAX_STALL: std::time::Duration = std::time::Duration::from_millis(20);

thread_local! {
    /// This thread keeps the store: a pass of the bounds, a compaction.
    pub(crate) static MAINTAINING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::Ordering;
    use std::time::Instant;

    use super::{MAX_STALL, MIN_WRITES_BETWEEN_BOUNDS, PASSES_AHEAD, SEGMENTS_AHEAD};
    use crate::options::Bounds;
    use crate::{Cache, CacheOptions};

    fn bounded(dir: &std::path::Path) -> Cache {
        let bounds = Bounds::default().max_entries(1 << 20);
        Cache::open_with(dir, CacheOptions::default().bounds(bounds)).unwrap()
    }

    #[test]
    fn a_write_far_ahead_of_the_pass_under_way_waits_for_it() {
        let dir = tempfile::tempdir().unwrap();
        let cache = bounded(dir.path());
        let c = &cache.upkeep;
        // A pass runs (as far as the writes know), and this many writes
        // came since it started.
        c.bounding.store(true, Ordering::Release);
        let ahead = MIN_WRITES_BETWEEN_BOUNDS * PASSES_AHEAD;
        c.writes_since_bounds.store(ahead, Ordering::Relaxed);
        let start = Instant::now();
        cache.put("k", &1u32).unwrap();
        assert!(start.elapsed() >= MAX_STALL, "{:?}", start.elapsed());
        c.bounding.store(false, Ordering::Release);
    }

    #[test]
    fn a_write_that_sealed_segments_while_the_compaction_runs_waits_for_it() {
        let dir = tempfile::tempdir().unwrap();
        let cache = bounded(dir.path());
        cache.put("first", &0u32).unwrap();
        let c = &cache.upkeep;
        // The compaction started at segment 0 (as far as the writes know).
        c.compacting.store(true, Ordering::Release);
        for _ in 0..SEGMENTS_AHEAD {
            cache.seal_now().unwrap();
        }
        let start = Instant::now();
        cache.put("k", &1u32).unwrap();
        assert!(start.elapsed() >= MAX_STALL, "{:?}", start.elapsed());
        c.compacting.store(false, Ordering::Release);
    }
}
