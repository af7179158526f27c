//! Byte buffers a payload keeps apart from its bytes (the cache store's
//! large buffers): what the reader returns in their place.

use super::MsgpackReader;
use crate::error::DecodeError;

impl<'de> MsgpackReader<'de> {
    /// Reads byte buffers that the payload keeps apart: each `(at, bytes)`
    /// (sorted by `at`) says that the extension value at offset `at` stands
    /// for `bytes`. [`read_bin`](Self::read_bin) returns them in its place
    /// and [`peek_kind`](Self::peek_kind) reports bytes there. The cache
    /// store keeps large buffers of a value (arrays' data) in a data file
    /// this way, read from a memory map.
    pub(crate) fn with_apart(mut self, apart: &'de [(usize, &'de [u8])]) -> Self {
        self.apart = apart;
        self
    }

    /// The buffer kept apart whose reference starts at the current offset.
    #[cold]
    pub(super) fn apart_here(&self) -> Option<&'de [u8]> {
        let apart = self.apart;
        let i = apart.binary_search_by_key(&self.pos, |r| r.0).ok()?;
        Some(apart[i].1)
    }

    /// [`read_bin`](Self::read_bin) at a value that is not `bin`: a buffer
    /// kept apart, or an error.
    #[cold]
    pub(super) fn read_bin_apart(&mut self) -> Result<&'de [u8], DecodeError> {
        match self.apart_here() {
            Some(bytes) => {
                self.read_ext()?; // the reference itself
                Ok(bytes)
            }
            None => Err(self.unexpected("bytes")),
        }
    }
}
