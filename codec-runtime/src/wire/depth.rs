//! The nesting budget of a reader: how many more levels of arrays, maps and
//! wrappers it accepts before the input is refused as too deep.
//!
//! Readers spend it through their [`Cursor`](super::Cursor), in their
//! `nested` method, which gives the level back when the closure it runs
//! returns, whether with a value or an error (as serde_json's
//! `check_recursion!` does): a level cannot be left unpaired.

/// The depth limit readers start with: as serde_json's recursion limit.
#[doc(hidden)]
pub const DEFAULT_DEPTH_LIMIT: u32 = 128;

/// How many levels of nesting a reader still accepts, out of its limit.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Depth {
    remaining: u32,
    limit: u32,
}

impl Depth {
    /// A budget of `limit` levels.
    pub(crate) fn new(limit: u32) -> Self {
        Depth {
            remaining: limit,
            limit,
        }
    }

    /// The limit the budget started with, for the error that reports it.
    pub(crate) fn limit(&self) -> u32 {
        self.limit
    }

    /// How many levels are left.
    #[inline]
    pub(crate) fn remaining(&self) -> u32 {
        self.remaining
    }

    /// Takes one level; false, and nothing taken, when none is left.
    #[inline(always)]
    #[must_use]
    pub(crate) fn enter(&mut self) -> bool {
        if self.remaining == 0 {
            return false;
        }
        self.remaining -= 1;
        true
    }

    /// Gives back a level taken by [`enter`](Self::enter).
    #[inline(always)]
    pub(crate) fn leave(&mut self) {
        self.remaining += 1;
    }
}
