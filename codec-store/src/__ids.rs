//! Where the ids of writers and checkpoint tables get their random bits:
//! std's random hasher keys, or, on a thread that asked for it, a
//! generator from a seed. The store's deterministic simulation (a test)
//! seeds it, so that one seed gives the same object names, and so the
//! same run, every time; its clock too, which is in every line written
//! and so in what checkpoints record of the logs.

use std::cell::Cell;
use std::hash::BuildHasher;

thread_local! {
    /// The seeded generator's state on this thread, if seeded.
    static SEEDED: Cell<Option<u64>> = const { Cell::new(None) };
    /// Writer ids made on this thread while seeded.
    static WRITERS: Cell<u64> = const { Cell::new(0) };
    /// Times read on this thread while seeded.
    static TICKS: Cell<u64> = const { Cell::new(0) };
}

/// Where the clock of a seeded thread starts (2027-01-15, in nanoseconds
/// since the epoch).
const SEEDED_EPOCH: u64 = 1_800_000_000_000_000_000;

/// From now on, ids made on this thread take their random bits (and a
/// writer id its clock and process parts) from `seed`, and the store's
/// clock on this thread starts at a fixed time; `None` goes back
/// to random ids. For tests that replay a run from a seed: ids from one
/// seed are the same in every process, so two handles of different
/// processes must never share a seed.
pub fn seed_on_this_thread(seed: Option<u64>) {
    SEEDED.with(|s| s.set(seed));
    WRITERS.with(|w| w.set(0));
    TICKS.with(|t| t.set(0));
}

/// The time on this thread, if it is seeded: a microsecond later at each
/// reading, from a fixed start.
pub(crate) fn seeded_now() -> Option<u64> {
    SEEDED.with(|s| s.get())?;
    Some(TICKS.with(|t| {
        let n = t.get() + 1;
        t.set(n);
        SEEDED_EPOCH + n * 1_000
    }))
}

/// A writer id in the shape of the store's (clock, process, counter,
/// random bits), from the seed of this thread, if it is seeded: ordered
/// as they are made, as ids from the clock are.
pub(crate) fn seeded_writer_id() -> Option<String> {
    let bits = seeded()? as u32;
    let n = WRITERS.with(|w| {
        let n = w.get() + 1;
        w.set(n);
        n
    });
    Some(format!("{n:013x}-0-0-{bits:08x}"))
}

/// The next seeded number of this thread (splitmix64), if it is seeded.
pub(crate) fn seeded() -> Option<u64> {
    SEEDED.with(|s| {
        let state = s.get()?.wrapping_add(0x9e37_79b9_7f4a_7c15);
        s.set(Some(state));
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        Some(z ^ (z >> 31))
    })
}

/// 32 random bits for an id, the `n`th of its kind in this process.
pub(crate) fn random_bits(n: u64) -> u32 {
    match seeded() {
        Some(bits) => bits as u32,
        // std's hasher keys are random per process (and per thread).
        None => std::hash::RandomState::new().hash_one(n) as u32,
    }
}
