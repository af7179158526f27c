//! Byte buffers a payload keeps apart from its bytes (the cache store's
//! large buffers): what the reader returns in their place.

use std::sync::Arc;

use memmap2::Mmap;

use super::MsgpackReader;
use crate::error::DecodeError;

/// Byte buffers a payload keeps apart, in a memory map.
#[derive(Debug)]
pub(crate) struct Apart<'de> {
    /// `(at, bytes)`: the extension value at offset `at` of the payload
    /// stands for `bytes`; sorted by `at`.
    pub refs: Vec<(usize, &'de [u8])>,
    /// The map every one of the bytes lies in.
    #[cfg_attr(not(feature = "ndarray"), allow(dead_code))]
    pub map: &'de Arc<Mmap>,
}

/// A memory map, and an offset in it.
pub(crate) type MapPlace = (Arc<Mmap>, usize);

impl<'de> MsgpackReader<'de> {
    /// Reads byte buffers that the payload keeps apart (see [`Apart`]):
    /// [`read_bin`](Self::read_bin) returns them in place of their
    /// references and [`peek_kind`](Self::peek_kind) reports bytes there.
    /// The cache store keeps large buffers of a value (arrays' data) in a
    /// data file this way, read from a memory map.
    pub(crate) fn with_apart(mut self, apart: &'de Apart<'de>) -> Self {
        self.apart = Some(apart);
        self
    }

    /// The buffer kept apart whose reference starts at the current offset.
    #[cold]
    pub(super) fn apart_here(&self) -> Option<&'de [u8]> {
        let refs = &self.apart?.refs;
        let i = refs.binary_search_by_key(&self.pos, |r| r.0).ok()?;
        Some(refs[i].1)
    }

    /// [`read_bin`](Self::read_bin), and where the bytes lie when they are
    /// a buffer kept apart: the map and their offset in it, for a value
    /// that views them in place rather than copying them.
    #[cfg_attr(not(feature = "ndarray"), allow(dead_code))]
    pub(crate) fn read_bin_mapped(&mut self) -> Result<(&'de [u8], Option<MapPlace>), DecodeError> {
        if let (Some(apart), Some(bytes)) = (self.apart, self.apart_here()) {
            self.read_ext()?; // the reference itself
            let offset = bytes.as_ptr() as usize - apart.map.as_ptr() as usize;
            return Ok((bytes, Some((Arc::clone(apart.map), offset))));
        }
        Ok((self.read_bin()?, None))
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
