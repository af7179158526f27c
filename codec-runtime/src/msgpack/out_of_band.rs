//! Byte buffers kept out of band: a holder of MessagePack payloads (the
//! cache store) may keep a value's large `bin` values (arrays' data) apart
//! from the rest of it, each replaced in the payload by a reference (an
//! extension value) whose meaning only the holder knows.
//!
//! Writing, [`MsgpackWriter::tracking_large_bins`] lists where each large
//! `bin` of an encoding lies, so the holder can cut them out. Reading,
//! [`MsgpackReader::with_out_of_band`] gives the reader the buffers by the
//! offset of their references: `read_bin` returns a buffer where its
//! reference stands, and `peek_kind` says bytes. The buffers lie in one
//! [`Backing`] (for the store, a memory map), which a value may share to
//! view its bytes in place rather than copy them.
//!
//! The writer keeps its list in a thread-local rather than in
//! [`MsgpackWriter`], which stays a bare `Vec`: every encode makes one, and
//! a larger writer measurably slows short ones.

use std::cell::RefCell;
use std::ops::Deref;
use std::sync::Arc;

use super::{MsgpackReader, MsgpackWriter};
use crate::error::DecodeError;

/// The shortest `bin` a tracking writer lists (see
/// [`MsgpackWriter::tracking_large_bins`]): shorter ones cost `write_bin`
/// one comparison, nothing more.
pub const LARGE_BIN_FLOOR: usize = 4096;

/// Where [`MsgpackWriter::write_bin`] put a large buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LargeBin {
    /// Offset of the `bin` marker.
    pub start: usize,
    /// Offset of the first byte of the buffer.
    pub data: usize,
    /// Offset just past the buffer.
    pub end: usize,
}

/// The writer whose large `bin` values are being listed, on this thread.
struct Tracking {
    /// Compared, never dereferenced.
    writer: *const MsgpackWriter,
    min: usize,
    found: Vec<LargeBin>,
}

thread_local! {
    static TRACKING: RefCell<Option<Tracking>> = const { RefCell::new(None) };
}

impl MsgpackWriter {
    /// Runs `encode` on this writer, listing the `bin` values of at least
    /// `min` bytes (and [`LARGE_BIN_FLOOR`]) it writes: the cache store
    /// keeps such buffers (arrays' data) apart from the rest of a value.
    /// Buffers written by other writers meanwhile (a nested encoding) are
    /// not listed.
    #[doc(hidden)]
    pub fn tracking_large_bins<R>(
        &mut self,
        min: usize,
        encode: impl FnOnce(&mut Self) -> R,
    ) -> (R, Vec<LargeBin>) {
        /// Puts back the tracking this call replaced, even on a panic.
        struct Restore(Option<Option<Tracking>>);
        impl Drop for Restore {
            fn drop(&mut self) {
                if let Some(previous) = self.0.take() {
                    let _ = TRACKING.try_with(|t| t.replace(previous));
                }
            }
        }
        let mine = Tracking {
            writer: self,
            min: min.max(LARGE_BIN_FLOOR),
            found: Vec::new(),
        };
        let mut restore = Restore(Some(TRACKING.with(|t| t.replace(Some(mine)))));
        let result = encode(self);
        let previous = restore.0.take().expect("set above");
        let found = TRACKING.with(|t| t.replace(previous));
        (result, found.map(|t| t.found).unwrap_or_default())
    }

    #[cold]
    pub(super) fn note_large_bin(&self, bin: LargeBin) {
        let _ = TRACKING.try_with(|t| {
            if let Ok(mut t) = t.try_borrow_mut()
                && let Some(t) = t.as_mut().filter(|t| std::ptr::eq(t.writer, self))
                && bin.end - bin.data >= t.min
            {
                t.found.push(bin);
            }
        });
    }
}

/// What every buffer kept out of band lies in (for the cache store, a
/// memory map of its data file), shared with values that view their bytes
/// in place.
pub type Backing = Arc<dyn Deref<Target = [u8]> + Send + Sync>;

/// Where the bytes of a buffer kept out of band lie: its backing, and their
/// offset in it.
pub type Place = (Backing, usize);

/// The buffers a payload keeps out of band, for its reader.
pub struct OutOfBand<'de> {
    /// `(at, bytes)`: the extension value at offset `at` of the payload
    /// stands for `bytes`; sorted by `at`.
    pub refs: Vec<(usize, &'de [u8])>,
    /// What every one of the bytes lies in.
    #[cfg_attr(not(feature = "ndarray"), allow(dead_code))]
    pub backing: Backing,
}

impl std::fmt::Debug for OutOfBand<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let at: Vec<usize> = self.refs.iter().map(|r| r.0).collect();
        f.debug_struct("OutOfBand").field("refs_at", &at).finish()
    }
}

impl<'de> MsgpackReader<'de> {
    /// Reads the payload with the buffers it keeps out of band:
    /// [`read_bin`](Self::read_bin) returns each in place of its reference
    /// and [`peek_kind`](Self::peek_kind) reports bytes there.
    #[doc(hidden)]
    pub fn with_out_of_band(mut self, out_of_band: &'de OutOfBand<'de>) -> Self {
        self.out_of_band = Some(out_of_band);
        self
    }

    /// The buffer kept out of band whose reference starts at the current
    /// offset.
    #[cold]
    pub(super) fn out_of_band_here(&self) -> Option<&'de [u8]> {
        let refs = &self.out_of_band?.refs;
        let i = refs.binary_search_by_key(&self.cursor.pos, |r| r.0).ok()?;
        Some(refs[i].1)
    }

    /// [`read_bin`](Self::read_bin), and where the bytes lie when they are
    /// a buffer kept out of band: its backing and their offset in it, for a
    /// value that views them in place rather than copying them.
    #[cfg_attr(not(feature = "ndarray"), allow(dead_code))]
    #[doc(hidden)]
    pub fn read_bin_in_backing(&mut self) -> Result<(&'de [u8], Option<Place>), DecodeError> {
        if let (Some(out_of_band), Some(bytes)) = (self.out_of_band, self.out_of_band_here()) {
            self.read_ext()?; // the reference itself
            let offset = bytes.as_ptr() as usize - out_of_band.backing.as_ptr() as usize;
            return Ok((bytes, Some((Arc::clone(&out_of_band.backing), offset))));
        }
        Ok((self.read_bin()?, None))
    }

    /// [`read_bin`](Self::read_bin) at a value that is not `bin`: a buffer
    /// kept out of band, or an error.
    #[cold]
    pub(super) fn read_bin_out_of_band(&mut self) -> Result<&'de [u8], DecodeError> {
        match self.out_of_band_here() {
            Some(bytes) => {
                self.read_ext()?; // the reference itself
                Ok(bytes)
            }
            None => Err(self.unexpected("bytes")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tracking_lists_large_bins_of_its_own_writer_only() {
        let big = vec![1u8; LARGE_BIN_FLOOR];
        let mut w = MsgpackWriter::default();
        let ((), found) = w.tracking_large_bins(0, |w| {
            w.write_array_len(4).unwrap();
            w.write_bin(&big[..10]).unwrap(); // below the floor
            w.write_bin(&big).unwrap();
            // A nested writer, tracking or not, lists nothing here.
            let mut inner = MsgpackWriter::default();
            inner.write_bin(&big).unwrap();
            let ((), inner_found) = inner.tracking_large_bins(0, |i| i.write_bin(&big).unwrap());
            assert_eq!(inner_found.len(), 1);
            w.write_raw(&inner.into_inner());
            w.write_bin(&big).unwrap();
        });
        let bytes = w.into_inner();
        assert_eq!(found.len(), 2, "{found:?}");
        for bin in &found {
            assert_eq!(bytes[bin.start], 0xc5); // bin16
            assert_eq!(&bytes[bin.data..bin.end], &big[..]);
        }
        // Nothing tracked once the call has returned.
        let mut after = MsgpackWriter::default();
        after.write_bin(&big).unwrap();
        assert!(TRACKING.with(|t| t.borrow().is_none()));
    }
}
