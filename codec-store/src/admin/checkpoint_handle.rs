//! What a handle does with checkpoints: build one now, in the background
//! past a threshold, take up the one built, check it.

use parking_lot::Mutex;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use crate::backend::folder::Folder;
use crate::backend::{Appends, Backend};
use crate::cache::Cache;
use crate::error::StoreError;
use crate::index::checkpoint::{build, objects, Built};

/// Builds a checkpoint of the store `backend` holds, in the shape its
/// appends take: tables that point into logs growing in place ([`build`]),
/// or tables that hold the lines of segments ([`objects::build`], which
/// reads the segments `sources` gives).
fn build_on(
    backend: &Arc<dyn Backend>,
    wait: bool,
    full: bool,
    sources: objects::Sources<'_>,
) -> Result<Option<Built>, StoreError> {
    match backend.appends() {
        Appends::InPlace => build(backend, wait, full),
        Appends::Segments => objects::build(&**backend, wait, full, sources),
    }
}

impl Cache {
    /// [`Admin::checkpoint`](crate::Admin::checkpoint).
    pub(crate) fn checkpoint(&self) -> Result<(), StoreError> {
        // One pass of the bounds at a time.
        self.join_bounds_thread();
        self.join_compaction();
        self.join_checkpoint();
        self.apply_bounds();
        // The compaction the bounds asked for, if they did, or one an
        // earlier pass asked for while another ran.
        self.compact_asked();
        let full = self.index_read().is_distrusted();
        let known = self.index_read().known_segments();
        let built = build_on(&self.backend, true, full, objects::Sources::Listed(&known))?;
        self.record(built);
        if full {
            self.index_write().trust_again();
        }
        self.index_write().adopt(&self.backend)?;
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

    /// After a write: a checkpoint in the background if the logs not
    /// covered by one passed the threshold; the one that ended taken up.
    pub(crate) fn after_write(&self, uncovered: u64) {
        let c = &self.checkpoints;
        if c.ended.swap(false, Ordering::Relaxed) {
            self.take_up_checkpoint();
        }
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
        let threshold = self.options.checkpoint_bytes;
        if threshold == 0 || uncovered < threshold {
            return;
        }
        if c.running.swap(true, Ordering::AcqRel) {
            // Asked for while one runs: a later write, or the close,
            // builds it.
            c.wanted.store(true, Ordering::Relaxed);
            return;
        }
        c.wanted.store(false, Ordering::Relaxed);
        self.join_checkpoint_thread();
        if self.bounded() {
            self.start_bounds_pass();
        }
        let full = self.index_read().is_distrusted();
        // What this handle wrote or read: other handles build from theirs.
        let known = self.index_read().known_segments();
        let (backend, running, ended, warnings) = (
            self.backend.clone(),
            c.running.clone(),
            c.ended.clone(),
            c.warnings.clone(),
        );
        let rebuilt = c.rebuilt.clone();
        let spawned = std::thread::Builder::new()
            .name("codec-checkpoint".into())
            .spawn(move || {
                lower_priority();
                match build_on(&backend, false, full, objects::Sources::Known(&known)) {
                    Ok(Some(built)) => {
                        rebuilt.store(full, Ordering::Relaxed);
                        push_warnings(&warnings, built.warnings);
                    }
                    Ok(None) => {}
                    Err(e) => push_warnings(&warnings, vec![format!("a checkpoint failed: {e}")]),
                }
                ended.store(true, Ordering::Release);
                running.store(false, Ordering::Release);
            });
        match spawned {
            Ok(handle) => {
                *c.thread.lock() = Some(handle);
            }
            Err(_) => c.running.store(false, Ordering::Release),
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
        let c = &self.checkpoints;
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
        let handle = self.checkpoints.bounds_thread.lock().take();
        if let Some(handle) = handle {
            let _ = handle.join();
        }
    }

    /// Takes up the checkpoint a background build made.
    pub(crate) fn take_up_checkpoint(&self) {
        let mut index = self.index_write();
        if self.checkpoints.rebuilt.swap(false, Ordering::Relaxed) {
            index.trust_again();
        }
        // A read that fails leaves the index as it was: the next refresh
        // takes the checkpoint up.
        if let Err(e) = index.adopt(&self.backend) {
            log::debug!(target: "codec::store", "the checkpoint built is not taken up yet: {e}");
        }
    }

    /// As the handle closes: the build a write asked for while one ran
    /// (and no write came after it to start one), here, so that a writer
    /// leaves what it wrote covered and the next open does not read it
    /// again. A handle whose writes asked for none builds none.
    pub(crate) fn close_checkpoint(&self) {
        // Its removals may ask for a build, and for a compaction.
        self.join_bounds_thread();
        self.join_compaction();
        self.join_checkpoint();
        if !self.checkpoints.wanted.swap(false, Ordering::Relaxed) {
            return;
        }
        let threshold = self.options.checkpoint_bytes;
        let at_least = match self.backend.appends() {
            Appends::InPlace => 0,
            Appends::Segments => crate::index::checkpoint::SEGMENT_BYTES,
        };
        if threshold == 0 || self.index_read().uncovered(at_least) < threshold {
            return;
        }
        let full = self.index_read().is_distrusted();
        let known = self.index_read().known_segments();
        match build_on(&self.backend, false, full, objects::Sources::Known(&known)) {
            Ok(built) => self.record(built),
            Err(e) => log::debug!(target: "codec::store", "a checkpoint as the handle closed: {e}"),
        }
    }

    /// Waits for the background build, if one runs.
    pub(crate) fn join_checkpoint(&self) {
        self.join_checkpoint_thread();
        if self.checkpoints.ended.swap(false, Ordering::Relaxed) {
            self.take_up_checkpoint();
        }
    }

    pub(crate) fn join_checkpoint_thread(&self) {
        let handle = self.checkpoints.thread.lock().take();
        if let Some(handle) = handle {
            let _ = handle.join();
        }
    }

    fn record(&self, built: Option<Built>) {
        if let Some(built) = built {
            push_warnings(&self.checkpoints.warnings, built.warnings);
        }
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

/// Background builds yield the processor to the handle's writers.
fn lower_priority() {
    #[cfg(target_os = "linux")]
    // SAFETY: plain system calls on the calling thread.
    unsafe {
        let _ = libc::setpriority(libc::PRIO_PROCESS, libc::gettid() as libc::id_t, 10);
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
        let c = &cache.checkpoints;
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
        let c = &cache.checkpoints;
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
