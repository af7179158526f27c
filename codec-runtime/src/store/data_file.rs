//! A writer's shared data file: payloads appended one after another, each
//! with one write.
//!
//! On Linux, large payloads (arrays, mostly) are written around the page
//! cache (`O_DIRECT`, through a reused block-aligned buffer): a buffered
//! write of a fresh megabyte fills 256 new page-cache pages, each one
//! allocated and faulted in, which costs more than the write itself, most
//! of all in virtual machines, and the pages evict whatever was cached.
//! Readers still map the file; their pages load from disk on first use.
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
        if bytes.len() >= direct::MIN_LEN {
            if let Some(offset) = self.direct.append(path, &mut self.end, bytes)? {
                return Ok(offset);
            }
        }
        let _ = path; // for direct writes only
        let align = align.max(1);
        let pad = vec![0u8; ((align - self.end % align) % align) as usize];
        let offset = self.end + pad.len() as u64;
        write_all_vectored(
            &mut self.file,
            &mut [IoSlice::new(&pad), IoSlice::new(bytes)],
        )?;
        self.end = offset + bytes.len() as u64;
        Ok(offset)
    }

    /// Syncs the file's data to disk.
    pub fn sync_data(&self) -> io::Result<()> {
        self.file.sync_data()
    }
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

    /// Payloads from this size on are written directly: below it, the
    /// page-cache copy costs less than waiting for the device.
    pub const MIN_LEN: usize = 256 * 1024;
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
        unsupported: bool,
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
