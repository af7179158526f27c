//! A writer's shared data file: payloads appended one after another, each
//! with one write.
//!
//! On Linux, very large payloads (arrays of 64 MiB and more) are written
//! around the page cache (`O_DIRECT`, through a reused block-aligned
//! buffer), so that one value does not evict what else was cached; smaller
//! ones are buffered like the rest. Readers map the file: a page written
//! through the cache is there for a reader soon after, while a directly
//! written one costs a read from disk on first use (a millisecond on a busy
//! machine). Measured side by side on a 2-core VM (`benches/store_exca.py`,
//! 1 MiB arrays, medians of two runs): buffered puts ran at 0.4-0.9x the
//! direct ones' rate, depending on how cheap fresh pages were, and a fresh
//! handle read each array's last element 50-120x faster after them.
//! File systems without direct writes (tmpfs) get buffered ones.

use std::fs::{File, OpenOptions};
use std::io::{self, IoSlice, Write};
use std::path::Path;

/// The shared data file of one writer, opened for appending.
pub struct SharedFile {
    file: File,
    /// Where the next payload goes: the file's length.
    end: u64,
    #[cfg(target_os = "linux")]
    direct: direct::DirectWriter,
}

impl SharedFile {
    /// Opens (creating) the file at `path`, to append after its current end.
    pub fn open(path: &Path) -> io::Result<SharedFile> {
        let file = OpenOptions::new().create(true).append(true).open(path)?;
        let end = file.metadata()?.len();
        Ok(SharedFile {
            file,
            end,
            #[cfg(target_os = "linux")]
            direct: direct::DirectWriter::default(),
        })
    }

    /// Appends `bytes` at the next multiple of `align` (zeros before them);
    /// returns their offset. After an error the file may hold part of the
    /// bytes: drop this and open the file again to find its end.
    pub fn append(&mut self, path: &Path, bytes: &[u8], align: u64) -> io::Result<u64> {
        #[cfg(target_os = "linux")]
        if bytes.len() >= direct::MIN_LEN
            && let Some(offset) = self.direct.append(path, &mut self.end, bytes)?
        {
            return Ok(offset);
        }
        let _ = path; // for direct writes only
        let align = align.max(1);
        let pad = vec![0u8; ((align - self.end % align) % align) as usize];
        let offset = self.end + pad.len() as u64;
        #[cfg(target_os = "linux")]
        if bytes.len() >= PREALLOCATE_MIN {
            preallocate(&self.file, offset, bytes.len() as u64);
        }
        write_all_vectored(
            &mut self.file,
            &mut [IoSlice::new(&pad), IoSlice::new(bytes)],
        )?;
        self.end = offset + bytes.len() as u64;
        Ok(offset)
    }

    /// Where the next payload goes: the file's length.
    pub fn end(&self) -> u64 {
        self.end
    }

    /// Syncs the file's data to disk.
    pub fn sync_data(&self) -> io::Result<()> {
        self.file.sync_data()
    }
}

/// Payloads from this size on have their blocks allocated before they are
/// written. On ext4, a buffered write into blocks not yet allocated reserves
/// them page by page (a third of a 1 MiB write's time in the kernel);
/// allocated in one call first, 1 MiB writes ran 1.3x as fast and 256 KiB
/// ones 1.2x, while 64 KiB ones ran slower (2,000 appends of each size,
/// one file, 2-core VM).
#[cfg(target_os = "linux")]
const PREALLOCATE_MIN: usize = 256 << 10;

/// Allocates the blocks of `len` bytes at `offset` of `file`, keeping its
/// size: a hint, so a file system that cannot (tmpfs, some network ones)
/// is no error, and the write that follows allocates them as usual.
#[cfg(target_os = "linux")]
fn preallocate(file: &File, offset: u64, len: u64) {
    use std::os::fd::AsRawFd;
    let (Ok(offset), Ok(len)) = (libc::off_t::try_from(offset), libc::off_t::try_from(len)) else {
        return;
    };
    // SAFETY: `fallocate` reads no memory of ours; the descriptor is open
    // for as long as `file` is borrowed.
    let _ = unsafe { libc::fallocate(file.as_raw_fd(), libc::FALLOC_FL_KEEP_SIZE, offset, len) };
}

/// Writes every byte of `bufs`, in as few system calls as the OS allows.
fn write_all_vectored(file: &mut File, mut bufs: &mut [IoSlice<'_>]) -> io::Result<()> {
    IoSlice::advance_slices(&mut bufs, 0);
    while !bufs.is_empty() {
        match file.write_vectored(bufs) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(n) => IoSlice::advance_slices(&mut bufs, n),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

#[cfg(target_os = "linux")]
mod direct {
    use std::fs::{File, OpenOptions};
    use std::io;
    use std::os::unix::fs::{FileExt, OpenOptionsExt};
    use std::path::Path;

    /// Payloads from this size on are written directly: below it, readers
    /// soon after gain more from the cached pages than the copy costs.
    pub const MIN_LEN: usize = 64 << 20;
    /// The alignment of direct writes (offset, length and memory): the
    /// logical block size of common devices, or a multiple of it.
    const BLOCK: usize = 4096;
    /// The most bytes one direct write takes (the aligned buffer's size).
    const CHUNK: usize = 1 << 20;

    /// Direct writes to one file, once a large payload asks for them.
    #[derive(Default)]
    pub struct DirectWriter {
        file: Option<File>,
        /// The file system refused a direct write: write through the cache.
        pub(crate) unsupported: bool,
        /// `CHUNK` bytes at a `BLOCK` boundary somewhere in this buffer.
        buf: Vec<u8>,
    }

    impl DirectWriter {
        /// Writes `bytes` at the first block boundary from `*end`, zero-padded
        /// to whole blocks, and moves `*end` past them; `None` (nothing
        /// written) where the file system has no direct writes.
        pub fn append(
            &mut self,
            path: &Path,
            end: &mut u64,
            bytes: &[u8],
        ) -> io::Result<Option<u64>> {
            if self.unsupported {
                return Ok(None);
            }
            if self.file.is_none() {
                let opened = OpenOptions::new()
                    .write(true)
                    .custom_flags(libc::O_DIRECT)
                    .open(path);
                match opened {
                    Ok(file) => self.file = Some(file),
                    Err(e) if e.raw_os_error() == Some(libc::EINVAL) => {
                        self.unsupported = true;
                        return Ok(None);
                    }
                    Err(e) => return Err(e),
                }
            }
            if self.buf.is_empty() {
                self.buf = vec![0; CHUNK + BLOCK];
            }
            let file = self.file.as_ref().expect("opened above");
            let start = self.buf.as_ptr().align_offset(BLOCK);
            let aligned = &mut self.buf[start..start + CHUNK];
            let offset = end.next_multiple_of(BLOCK as u64);
            let mut at = offset;
            for chunk in bytes.chunks(CHUNK) {
                let padded = chunk.len().next_multiple_of(BLOCK);
                aligned[..chunk.len()].copy_from_slice(chunk);
                aligned[chunk.len()..padded].fill(0);
                match file.write_all_at(&aligned[..padded], at) {
                    Err(e) if at == offset && e.raw_os_error() == Some(libc::EINVAL) => {
                        self.unsupported = true;
                        return Ok(None);
                    }
                    result => result?,
                }
                at += padded as u64;
            }
            *end = at;
            Ok(Some(offset))
        }
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    /// How many of the 4 KiB pages of `file` in `range` are in the page cache.
    fn cached_pages(file: &File, range: std::ops::Range<usize>) -> usize {
        // SAFETY: the file is not truncated while the map lives (the test owns it).
        let map = unsafe { memmap2::Mmap::map(file) }.unwrap();
        let mut resident = vec![0u8; map.len().div_ceil(4096)];
        // SAFETY: the map spans `map.len()` bytes from its page-aligned start,
        // and `resident` holds one byte per page of it, as mincore writes.
        let rc = unsafe {
            libc::mincore(
                map.as_ptr() as *mut libc::c_void,
                map.len(),
                resident.as_mut_ptr(),
            )
        };
        assert_eq!(rc, 0, "mincore: {}", io::Error::last_os_error());
        resident[range.start / 4096..range.end.div_ceil(4096)]
            .iter()
            .filter(|&&page| page & 1 == 1)
            .count()
    }

    #[test]
    fn preallocated_payloads_land_at_their_offsets_and_the_file_keeps_its_length() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("shared.data");
        let mut shared = SharedFile::open(&path).unwrap();
        let mut expected = Vec::new();
        for (i, len) in [5, PREALLOCATE_MIN, 3, PREALLOCATE_MIN + 4097, 1 << 20, 7]
            .into_iter()
            .enumerate()
        {
            let payload: Vec<u8> = (0..len).map(|j| (i * 31 + j % 253) as u8).collect();
            let offset = shared.append(&path, &payload, 8).unwrap();
            assert_eq!(offset % 8, 0);
            expected.push((offset as usize, payload));
            // The blocks allocated ahead are not part of the file.
            assert_eq!(std::fs::metadata(&path).unwrap().len(), shared.end);
        }
        let data = std::fs::read(&path).unwrap();
        for (offset, payload) in expected {
            assert!(
                data[offset..offset + payload.len()] == payload[..],
                "at {offset}"
            );
        }
    }

    #[test]
    fn a_megabyte_payload_is_in_the_page_cache_after_its_write() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("shared.data");
        let mut shared = SharedFile::open(&path).unwrap();
        shared.append(&path, b"a small payload first", 8).unwrap();
        let payload: Vec<u8> = (0..1 << 20).map(|i| i as u8).collect();
        let offset = shared.append(&path, &payload, 8).unwrap() as usize;
        let file = File::open(&path).unwrap();
        let range = offset..offset + payload.len();
        // The pages around the payload's ends hold other bytes too: count the inner ones.
        let inner = (range.end / 4096) - range.start.div_ceil(4096);
        let inner_range = range.start.div_ceil(4096) * 4096..range.end / 4096 * 4096;
        assert_eq!(cached_pages(&file, inner_range), inner);
        assert_eq!(&std::fs::read(&path).unwrap()[range], &payload[..]);
    }

    #[test]
    fn a_very_large_payload_is_written_around_the_page_cache_and_reads_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("shared.data");
        let mut shared = SharedFile::open(&path).unwrap();
        shared.append(&path, b"a small payload first", 8).unwrap();
        let payload: Vec<u8> = (0..direct::MIN_LEN + 12_345)
            .map(|i| (i % 251) as u8)
            .collect();
        let offset = shared.append(&path, &payload, 8).unwrap() as usize;
        let after = shared.append(&path, b"and one after", 8).unwrap() as usize;
        let file = File::open(&path).unwrap();
        if !shared.direct.unsupported {
            assert_eq!(offset % 4096, 0);
            assert_eq!(cached_pages(&file, offset..offset + payload.len()), 0);
        }
        let written = std::fs::read(&path).unwrap();
        assert_eq!(&written[offset..offset + payload.len()], &payload[..]);
        assert_eq!(&written[after..], b"and one after");
    }
}
