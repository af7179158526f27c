//! The upkeep of a store's bounds
//! ([`CacheOptions::bounds`](crate::CacheOptions::bounds)), off the write
//! path: passes of the bounds in a thread of their own, every so many
//! writes and as a checkpoint starts, and the online compaction they (and
//! writes that sealed segments) ask for once a folder is mostly garbage,
//! in another; the three, with the background checkpoints, take turns
//! (`cache/threads.rs`). Writes that run ahead of the upkeep are slowed,
//! and those that outran it wait for it a moment, once they ended.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use parking_lot::Mutex;

use crate::backend::Appends;
use crate::cache::threads::{lower_priority, Threads, Workers, UPKEEP_NICENESS};
use crate::cache::writers::LogWriter;
use crate::cache::{underway, Cache};
use crate::compaction::sealed::{compact_sealed, Compaction};
use crate::compaction::store_size;
use crate::error::StoreError;

/// A handle's upkeep of its bounds: the passes and the compactions.
#[derive(Default)]
pub(crate) struct Upkeep {
    /// A pass of the bounds runs (`start_pass`).
    bounding: Arc<AtomicBool>,
    bounds_thread: Threads,
    /// An online compaction the bounds asked for runs.
    pub(crate) compacting: Arc<AtomicBool>,
    /// A compaction asked for while one ran, with the bytes its pass
    /// kept: the next checkpoint runs it, unless a pass asks again first.
    /// Set and taken with `compacting`.
    pub(crate) compact_again: Mutex<Option<u64>>,
    /// The handle's seals when the compaction started.
    compaction_seals: AtomicU64,
    /// The bytes the handle had written when the compaction started
    /// ([`LogWriter::written`](crate::cache::writers::LogWriter::written)).
    compaction_written: AtomicU64,
    /// The bytes the handle had sealed when a write last asked whether the
    /// folder is mostly garbage.
    checked_bytes: AtomicU64,
    /// The payload bytes the last pass of the bounds kept, plus one (0: no
    /// pass yet).
    kept_bytes: AtomicU64,
    compact_thread: Threads,
    /// Writes since the last pass of the bounds started.
    writes_since_bounds: AtomicU64,
    /// Writes between two passes, from the entries the last one read.
    bounds_every: Arc<AtomicU64>,
    /// The live entries as the last pass of the bounds read them.
    pub(crate) live: Mutex<Option<super::reduce::LiveSizes>>,
    /// The newest lines of the sealed segments its compactions kept.
    pub(crate) sealed_lines: crate::compaction::SealedLines,
    /// The writer's next log is being made ahead of its seal
    /// ([`make_ahead`](Upkeep::make_ahead)).
    making_ahead: Arc<AtomicBool>,
    /// The seals the writer had made, plus one, when its next log was
    /// last asked to be made ahead.
    ahead_asked: AtomicU64,
}

/// The fewest writes between two passes of the bounds.
const MIN_WRITES_BETWEEN_BOUNDS: u64 = 1024;

/// How many passes' worth of writes the writers may run ahead of the pass
/// of the bounds under way.
const PASSES_AHEAD: u64 = 2;

/// How many segments a writer may seal while the compaction the bounds
/// asked for runs (a bound in bytes makes a segment a quarter of it).
const SEGMENTS_AHEAD: u64 = 2;

/// The fewest bytes sealed between two writes that ask whether the folder
/// is mostly garbage.
const CHECK_EVERY: u64 = 1 << 20;

/// The longest a write is slowed by, as the writes near a stall
/// ([`pace_for`]): under the p99.9 of a put without bounds on a busy
/// machine (the upkeep keeps a second processor busy).
const MAX_PACE: std::time::Duration = std::time::Duration::from_micros(60);

/// How far the writes may run ahead of the upkeep before they are slowed
/// ([`pace_for`]): a quarter of the way to a stall, where the pass of the
/// bounds under way has seen half the writes between two passes, or the
/// compaction under way a quarter of a segment written. From half-way,
/// a firehose met the stall
/// far more often (puts over 10 ms in 1,000,000: 111-118, against 15-47
/// from here and 7-25 from the start).
const PACE_FROM: f64 = 0.25;

/// The longest a write waits for the store's upkeep: most of what the
/// rest of a compaction takes once the writer sealed its segments ahead,
/// so that one write or two wait for it, not three (each a slow write,
/// and the p99.9 is their count), and well under the 50 ms a put may take
/// at most.
const MAX_STALL: std::time::Duration = std::time::Duration::from_millis(30);

/// The threads of the passes of the bounds.
static PASSES: Workers = Workers::new("codec-bounds");
/// The threads of the compactions the bounds start.
static COMPACTIONS: Workers = Workers::new("codec-compact");

/// Bytes a folder holds past the payload it keeps, at least, before the
/// bounds applied in the background compact it (and at least that
/// payload again).
const AUTO_COMPACT_MIN: u64 = 8 << 20;

thread_local! {
    /// This thread keeps the store: a pass of the bounds, a compaction.
    static MAINTAINING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// How long this thread's write under way is to be slowed by, once it
    /// ended.
    static PACE_OWED: std::cell::Cell<std::time::Duration> =
        const { std::cell::Cell::new(std::time::Duration::ZERO) };
    /// The earliest this thread's next write to a handle starts, with the
    /// handle's writer (its address): the slowing its last write was
    /// given, counted from that write's end ([`keep_pace`]).
    static PACED_UNTIL: std::cell::Cell<Option<(usize, std::time::Instant)>> =
        const { std::cell::Cell::new(None) };
    /// How many of this thread's paces it slept rather than waited out
    /// on its processor.
    #[cfg(test)]
    static SLEPT: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
    /// How long this thread waited to keep to the upkeep's pace.
    #[cfg(test)]
    static PACED: std::cell::Cell<std::time::Duration> =
        const { std::cell::Cell::new(std::time::Duration::ZERO) };
    /// The upkeep a write of this thread waits for once it ended.
    static STALL_AFTER_WRITE: std::cell::RefCell<Option<Arc<AtomicBool>>> =
        const { std::cell::RefCell::new(None) };
}

impl Upkeep {
    /// After a write of `cache`, whose options bound it: a pass of the
    /// bounds if enough writes came since the last, and a wait if the
    /// writes ran far ahead of the upkeep.
    pub(crate) fn after_write(&self, cache: &Cache) {
        let writes = self.writes_since_bounds.fetch_add(1, Ordering::Relaxed) + 1;
        let every = (self.bounds_every.load(Ordering::Relaxed)).max(MIN_WRITES_BETWEEN_BOUNDS);
        if writes >= every {
            self.start_pass(cache);
        }
        // Counted from the pass under way, which may have just started.
        let writes = self.writes_since_bounds.load(Ordering::Relaxed);
        let bounding = self.bounding.load(Ordering::Acquire);
        if bounding && writes >= every.saturating_mul(PASSES_AHEAD) {
            stall(&self.bounding);
        }
        let seals = cache.writer.seals.load(Ordering::Relaxed);
        // Once a segment (another handle may hold the name it is made as).
        if cache.writer.wants_ahead()
            && self.ahead_asked.swap(seals + 1, Ordering::Relaxed) <= seals
        {
            self.make_ahead(cache);
        }
        let compacting = self.compacting.load(Ordering::Acquire);
        // The writer keeps to the upkeep's pace, rather than outrun it
        // and wait for it all at once: a slow put for each stall.
        let lead = self.lead(cache, bounding.then_some((writes, every)), compacting);
        pace(pace_for(lead), writer_key(&cache.writer));
        if compacting {
            let started = self.compaction_seals.load(Ordering::Relaxed);
            // Where each append is an object of its own, no segment is
            // sealed to count: a write waits once a pass asked for another
            // compaction while this one runs.
            let behind = match cache.backend.appends() {
                Appends::InPlace => seals >= started + SEGMENTS_AHEAD,
                Appends::Segments => self.compact_again.lock().is_some(),
            };
            if behind {
                stall(&self.compacting);
            }
        } else if seals >= self.compaction_seals.load(Ordering::Relaxed) + SEGMENTS_AHEAD {
            // Segments were sealed since: the garbage they hold is the
            // compaction's from now on, not at the next pass's end. Asked
            // every [`CHECK_EVERY`] bytes sealed at most (it lists the
            // folder).
            let sealed = cache.writer.sealed_bytes.load(Ordering::Relaxed);
            let checked = self.checked_bytes.load(Ordering::Relaxed);
            let kept = self.kept_bytes.load(Ordering::Relaxed).checked_sub(1);
            if let (Some(kept), true) = (kept, sealed >= checked.saturating_add(CHECK_EVERY)) {
                self.checked_bytes.store(sealed, Ordering::Relaxed);
                // Whether it is mostly garbage is asked in the
                // compaction's thread: it lists the store, which is not
                // the work of a put.
                self.start_compaction_with(cache, kept, true);
            }
        }
    }

    /// How far the writes of `cache` ran ahead of the upkeep under way:
    /// 1 where they wait for it ([`stall`]). The writes since the pass
    /// under way started, if `pass` (with the writes between two), against
    /// [`PASSES_AHEAD`] times that; the bytes written since the
    /// compaction under way started (in a folder), if `compacting`,
    /// against a segment, which the compaction seals as it starts and
    /// the next seal of which makes the writes wait.
    fn lead(&self, cache: &Cache, pass: Option<(u64, u64)>, compacting: bool) -> f64 {
        let mut lead = 0.0_f64;
        if let Some((writes, every)) = pass {
            lead = writes as f64 / every.saturating_mul(PASSES_AHEAD).max(1) as f64;
        }
        if compacting && cache.backend.appends() == Appends::InPlace {
            let started = self.compaction_written.load(Ordering::Relaxed);
            let since = cache.writer.written().saturating_sub(started);
            let segment = cache.writer.segment_limit().max(1);
            lead = lead.max(since as f64 / segment as f64);
        }
        lead
    }

    /// Applies the bounds of `cache` in a thread of their own, unless a
    /// pass runs: never in a put, as reading every live line is the work
    /// of the whole store. Below the writers' priority
    /// ([`UPKEEP_NICENESS`]): writes that outrun the passes are slowed,
    /// then stalled, rather than leave the store past its bounds. The
    /// next pass comes after an eighth of the entries this
    /// one read were written (at least [`MIN_WRITES_BETWEEN_BOUNDS`]),
    /// or with the next checkpoint, whichever is first.
    pub(crate) fn start_pass(&self, cache: &Cache) {
        if self.bounding.swap(true, Ordering::AcqRel) {
            return;
        }
        self.writes_since_bounds.store(0, Ordering::Relaxed);
        let cache = cache.for_background();
        let (bounding, every) = (self.bounding.clone(), self.bounds_every.clone());
        let turns = cache.turns.clone();
        let spawned = PASSES.spawn(move || {
            MAINTAINING.set(true);
            lower_priority(UPKEEP_NICENESS);
            cache.writer.make_ahead();
            let _turn = turns.take();
            if let Some(read) = cache.upkeep.apply_bounds(&cache) {
                every.store(read / 8, Ordering::Relaxed);
            }
            drop(cache);
            bounding.store(false, Ordering::Release);
        });
        match spawned {
            Ok(handle) => self.bounds_thread.add(handle),
            Err(_) => self.bounding.store(false, Ordering::Release),
        }
    }

    /// Makes the next log of `cache`'s writer ahead of the seal that
    /// needs it, in the upkeep's threads: a seal that makes it takes
    /// 100-170 µs, one that names it made 15-50 (a file created against a
    /// rename), and a bounded store seals every quarter of its bound. The
    /// passes of the bounds make it too as they start, but they come once
    /// in about as many writes as a segment holds: half the seals found
    /// none made.
    fn make_ahead(&self, cache: &Cache) {
        if self.making_ahead.swap(true, Ordering::AcqRel) {
            return;
        }
        let background = cache.for_background();
        let making = self.making_ahead.clone();
        let spawned = PASSES.spawn(move || {
            MAINTAINING.set(true);
            lower_priority(UPKEEP_NICENESS);
            background.writer.make_ahead();
            drop(background);
            making.store(false, Ordering::Release);
        });
        match spawned {
            Ok(handle) => self.bounds_thread.add(handle),
            Err(_) => self.making_ahead.store(false, Ordering::Release),
        }
    }

    /// Waits for the pass of the bounds, if one runs.
    pub(crate) fn join_pass(&self) {
        self.bounds_thread.join();
    }

    /// Applies the bounds of `cache`'s options, in the background or by
    /// [`Admin::checkpoint`](crate::Admin::checkpoint): what is past them
    /// is removed (its space comes back with the next compaction).
    /// Returns how many live entries it read, if it ran.
    pub(crate) fn apply_bounds(&self, cache: &Cache) -> Option<u64> {
        let bounds = (cache.options.bounds.as_ref()).filter(|b| !b.is_unbounded())?;
        match cache.reduce_size(bounds, None) {
            Ok(done) => {
                let kept = done.kept_bytes.saturating_add(1);
                self.kept_bytes.store(kept, Ordering::Relaxed);
                if bounds.max_bytes.is_none() {
                    cache.writer.size_segments_to(done.kept_bytes);
                }
                if !done.removed.is_empty() {
                    self.compact_if_mostly_garbage(cache, done.kept_bytes);
                }
                Some((done.kept + done.removed.len()) as u64)
            }
            Err(e) => {
                cache.warnings.lock().push(format!(
                    "{}: keeping the store within its bounds: {e}",
                    cache.location()
                ));
                None
            }
        }
    }

    /// After the bounds removed entries, and in a folder as a write finds
    /// [`SEGMENTS_AHEAD`] segments sealed since the last compaction
    /// started (the bounds' last pass kept `kept_bytes`): compacts online
    /// (in a folder, the sealed segments mostly dead) once the store holds
    /// more than the payload it keeps and as much again,
    /// or [`AUTO_COMPACT_MIN`] more if that is more
    /// ([`CacheOptions::compact_grace`](crate::CacheOptions::compact_grace)).
    /// Unless another handle compacts it already (in a folder; on object
    /// storage, of two racing to commit one does, and the other is no
    /// warning); an error is a warning.
    fn compact_if_mostly_garbage(&self, cache: &Cache, kept_bytes: u64) {
        if mostly_garbage(cache, kept_bytes) {
            self.start_compaction(cache, kept_bytes);
        }
    }

    /// The online compaction the bounds asked for, in a thread of its own
    /// (the passes of the bounds go on meanwhile); one at a time. One asked
    /// for while another runs is kept, with the bytes its pass kept: the
    /// next pass asks again, or, if none comes,
    /// [`Admin::checkpoint`](crate::Admin::checkpoint) runs it
    /// ([`Upkeep::compact_asked`]). Run at once, it would compact back to
    /// back under a stream of writes, which the writes would wait for.
    pub(crate) fn start_compaction(&self, cache: &Cache, kept_bytes: u64) {
        self.start_compaction_with(cache, kept_bytes, false);
    }

    /// [`Upkeep::start_compaction`], which first asks whether the store
    /// is mostly garbage, in its thread, if `check`: one that is not is
    /// left as it is, and counts its seals from where it did before.
    fn start_compaction_with(&self, cache: &Cache, kept_bytes: u64, check: bool) {
        {
            let mut again = self.compact_again.lock();
            if self.compacting.swap(true, Ordering::AcqRel) {
                if !check {
                    *again = Some(kept_bytes);
                }
                return;
            }
            if !check {
                *again = None;
            }
        }
        let seals = cache.writer.seals.load(Ordering::Relaxed);
        let seals_before = self.compaction_seals.swap(seals, Ordering::Relaxed);
        (self.compaction_written).store(cache.writer.written(), Ordering::Relaxed);
        let cache = cache.for_background();
        let (compacting, turns) = (self.compacting.clone(), cache.turns.clone());
        let spawned = COMPACTIONS.spawn(move || {
            MAINTAINING.set(true);
            lower_priority(UPKEEP_NICENESS);
            cache.writer.make_ahead();
            let _turn = turns.take();
            if check && !mostly_garbage(&cache, kept_bytes) {
                // A pass that asked for a compaction meanwhile found
                // this one running: it is this one's to run. Its
                // request is taken, and the flag let go, under the
                // lock a request is made under.
                let upkeep = &cache.upkeep;
                let mut again = upkeep.compact_again.lock();
                let asked = again.take();
                if !asked.is_some_and(|kept| mostly_garbage(&cache, kept)) {
                    upkeep
                        .compaction_seals
                        .store(seals_before, Ordering::Relaxed);
                    compacting.store(false, Ordering::Release);
                    return;
                }
            }
            if check {
                *cache.upkeep.compact_again.lock() = None;
            }
            let handlers: Vec<_> = (cache.handlers.read()).values().cloned().collect();
            let how = Compaction::IfFree(cache.options.compact_grace);
            let backend = cache.backend.clone();
            let done = compact_sealed(Some(&cache), backend, &handlers, how, &mut |_, _| {});
            match done {
                // Another handle's compaction did it (object storage,
                // where compactions race to commit).
                Err(e) if crate::compaction::overtaken(&e) => {
                    log::debug!(target: "codec::store", "{e}");
                }
                Err(e) => compaction_failed(&cache, &e),
                Ok(_) => {}
            }
            drop(cache);
            compacting.store(false, Ordering::Release);
        });
        match spawned {
            Ok(handle) => self.compact_thread.add(handle),
            Err(_) => {
                self.compaction_seals.store(seals_before, Ordering::Relaxed);
                self.compacting.store(false, Ordering::Release);
            }
        }
    }

    /// The compaction a pass asked for while another ran, if the folder is
    /// still mostly garbage, waited for.
    pub(crate) fn compact_asked(&self, cache: &Cache) {
        self.join_compaction();
        let again = self.compact_again.lock().take();
        if let Some(kept) = again.filter(|&kept| mostly_garbage(cache, kept)) {
            self.start_compaction(cache, kept);
            self.join_compaction();
        }
    }

    /// Waits for the compaction the bounds asked for, if one runs.
    pub(crate) fn join_compaction(&self) {
        self.compact_thread.join();
    }

    /// Waits for the pass and the compaction under way.
    pub(crate) fn join(&self) {
        self.join_pass();
        self.join_compaction();
    }
}

/// Writes that outran the store's upkeep wait for it, as an LSM store's
/// writes stall behind its compactions: [`PASSES_AHEAD`] times the writes
/// between two passes of the bounds while one runs (else each pass finds
/// more to remove than the last, takes longer, and the store runs away
/// from its bounds), or [`SEGMENTS_AHEAD`] segments sealed while the
/// compaction the bounds asked for runs (else the folder grows faster
/// than it is given back). Each write waits [`MAX_STALL`] at most, so
/// none waits long; not in the store's own threads, which the upkeep may
/// wait for. A write waits once it ended, not while it is under way: the
/// compaction it waits for seals the writer's segment first, which waits
/// for the writes under way.
fn stall(running: &Arc<AtomicBool>) {
    if MAINTAINING.get() {
        return;
    }
    if underway::in_write() {
        STALL_AFTER_WRITE.set(Some(running.clone()));
        return;
    }
    wait_while(running);
}

/// The stall of the write of this thread to `writer` that just ended, if
/// it has one; the slowing its writes have added up ([`pace`]) is kept
/// by the next write ([`keep_pace`]).
pub(crate) fn stall_after_write(writer: &LogWriter) {
    if let Some(running) = STALL_AFTER_WRITE.take() {
        wait_while(&running);
    }
    owe_pace(writer_key(writer));
}

/// What tells the writers of handles apart in [`PACED_UNTIL`]: the
/// writer's address, stable for as long as its handle is open.
fn writer_key(writer: &LogWriter) -> usize {
    std::ptr::from_ref(writer) as usize
}

/// How much a write is slowed by, with the writes `lead` on their way to
/// a stall ([`Upkeep::lead`]): none up to [`PACE_FROM`], then in
/// proportion, up to [`MAX_PACE`] by the stall. The slowing is spread over
/// every write made while the upkeep runs late, a little each, rather
/// than heaped on the writes nearest the stall (slowed from half-way by
/// the square of how far past it, up to 120 µs, one put in ten of a
/// firehose waited 100 µs or more: the p99.9 counts them). Not from the
/// start of each pass: a steady writer the upkeep keeps up with was
/// slowed at every pass for nothing, and where a hiccup had it catch up
/// with writes back to back, each kept its pace (in the puts over 100 µs
/// at 15,000 a second, 40% of the writer's time was the pace).
fn pace_for(lead: f64) -> std::time::Duration {
    MAX_PACE.mul_f64(((lead - PACE_FROM) / (1.0 - PACE_FROM)).clamp(0.0, 1.0))
}

/// Slows the writes of this thread to the handle whose writer is `writer`
/// by `by`: the writes that near a stall slow down by what they ran ahead,
/// the way an LSM store delays writes before it stops them (RocksDB's
/// delayed writes). The next write starts `by` after this one ended at
/// the earliest ([`keep_pace`]): a rate, not a wait added to each write,
/// so a thread that spends that long elsewhere between two writes (a
/// steady stream, not a firehose) is not slowed at all. Not in the
/// store's own threads.
fn pace(by: std::time::Duration, writer: usize) {
    if by.is_zero() || MAINTAINING.get() {
        return;
    }
    PACE_OWED.set(PACE_OWED.get() + by);
    if !underway::in_write() {
        owe_pace(writer);
    }
}

/// The slowing this thread's writes to `writer` added up, from now: kept
/// by its next write to it.
fn owe_pace(writer: usize) {
    let owed = PACE_OWED.take();
    if owed.is_zero() {
        return;
    }
    let now = std::time::Instant::now();
    let from = match PACED_UNTIL.get() {
        Some((w, until)) if w == writer => until.max(now),
        _ => now,
    };
    PACED_UNTIL.set(Some((writer, from + owed)));
}

/// The threads of the process waiting out a pace on their processor
/// ([`keep_pace`]).
static SPINNING: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Before a write of this thread to `writer`: waits out what is left of
/// the slowing its last write to it was given ([`pace`]), on the thread:
/// [`MAX_PACE`] at most, and a sleep that short lasts far longer on a
/// busy machine, or a virtual one whose idle processor its host must
/// wake (on 2 processors, one pace in about 200 slept past 1 ms; waited
/// out on the thread, one in about 1,500, the thread preempted). The
/// upkeep has a processor of its own meanwhile
/// ([`Turns`](crate::cache::threads::Turns)). As many threads wait so at
/// once as the machine has processors but one: the others sleep (writers
/// that all waited on their processors would take the upkeep's), as a
/// thread does on a machine with one.
pub(crate) fn keep_pace(writer: &LogWriter) {
    let Some((w, until)) = PACED_UNTIL.get() else {
        return;
    };
    if w != writer_key(writer) {
        return;
    }
    PACED_UNTIL.set(None);
    let start = std::time::Instant::now();
    let Some(owed) = until.checked_duration_since(start).filter(|d| !d.is_zero()) else {
        return;
    };
    let free = crate::cache::threads::processors().saturating_sub(1);
    if SPINNING.fetch_add(1, Ordering::AcqRel) < free {
        while start.elapsed() < owed {
            std::hint::spin_loop();
        }
        SPINNING.fetch_sub(1, Ordering::AcqRel);
    } else {
        SPINNING.fetch_sub(1, Ordering::AcqRel);
        std::thread::sleep(owed);
        #[cfg(test)]
        SLEPT.set(SLEPT.get() + 1);
    }
    #[cfg(test)]
    PACED.set(PACED.get() + start.elapsed());
}

/// Waits while `running`, [`MAX_STALL`] at most.
fn wait_while(running: &AtomicBool) {
    let until = std::time::Instant::now() + MAX_STALL;
    while running.load(Ordering::Acquire) && std::time::Instant::now() < until {
        std::thread::sleep(std::time::Duration::from_micros(200));
    }
}

/// Whether the store of `cache` holds more than `kept_bytes` and as much
/// again, or [`AUTO_COMPACT_MIN`] more if that is more.
fn mostly_garbage(cache: &Cache, kept_bytes: u64) -> bool {
    match store_size(&*cache.backend) {
        Ok(size) => size > kept_bytes.saturating_add(kept_bytes.max(AUTO_COMPACT_MIN)),
        Err(e) => {
            compaction_failed(cache, &e);
            false
        }
    }
}

fn compaction_failed(cache: &Cache, e: &StoreError) {
    cache.warnings.lock().push(format!(
        "{}: compacting the store after its bounds: {e}",
        cache.location()
    ));
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::Ordering;
    use std::time::Instant;

    use super::{pace_for, MAX_PACE};
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

    /// Writes on their way to a stall are slowed before it once a quarter
    /// of the way, the more the nearer: in proportion, [`MAX_PACE`] by the
    /// stall. A writer the upkeep keeps up with is not slowed.
    #[test]
    fn writes_are_slowed_the_more_the_nearer_a_stall() {
        use std::time::Duration;
        for lead in [0.0, 0.1, 0.2, 0.25] {
            assert_eq!(pace_for(lead), Duration::ZERO, "at {lead}");
        }
        assert_eq!(pace_for(0.625), MAX_PACE / 2);
        let paces: Vec<_> = [0.3, 0.5, 0.8, 0.9, 1.0].map(pace_for).into();
        assert!(paces.is_sorted() && paces[0] > Duration::ZERO);
        assert_eq!(pace_for(1.0), MAX_PACE);
        assert_eq!(pace_for(7.0), MAX_PACE);
    }

    /// While as many threads wait out a pace on their processors as the
    /// machine has processors but one, another sleeps its pace: the
    /// upkeep keeps its processor.
    #[test]
    fn a_pace_is_slept_while_others_wait_theirs_out_on_the_processors() {
        let dir = tempfile::tempdir().unwrap();
        let cache = bounded(dir.path());
        let spinning = crate::cache::threads::processors().saturating_sub(1);
        let slept = super::SLEPT.get();
        super::SPINNING.fetch_add(spinning, Ordering::AcqRel);
        super::pace(MAX_PACE, super::writer_key(&cache.writer));
        super::keep_pace(&cache.writer);
        super::SPINNING.fetch_sub(spinning, Ordering::AcqRel);
        assert_eq!(super::SLEPT.get(), slept + 1);
    }

    /// A bounded store's writer has its next log made ahead of the seal
    /// once its segment is half full, by the upkeep's threads, without a
    /// pass of the bounds: a seal that makes it takes 100-170 µs.
    #[test]
    fn the_next_log_is_made_ahead_once_the_segment_is_half_full() {
        let dir = tempfile::tempdir().unwrap();
        let options = CacheOptions::default()
            .bounds(Bounds::default().max_entries(1 << 20))
            .segment_bytes(1 << 20);
        let cache = Cache::open_with(dir.path(), options).unwrap();
        let value = vec![7u8; 60 << 10];
        for i in 0..10 {
            cache.put_bytes(&format!("k{i}"), &value).unwrap();
        }
        cache.upkeep.join_pass();
        assert_eq!(cache.upkeep.writes_since_bounds.load(Ordering::Relaxed), 10);
        assert!(cache.writer.segment_size() >= 1 << 19);
        assert!(!cache.writer.wants_ahead(), "no log made ahead");
    }

    /// A pass of the bounds runs below the writers' priority: its thread
    /// (kept for the next pass) has the upkeep's niceness. Other tests'
    /// passes may run beside it, each a thread of that name.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_pass_runs_below_the_writers_priority() {
        let dir = tempfile::tempdir().unwrap();
        let cache = bounded(dir.path());
        cache.put("k", &1u32).unwrap();
        cache.upkeep.start_pass(&cache);
        cache.upkeep.join_pass();
        let niceness = |stat: &str| -> Option<i32> {
            // The fields after the name: the state is the 3rd of the
            // line, the niceness the 19th.
            let after = &stat[stat.rfind(')')? + 1..];
            after.split_whitespace().nth(16)?.parse().ok()
        };
        let passes: Vec<Option<i32>> = std::fs::read_dir("/proc/self/task")
            .unwrap()
            .flatten()
            .filter(|task| {
                let comm = std::fs::read_to_string(task.path().join("comm")).unwrap_or_default();
                comm.trim() == "codec-bounds"
            })
            .map(|task| niceness(&std::fs::read_to_string(task.path().join("stat")).ok()?))
            .collect();
        assert!(
            passes.contains(&Some(crate::cache::threads::UPKEEP_NICENESS)),
            "the passes' threads: {passes:?}"
        );
    }

    /// A write near the stall of the pass under way is slowed, not
    /// stalled (a stall is one put as slow as the rest of a pass).
    #[test]
    fn a_write_near_the_pass_s_stall_is_slowed() {
        let dir = tempfile::tempdir().unwrap();
        let cache = near_the_pass_s_stall(dir.path());
        let c = &cache.upkeep;
        let start = Instant::now();
        cache.put("k", &1u32).unwrap();
        let until = paced_until(&cache);
        assert!(until - start >= pace_for(0.95), "{:?}", until - start);
        // The next write waits for it.
        cache.put("k", &2u32).unwrap();
        assert!(Instant::now() >= until);
        c.bounding.store(false, Ordering::Release);
    }

    /// A bounded store in `dir` whose writes are near the stall of the
    /// pass under way (as far as they know): each is slowed.
    fn near_the_pass_s_stall(dir: &std::path::Path) -> Cache {
        let cache = bounded(dir);
        let c = &cache.upkeep;
        c.bounding.store(true, Ordering::Release);
        let ahead = MIN_WRITES_BETWEEN_BOUNDS * PASSES_AHEAD;
        c.writes_since_bounds
            .store(ahead * 19 / 20, Ordering::Relaxed);
        cache
    }

    /// When this thread's next write to `cache` may start, as its last
    /// one was slowed.
    fn paced_until(cache: &Cache) -> Instant {
        let (writer, until) = super::PACED_UNTIL.get().expect("the write was slowed");
        assert_eq!(writer, super::writer_key(&cache.writer));
        until
    }

    /// A pace is a rate, not a wait added to each write: a write that
    /// comes as long after the last one as that one was slowed by does
    /// not wait (a steady stream of writes is not slowed, a firehose is).
    #[test]
    fn a_write_that_comes_as_late_as_the_pace_does_not_wait() {
        let dir = tempfile::tempdir().unwrap();
        let cache = near_the_pass_s_stall(dir.path());
        let c = &cache.upkeep;
        cache.put("k", &1u32).unwrap();
        let until = paced_until(&cache);
        std::thread::sleep(until.saturating_duration_since(Instant::now()));
        let paced = super::PACED.get();
        cache.put("k", &2u32).unwrap();
        assert_eq!(super::PACED.get(), paced);
        c.bounding.store(false, Ordering::Release);
    }

    /// A pace slows the next write to the handle it was given for, not
    /// one to another handle.
    #[test]
    fn a_pace_slows_the_next_write_to_its_handle_only() {
        let (dir, other) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let cache = near_the_pass_s_stall(dir.path());
        let other = Cache::open(other.path()).unwrap();
        let c = &cache.upkeep;
        cache.put("k", &1u32).unwrap();
        let until = paced_until(&cache);
        let paced = super::PACED.get();
        other.put("k", &1u32).unwrap();
        assert_eq!(super::PACED.get(), paced);
        assert_eq!(paced_until(&cache), until);
        c.bounding.store(false, Ordering::Release);
    }

    /// A write of a folder that wrote most of a segment since the
    /// compaction under way started is slowed, before the next seal
    /// stalls it; the bytes written before it started are not counted.
    #[test]
    fn a_write_near_the_compaction_s_stall_is_slowed() {
        let dir = tempfile::tempdir().unwrap();
        let options = CacheOptions::default()
            .bounds(Bounds::default().max_entries(1 << 20))
            .segment_bytes(1 << 20);
        let cache = Cache::open_with(dir.path(), options).unwrap();
        let value = "v".repeat(1000);
        let mut i = 0;
        while cache.writer.written() < (1 << 20) * 9 / 10 {
            cache.put(&format!("k{i}"), &value).unwrap();
            i += 1;
        }
        assert_eq!(cache.writer.seals.load(Ordering::Relaxed), 0);
        let c = &cache.upkeep;
        // The compaction started as this handle had written nothing, as
        // far as the writes know.
        c.compacting.store(true, Ordering::Release);
        let lead = c.lead(&cache, None, true);
        assert!((0.9..1.0).contains(&lead), "{lead}");
        let start = Instant::now();
        cache.put("k", &value).unwrap();
        let until = paced_until(&cache);
        assert!(until - start >= pace_for(0.9), "{:?}", until - start);
        c.compaction_written
            .store(cache.writer.written(), Ordering::Relaxed);
        assert_eq!(c.lead(&cache, None, true), 0.0);
        c.compacting.store(false, Ordering::Release);
    }

    /// A pass of the bounds waits for its turn: the upkeep leaves one
    /// processor at least to the writers.
    #[test]
    fn a_pass_of_the_bounds_waits_for_its_turn() {
        let dir = tempfile::tempdir().unwrap();
        let cache = bounded(dir.path());
        cache.put("k", &1u32).unwrap();
        let c = &cache.upkeep;
        let turns = cache.turns.take_every();
        c.start_pass(&cache);
        // Never wrong on a busy machine: a pass not yet run is under way
        // too.
        std::thread::sleep(std::time::Duration::from_millis(50));
        assert!(c.bounding.load(Ordering::Acquire), "the pass ran");
        drop(turns);
        c.join_pass();
        assert!(!c.bounding.load(Ordering::Acquire));
    }

    /// So does a compaction the bounds asked for.
    #[test]
    fn a_compaction_the_bounds_asked_for_waits_for_its_turn() {
        let dir = tempfile::tempdir().unwrap();
        let cache = bounded(dir.path());
        cache.put("k", &1u32).unwrap();
        let c = &cache.upkeep;
        let turns = cache.turns.take_every();
        c.start_compaction(&cache, 0);
        std::thread::sleep(std::time::Duration::from_millis(50));
        assert!(c.compacting.load(Ordering::Acquire), "the compaction ran");
        drop(turns);
        c.join_compaction();
        assert!(!c.compacting.load(Ordering::Acquire));
        assert_eq!(cache.get::<u32>("k").unwrap(), Some(1));
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
            cache.writer.seal_now().unwrap();
        }
        let start = Instant::now();
        cache.put("k", &1u32).unwrap();
        assert!(start.elapsed() >= MAX_STALL, "{:?}", start.elapsed());
        c.compacting.store(false, Ordering::Release);
    }

    /// A write that finds the upkeep behind waits once it ended, not while
    /// it is under way: the compaction it waits for seals the writer's
    /// segment first, which waits for the writes under way (it waited the
    /// whole stall before).
    #[test]
    fn a_write_waits_for_the_upkeep_once_it_ended() {
        let dir = tempfile::tempdir().unwrap();
        let cache = bounded(dir.path());
        let running = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
        cache
            .writer
            .one_write(|| {
                super::stall(&running);
                let pending = super::STALL_AFTER_WRITE.with(|s| s.borrow().is_some());
                assert!(pending, "the write waited while under way");
                Ok(())
            })
            .unwrap();
        let pending = super::STALL_AFTER_WRITE.with(|s| s.borrow().is_some());
        assert!(!pending, "the write never waited");
    }

    /// A store bounded by a pass that removes nothing compacts once a
    /// write finds segments sealed since the last compaction, and the
    /// folder mostly garbage: the compaction does not wait for a pass that
    /// removes entries (the folder grew past its bounds meanwhile).
    #[test]
    fn a_write_that_sealed_segments_of_a_folder_mostly_garbage_starts_a_compaction() {
        let dir = tempfile::tempdir().unwrap();
        let bounds = Bounds::default().max_entries(1 << 20);
        let options = CacheOptions::default()
            .bounds(bounds)
            .segment_bytes(1 << 20);
        let cache = Cache::open_with(dir.path(), options).unwrap();
        let c = &cache.upkeep;
        // A pass kept nothing, as far as the writes know.
        c.kept_bytes.store(1, Ordering::Relaxed);
        let value = "v".repeat(4000);
        let mut i = 0;
        // Past 8 MiB and two segments.
        while cache.writer.lock().segment < 10 {
            cache.put(&format!("k{}", i % 100), &value).unwrap();
            i += 1;
        }
        c.join();
        assert!(c.compaction_seals.load(Ordering::Relaxed) >= SEGMENTS_AHEAD);
        for k in 0..100 {
            assert_eq!(
                cache.get::<String>(&format!("k{k}")).unwrap(),
                Some(value.clone())
            );
        }
    }

    /// Whether the folder is mostly garbage, asked as a write seals
    /// segments, is asked in the compaction's thread (it lists the
    /// store, not the work of a put); a store that is not is left as it
    /// is, and its seals are counted from where they were.
    #[test]
    fn a_store_a_write_finds_not_mostly_garbage_is_left_as_it_was() {
        let dir = tempfile::tempdir().unwrap();
        let cache = bounded(dir.path());
        cache.put("k", &1u32).unwrap();
        for _ in 0..SEGMENTS_AHEAD {
            cache.writer.seal_now().unwrap();
        }
        let c = &cache.upkeep;
        // A pass kept more than the store holds, as far as the writes know.
        c.start_compaction_with(&cache, u64::MAX / 4, true);
        c.join_compaction();
        assert_eq!(c.compaction_seals.load(Ordering::Relaxed), 0);
        assert!(!c.compacting.load(Ordering::Acquire));
        assert_eq!(*c.compact_again.lock(), None);
        assert_eq!(cache.get::<u32>("k").unwrap(), Some(1));
    }

    /// A compaction a pass asked for while a write's check ran is the
    /// check's to run, even if the check, with what the last pass kept
    /// as the writes knew it, finds too little garbage: else it waits
    /// for the next checkpoint, and the store for its space.
    #[test]
    fn a_compaction_a_pass_asked_for_while_a_write_checked_is_run() {
        let dir = tempfile::tempdir().unwrap();
        // No bounds: no compaction of its own meanwhile.
        let cache = Cache::open(dir.path()).unwrap();
        let value = "v".repeat(4000);
        // Past 8 MiB, every line but the last garbage.
        for _ in 0..2400 {
            cache.put("k", &value).unwrap();
        }
        for _ in 0..SEGMENTS_AHEAD {
            cache.writer.seal_now().unwrap();
        }
        let seals = cache.writer.seals.load(Ordering::Relaxed);
        let c = &cache.upkeep;
        // The pass's request, made as the check started.
        *c.compact_again.lock() = Some(0);
        c.start_compaction_with(&cache, u64::MAX / 4, true);
        c.join_compaction();
        assert_eq!(c.compaction_seals.load(Ordering::Relaxed), seals);
        assert_eq!(*c.compact_again.lock(), None);
        assert!(crate::compaction::store_size(&*cache.backend).unwrap() < 1 << 20);
        assert_eq!(cache.get::<String>("k").unwrap(), Some(value));
    }

    /// A pass of the bounds that asks for a compaction while one runs is
    /// heard: the next checkpoint runs it (here it finds too little garbage
    /// to compact). Before, the request was dropped, and a store whose last
    /// pass asked kept its garbage until a later pass.
    #[test]
    fn a_compaction_asked_for_while_one_runs_is_run_by_the_next_checkpoint() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::open(dir.path()).unwrap();
        cache.put("k", &1u32).unwrap();
        let c = &cache.upkeep;
        cache
            .writer
            .one_write(|| {
                // Its seal waits for this write: it runs until the end.
                c.start_compaction(&cache, 0);
                c.start_compaction(&cache, 0);
                assert_eq!(*c.compact_again.lock(), Some(0));
                Ok(())
            })
            .unwrap();
        c.join_compaction();
        assert_eq!(*c.compact_again.lock(), Some(0));
        assert!(!c.compacting.load(Ordering::Acquire));
        cache.admin().checkpoint().unwrap();
        assert_eq!(*c.compact_again.lock(), None);
        assert_eq!(cache.get::<u32>("k").unwrap(), Some(1));
    }
}
