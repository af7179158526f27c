//! How loads read data objects: memory maps where the backend has them;
//! elsewhere (object storage, memory) exactly the byte range asked for,
//! one ranged read (kept locally where the backend is wrapped in a local
//! cache).
//!
//! Bytes that values view in place (arrays, Arrow columns, buffers kept
//! apart) come as a [`Window`]: a map of the whole file, or an owned
//! buffer holding the range at the alignment it has in the file, so that
//! what was written at a 64-byte boundary is at one in memory too.

use std::ops::{Deref, Range};
use std::sync::Arc;

use crate::backend::Mapped;

use crate::content::handler::LoadContext;
use crate::error::StoreError;
use crate::layout::ALIGN;

/// Bytes of a data file around a range: `bytes[i]` is byte `origin + i`
/// of the file, and `origin` is a multiple of 64 (so are the addresses of
/// the bytes at offsets that are).
pub(crate) struct Window {
    pub bytes: Arc<dyn Deref<Target = [u8]> + Send + Sync>,
    pub origin: u64,
}

impl Window {
    /// The bytes at `offset..offset + len` of the file; in range when the
    /// window was made for them.
    pub fn slice(&self, offset: u64, len: u64) -> &[u8] {
        let start = (offset - self.origin) as usize;
        &self.bytes[start..start + len as usize]
    }
}

/// Bytes in memory that start at a 64-byte boundary.
struct AlignedBytes {
    buf: Vec<u8>,
    start: usize,
    len: usize,
}

impl AlignedBytes {
    /// `pad` zeros, then `data`, at a 64-byte boundary.
    fn new(pad: usize, data: &[u8]) -> AlignedBytes {
        let len = pad + data.len();
        let align = ALIGN as usize;
        // Never reallocated: the address found stays the bytes' address.
        let mut buf = vec![0u8; len + align - 1];
        let start = (align - buf.as_ptr() as usize % align) % align;
        buf[start + pad..start + len].copy_from_slice(data);
        AlignedBytes { buf, start, len }
    }
}

impl Deref for AlignedBytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        &self.buf[self.start..self.start + self.len]
    }
}

impl LoadContext<'_> {
    /// Reads a whole file named in info.
    pub fn read_file(&self, name: &str) -> Result<Vec<u8>, StoreError> {
        let object = self.object(name)?;
        self.backend.read(&object)?.ok_or_else(|| {
            StoreError::io(
                self.backend.address(&object),
                std::io::ErrorKind::NotFound.into(),
            )
        })
    }

    /// Reads `len` bytes at `offset` of a file named in info, and only
    /// those (one ranged read on object storage, none when the local cache
    /// has them); a range past the file's end is a typed error.
    pub fn read_range(&self, name: &str, offset: u64, len: u64) -> Result<Vec<u8>, StoreError> {
        let object = self.object(name)?;
        let end = offset.saturating_add(len);
        let buf = self.backend.read_range(&object, offset..end)?;
        if (buf.len() as u64) < len {
            let size = match buf.len() {
                0 => format!("at most {offset} bytes"),
                n => format!("{} bytes", offset + n as u64),
            };
            return Err(self.corrupt(format!(
                "bytes {offset}..{end} of {name} are past its end ({size}); the file was truncated"
            )));
        }
        Ok(buf)
    }

    /// A memory map of the data file `name` covering at least its first
    /// `end` bytes, kept between loads and mapped again when the file has
    /// grown; a file shorter than `end` is a typed error (never a fault).
    pub(crate) fn mapped(&self, name: &str, end: u64) -> Result<Arc<Mapped>, StoreError> {
        // The object's name is made on a miss only: a warm get in place
        // allocates nothing.
        self.check_file_name(name)?;
        let map_file = || match self.backend.maps() {
            Some(maps) => Ok(maps.map(&crate::layout::data_object(name))?),
            None => Err(StoreError::unsupported(
                self.backend.location(),
                format!("entry `{}`: this store has no memory maps", self.key),
            )),
        };
        let map = self.resource(name, map_file)?;
        let map = if (map.len() as u64) < end {
            self.invalidate(name);
            self.resource(name, map_file)?
        } else {
            map
        };
        self.holds(name, &map, end)?;
        Ok(map)
    }

    /// That `map` of data file `name` holds its first `end` bytes: a
    /// shorter file was truncated, a typed error.
    fn holds(&self, name: &str, map: &Mapped, end: u64) -> Result<(), StoreError> {
        if (map.len() as u64) < end {
            return Err(self.corrupt(format!(
                "bytes up to {end} of {name} are past its end ({} bytes); the file was truncated",
                map.len()
            )));
        }
        Ok(())
    }

    /// A map of the whole of `name`, a data file of one entry, made for
    /// this read and not kept: such files are as many as their entries,
    /// and a map kept for each would hold every file read (and the disk
    /// space of every one deleted since) until the handle drops. `None`
    /// where the backend has no maps.
    pub(crate) fn map_alone(&self, name: &str, len: u64) -> Result<Option<Mapped>, StoreError> {
        let Some(maps) = self.backend.maps() else {
            return Ok(None);
        };
        self.check_file_name(name)?;
        let map = maps.map(&crate::layout::data_object(name))?;
        self.holds(name, &map, len)?;
        Ok(Some(map))
    }

    /// The bytes at `range` of data file `name`, for values that view
    /// them in place: the file's memory map where the backend has maps,
    /// else exactly the range, read into a buffer of its own.
    pub(crate) fn window(&self, name: &str, range: Range<u64>) -> Result<Window, StoreError> {
        if range.end < range.start {
            return Err(self.corrupt(format!(
                "bytes {}..{} of {name}: the range ends before it starts",
                range.start, range.end
            )));
        }
        if self.backend.maps().is_some() {
            let map = self.mapped(name, range.end)?;
            return Ok(Window {
                bytes: map,
                origin: 0,
            });
        }
        let data = self.read_range(name, range.start, range.end - range.start)?;
        let pad = range.start % ALIGN;
        Ok(Window {
            bytes: Arc::new(AlignedBytes::new(pad as usize, &data)),
            origin: range.start - pad,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aligned_bytes_start_at_a_64_byte_boundary() {
        for pad in [0, 1, 63] {
            let bytes = AlignedBytes::new(pad, &[7; 100]);
            assert_eq!(bytes.as_ptr() as usize % 64, 0);
            assert_eq!(bytes.len(), pad + 100);
            assert!(bytes[..pad].iter().all(|&b| b == 0));
            assert!(bytes[pad..].iter().all(|&b| b == 7));
        }
    }
}
