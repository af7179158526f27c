//! The run's randomness: splitmix64, written out here rather than taken
//! from a crate so that a seed replays the same run for as long as this
//! file is unchanged (a crate's generator may change between versions),
//! and so that the store's tests need no new dependency.

/// A splitmix64 generator (Steele, Lea and Flood, 2014).
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// The generator of `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// A generator of its own for one part of the run (the disk's faults,
    /// the workload's steps), so that drawing more in one part does not
    /// shift what the other draws.
    pub fn split(&mut self) -> Rng {
        Rng(self.next())
    }

    /// The next 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`0` if `n` is 0).
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            return 0;
        }
        // Multiply-shift: no modulo bias worth the name for small `n`.
        ((u128::from(self.next()) * u128::from(n)) >> 64) as u64
    }
}
