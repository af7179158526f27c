//! What the fuzz targets (`fuzz/`) reach that the public interface does
//! not: the local cache's files, and the checksums of the store's files,
//! put right so that hostile bytes get past them to the readers behind
//! (a hostile writer computes checksums too). Feature `fuzzing` only; not
//! a public interface.

use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use crate::backend::memory::Memory;
use crate::backend::Backend;
use crate::content::local_cache::LocalCached;
use crate::index::table;
use crate::options::LocalCache;

/// `log` with the checksum of each line that has the shape of an index
/// line (`{...,"crc":"........"}`) made right for its bytes.
pub fn seal_lines(log: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(log.len());
    for line in log.split_inclusive(|&b| b == b'\n') {
        let (text, newline) = match line.strip_suffix(b"\n") {
            Some(text) => (text, true),
            None => (line, false),
        };
        out.extend_from_slice(&crate::index::line::sealed(text));
        if newline {
            out.push(b'\n');
        }
    }
    out
}

/// A checkpoint manifest (`<json>\n<crc32 hex>\n`) with its checksum made
/// right for its JSON (everything before its last line).
pub fn seal_manifest(bytes: &[u8]) -> Vec<u8> {
    let text = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    let json = match memchr::memrchr(b'\n', text) {
        Some(split) => &text[..split],
        None => text,
    };
    let mut out = json.to_vec();
    out.extend_from_slice(format!("\n{:08x}\n", crc32fast::hash(json)).as_bytes());
    out
}

/// A checkpoint table with the checksums of its header, fences and blocks
/// made right, as far as its header's counts fit in its bytes.
pub fn seal_table(bytes: &mut [u8]) {
    table::seal(bytes)
}

/// Reads range `0..data.len()` of a data object through the local cache,
/// whose file for that range holds `file` (or the whole object, for
/// `whole`): what the cache returns must be the object's bytes, whatever
/// the file holds, unless the file is a well-formed copy of the range
/// (then it is what the file holds, which a hostile disk can forge).
pub fn local_cache_file(file: &[u8], data: &[u8], whole: bool) {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let dir = std::env::temp_dir().join(format!(
        "codec-fuzz-local-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    let inner = Memory::new();
    let name = "data/w.bin";
    inner
        .write(name, data, false)
        .expect("memory writes succeed");
    let cached = LocalCached::new(Arc::new(inner), &LocalCache::new(&dir, 1 << 20));
    let range: Range<u64> = 0..data.len() as u64;
    let at = if whole { None } else { Some(&range) };
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    std::fs::write(cached.file_of(name, at), file).expect("a temporary file");
    let read = if whole {
        cached.read(name).map(|b| b.expect("the object exists"))
    } else {
        cached.read_range(name, range.clone())
    };
    let read = read.expect("memory reads succeed");
    let forged = LocalCached::is_well_formed(file, at.map(|r| r.end - r.start));
    if forged {
        let kept = file.len() - LocalCached::trailer_of(&[]).len();
        assert_eq!(read, file[..kept], "a whole local file, cut wrong");
    } else {
        assert_eq!(read, data, "a damaged local file was returned");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `bytes` and the trailer the local cache gives them in its files.
pub fn sealed_local_file(bytes: &[u8]) -> Vec<u8> {
    let mut out = bytes.to_vec();
    out.extend_from_slice(&LocalCached::trailer_of(bytes));
    out
}
