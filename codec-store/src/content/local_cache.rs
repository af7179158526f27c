//! A local read-through cache of the data objects of a store on object
//! storage ([`CacheOptions::local_cache`](crate::CacheOptions::local_cache)):
//! a [`Backend`] that wraps the store's ([`LocalCached`]), through which
//! loads read.
//!
//! Data objects there are immutable and their names never reused (each is
//! created once, under its writer's id and a sequence number), so a range
//! read once is the same range forever: the local copy never goes stale
//! and needs no validation against the server, only against damage on
//! the local disk.
//!
//! Each range read is one file, named by a hash of the store's location,
//! the object's name and the range (so caches of several stores, and
//! several processes, can share one folder). A file is the bytes, then a
//! trailer: their CRC-32, their length, and a marker. It is written to a
//! temporary file and renamed into place, so a reader sees it whole or
//! not at all (a killed writer leaves a temporary file, deleted later).
//! A file whose trailer does not match its bytes (a disk error, a torn
//! write after a power loss) is deleted and the range read again, never
//! returned. Reading a file sets its modification time: past `max_bytes`,
//! the files read least recently are deleted.

use parking_lot::Mutex;
use std::fs::{self, File};
use std::io::{self, Read as _, Write as _};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use sha2::Digest as _;

use crate::backend::{
    Appender, Appends, Backend, BackendError, Created, Listed, Locks, Maps, Replaced, Version,
};
use crate::layout;
use crate::options::LocalCache;

/// What ends each file: CRC-32 and length of the bytes (little-endian),
/// then this marker.
const MARKER: &[u8; 4] = b"cdlc";
const TRAILER: usize = 4 + 8 + MARKER.len();
/// The suffix of complete files; temporary ones end in `.tmp`.
const SUFFIX: &str = ".bin";
const TMP_SUFFIX: &str = ".tmp";
/// Temporary files older than this were left by a killed process.
const STALE_TMP: Duration = Duration::from_secs(3600);

/// The store of `inner`, its data objects kept on the local disk as they
/// are read (whole or by range): a read kept costs no request. Every
/// other call goes to `inner` as it is, capabilities included.
pub(crate) struct LocalCached {
    inner: Arc<dyn Backend>,
    files: LocalFiles,
}

impl LocalCached {
    /// `inner` behind the local cache `options` ask for.
    pub fn new(inner: Arc<dyn Backend>, options: &LocalCache) -> LocalCached {
        let files = LocalFiles {
            dir: options.dir.clone(),
            max_bytes: options.max_bytes,
            location: inner.location(),
            usage: Mutex::default(),
        };
        LocalCached { inner, files }
    }
}

#[cfg(feature = "fuzzing")]
impl LocalCached {
    /// The file that keeps `range` of object `name`.
    pub fn file_of(&self, name: &str, range: Option<&Range<u64>>) -> PathBuf {
        self.files.path(name, range)
    }

    /// Whether `contents` is a file the cache returns for a range of
    /// `expected` bytes (any length for `None`).
    pub fn is_well_formed(contents: &[u8], expected: Option<u64>) -> bool {
        check(&mut contents.to_vec(), expected).is_ok()
    }

    /// The trailer of a file holding `bytes`.
    pub fn trailer_of(bytes: &[u8]) -> Vec<u8> {
        trailer(bytes).to_vec()
    }
}

/// Whether object `name` is a data object: created once, never changed,
/// its name never reused.
fn is_data(name: &str) -> bool {
    name.strip_prefix(layout::DATA)
        .is_some_and(|rest| rest.starts_with('/'))
}

// Every method is forwarded, those with defaults too: a wrapper that
// forgot one would quietly take the default (no maps, no locks) instead
// of the inner backend's answer.
impl Backend for LocalCached {
    fn location(&self) -> String {
        self.inner.location()
    }

    fn address(&self, name: &str) -> String {
        self.inner.address(name)
    }

    fn read(&self, name: &str) -> Result<Option<Vec<u8>>, BackendError> {
        if !is_data(name) {
            return self.inner.read(name);
        }
        if let Some(kept) = self.files.get(name, None) {
            return Ok(Some(kept));
        }
        let bytes = self.inner.read(name)?;
        if let Some(bytes) = &bytes {
            self.files.put(name, None, bytes);
        }
        Ok(bytes)
    }

    fn read_range(&self, name: &str, range: Range<u64>) -> Result<Vec<u8>, BackendError> {
        if !is_data(name) {
            return self.inner.read_range(name, range);
        }
        if let Some(kept) = self.files.get(name, Some(&range)) {
            return Ok(kept);
        }
        let bytes = self.inner.read_range(name, range.clone())?;
        // A short read (past the object's end) is the caller's error to
        // report, never kept.
        if bytes.len() as u64 == range.end - range.start {
            self.files.put(name, Some(&range), &bytes);
        }
        Ok(bytes)
    }

    fn list(&self, prefix: &str) -> Result<Vec<Listed>, BackendError> {
        self.inner.list(prefix)
    }

    fn write(&self, name: &str, bytes: &[u8], sync: bool) -> Result<(), BackendError> {
        self.inner.write(name, bytes, sync)
    }

    fn create(&self, name: &str, bytes: &[u8], sync: bool) -> Result<Created, BackendError> {
        self.inner.create(name, bytes, sync)
    }

    fn read_versioned(&self, name: &str) -> Result<Option<(Vec<u8>, Version)>, BackendError> {
        self.inner.read_versioned(name)
    }

    fn replace(
        &self,
        name: &str,
        bytes: &[u8],
        version: &Version,
    ) -> Result<Replaced, BackendError> {
        self.inner.replace(name, bytes, version)
    }

    fn delete(&self, name: &str) -> Result<(), BackendError> {
        self.inner.delete(name)
    }

    fn append_to(&self, name: &str) -> Result<Box<dyn Appender>, BackendError> {
        self.inner.append_to(name)
    }

    fn appends(&self) -> Appends {
        self.inner.appends()
    }

    fn maps(&self) -> Option<&dyn Maps> {
        self.inner.maps()
    }

    fn locks(&self) -> Option<&dyn Locks> {
        self.inner.locks()
    }

    fn file_path(&self, name: &str) -> Option<PathBuf> {
        self.inner.file_path(name)
    }

    fn concurrent_reads(&self) -> bool {
        self.inner.concurrent_reads()
    }

    fn version(&self, name: &str) -> Result<Option<Version>, BackendError> {
        self.inner.version(name)
    }

    fn foreign(&self) -> Result<Option<String>, BackendError> {
        self.inner.foreign()
    }

    fn sync(&self, names: &[String]) -> Result<(), BackendError> {
        self.inner.sync(names)
    }

    fn take_up_log(&self, logs: &[String]) -> Result<Option<Box<dyn Appender>>, BackendError> {
        self.inner.take_up_log(logs)
    }
}

/// The files of a local cache.
#[derive(Debug)]
struct LocalFiles {
    dir: PathBuf,
    max_bytes: u64,
    /// The store's location: names the objects of this store apart from
    /// those of other stores in a shared folder.
    location: String,
    usage: Mutex<Usage>,
}

/// What this handle knows of the folder's size.
#[derive(Debug, Default)]
struct Usage {
    /// The bytes of files found by the last scan, if any.
    scanned: Option<u64>,
    /// The bytes this handle wrote since.
    added: u64,
}

impl LocalFiles {
    /// The kept bytes of `range` of object `name` (of the whole object for
    /// `None`), if a file holds them whole and undamaged. A damaged file is
    /// deleted, with a warning in the log.
    pub fn get(&self, name: &str, range: Option<&Range<u64>>) -> Option<Vec<u8>> {
        let path = self.path(name, range);
        let mut file = File::open(&path).ok()?;
        let mut bytes = Vec::new();
        if let Err(e) = file.read_to_end(&mut bytes) {
            log::warn!(target: "codec::store", "local cache file {}: {e}", path.display());
            return None;
        }
        let expected = range.map(|r| r.end - r.start);
        match check(&mut bytes, expected) {
            Ok(()) => {
                // The least recently read go first: this one was read now.
                let _ = file.set_modified(SystemTime::now());
                Some(bytes)
            }
            Err(why) => {
                log::warn!(
                    target: "codec::store",
                    "local cache file {} of {name} is damaged ({why}): deleted, read again",
                    path.display()
                );
                let _ = fs::remove_file(&path);
                None
            }
        }
    }

    /// Keeps `bytes`, read from `range` of object `name` (the whole object
    /// for `None`). A failure only costs the copy: it is logged.
    pub fn put(&self, name: &str, range: Option<&Range<u64>>, bytes: &[u8]) {
        let size = (bytes.len() + TRAILER) as u64;
        if size > self.max_bytes {
            return;
        }
        let path = self.path(name, range);
        if let Err(e) = self.write(&path, bytes) {
            log::warn!(target: "codec::store", "local cache file {}: {e}", path.display());
            return;
        }
        let mut usage = self.usage.lock();
        usage.added += size;
        let full = match usage.scanned {
            Some(scanned) => scanned + usage.added > self.max_bytes,
            None => true, // the first write of this handle: learn the folder's size
        };
        if full {
            match self.evict() {
                Ok(left) => {
                    *usage = Usage {
                        scanned: Some(left),
                        added: 0,
                    }
                }
                Err(e) => log::warn!(
                    target: "codec::store",
                    "local cache folder {}: {e}",
                    self.dir.display()
                ),
            }
        }
    }

    /// The file of `range` of object `name`.
    fn path(&self, name: &str, range: Option<&Range<u64>>) -> PathBuf {
        let mut hash = sha2::Sha256::new();
        hash.update(self.location.as_bytes());
        hash.update(b"\n");
        hash.update(name.as_bytes());
        match range {
            Some(r) => hash.update(format!("\n{}..{}", r.start, r.end)),
            None => hash.update(b"\nwhole"),
        }
        let hex: String = hash.finalize()[..16]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        self.dir.join(hex + SUFFIX)
    }

    /// Writes `bytes` and their trailer to `path`, through a temporary file
    /// renamed into place.
    fn write(&self, path: &Path, bytes: &[u8]) -> io::Result<()> {
        fs::create_dir_all(&self.dir)?;
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let tmp = path.with_extension(format!(
            "{}.{}{TMP_SUFFIX}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let written = (|| {
            let mut file = File::create(&tmp)?;
            file.write_all(bytes)?;
            file.write_all(&trailer(bytes))?;
            drop(file);
            fs::rename(&tmp, path)
        })();
        if written.is_err() {
            let _ = fs::remove_file(&tmp);
        }
        written
    }

    /// Deletes the files read least recently until the folder holds at
    /// most nine tenths of `max_bytes` (so that the next writes do not
    /// scan it again at once), and temporary files left by killed
    /// processes; returns the bytes left.
    fn evict(&self) -> io::Result<u64> {
        let mut files = Vec::new();
        let mut total = 0;
        let now = SystemTime::now();
        for entry in fs::read_dir(&self.dir)? {
            let entry = entry?;
            let name = entry.file_name();
            let name = name.to_string_lossy();
            let Ok(meta) = entry.metadata() else {
                continue; // deleted meanwhile
            };
            let modified = meta.modified().unwrap_or(now);
            if name.ends_with(TMP_SUFFIX) {
                let age = now.duration_since(modified).unwrap_or_default();
                if age > STALE_TMP {
                    let _ = fs::remove_file(entry.path());
                }
            } else if name.ends_with(SUFFIX) && meta.is_file() {
                total += meta.len();
                files.push((modified, meta.len(), entry.path()));
            }
        }
        if total <= self.max_bytes {
            return Ok(total);
        }
        Ok(remove_oldest(files, total, self.max_bytes / 10 * 9))
    }
}

/// Removes the oldest of `files` (time read, length, path), which hold
/// `total` bytes, until at most `target` are left; returns the bytes left.
/// A file already gone (another process evicted it) counts as removed;
/// one that cannot be removed counts as kept.
fn remove_oldest(mut files: Vec<(SystemTime, u64, PathBuf)>, mut total: u64, target: u64) -> u64 {
    files.sort();
    for (_, len, path) in files {
        if total <= target {
            break;
        }
        match fs::remove_file(&path) {
            Ok(()) => total -= len,
            Err(e) if e.kind() == io::ErrorKind::NotFound => total -= len,
            Err(_) => {}
        }
    }
    total
}

fn trailer(bytes: &[u8]) -> [u8; TRAILER] {
    let mut out = [0; TRAILER];
    out[..4].copy_from_slice(&crc32fast::hash(bytes).to_le_bytes());
    out[4..12].copy_from_slice(&(bytes.len() as u64).to_le_bytes());
    out[12..].copy_from_slice(MARKER);
    out
}

/// Checks the trailer of a file's contents (and their length against
/// `expected`, if known), and cuts it off.
fn check(contents: &mut Vec<u8>, expected: Option<u64>) -> Result<(), String> {
    let Some(len) = contents.len().checked_sub(TRAILER) else {
        return Err(format!(
            "{} bytes, shorter than its trailer",
            contents.len()
        ));
    };
    let stored: [u8; TRAILER] = contents[len..].try_into().expect("TRAILER bytes");
    if stored != trailer(&contents[..len]) {
        return Err("its CRC-32 or length does not match its bytes".into());
    }
    if expected.is_some_and(|e| e != len as u64) {
        return Err(format!("{len} bytes, not the {expected:?} of the range"));
    }
    contents.truncate(len);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::folder::Folder;
    use crate::backend::memory::Memory;

    #[test]
    fn the_wrapper_answers_as_the_backend_it_wraps() {
        let dir = tempfile::tempdir().unwrap();
        let local = LocalCache::new(dir.path().join("local"), 1 << 20);
        // A folder that holds a file of someone else's (`foreign`).
        let folder = dir.path().join("store");
        fs::create_dir(&folder).unwrap();
        fs::write(folder.join("holiday.jpg"), b"a picture").unwrap();
        let inners: [Arc<dyn Backend>; 2] = [
            Arc::new(Folder::new(folder.clone())),
            Arc::new(Memory::new()),
        ];
        for inner in inners {
            let wrapped = LocalCached::new(inner.clone(), &local);
            assert_eq!(wrapped.location(), inner.location());
            assert_eq!(wrapped.address("data/a"), inner.address("data/a"));
            assert_eq!(wrapped.appends(), inner.appends());
            assert_eq!(wrapped.maps().is_some(), inner.maps().is_some());
            assert_eq!(wrapped.locks().is_some(), inner.locks().is_some());
            assert_eq!(wrapped.file_path("data/a"), inner.file_path("data/a"));
            assert_eq!(wrapped.concurrent_reads(), inner.concurrent_reads());
            assert_eq!(wrapped.foreign().unwrap(), inner.foreign().unwrap());
            // A folder refuses to sync a name that leaves it.
            let outside = ["../outside".to_owned()];
            assert_eq!(
                wrapped.sync(&outside).is_err(),
                inner.sync(&outside).is_err()
            );
            // A folder takes up a log no live writer holds.
            inner.write("logs/w.log", b"", false).unwrap();
            let logs = ["logs/w.log".to_owned()];
            // (One at a time: the log taken up holds its lock.)
            let taken_up = wrapped.take_up_log(&logs).unwrap().is_some();
            assert_eq!(taken_up, inner.take_up_log(&logs).unwrap().is_some());
            inner.write("data/a.bin", b"bytes", false).unwrap();
            assert_eq!(
                wrapped.version("data/a.bin").unwrap(),
                inner.version("data/a.bin").unwrap()
            );
            assert_eq!(wrapped.list("data/").unwrap(), inner.list("data/").unwrap());
            assert_eq!(wrapped.read_range("data/a.bin", 1..3).unwrap(), b"yt");
            assert_eq!(wrapped.read("data/a.bin").unwrap().unwrap(), b"bytes");
            // Kept: read again once the object is gone.
            inner.delete("data/a.bin").unwrap();
            assert_eq!(wrapped.read_range("data/a.bin", 1..3).unwrap(), b"yt");
            assert_eq!(wrapped.read("data/a.bin").unwrap().unwrap(), b"bytes");

            // Other objects change: written and read through, never kept.
            wrapped.write("meta", b"one", false).unwrap();
            assert_eq!(inner.read("meta").unwrap().unwrap(), b"one");
            assert_eq!(wrapped.read("meta").unwrap().unwrap(), b"one");
            inner.write("meta", b"two", false).unwrap();
            assert_eq!(wrapped.read("meta").unwrap().unwrap(), b"two");
            assert_eq!(
                wrapped.read_versioned("meta").unwrap(),
                inner.read_versioned("meta").unwrap()
            );
        }
    }

    /// The fuzz targets' entry points judge files as the cache does.
    #[cfg(feature = "fuzzing")]
    #[test]
    fn the_fuzz_entry_points_agree_with_the_cache() {
        use crate::__fuzz::{local_cache_file, sealed_local_file};
        let data = b"the bytes of a data object";
        let forged = sealed_local_file(b"forged bytes of an object!");
        assert!(LocalCached::is_well_formed(
            &forged,
            Some(data.len() as u64)
        ));
        assert!(!LocalCached::is_well_formed(&forged, Some(3)));
        assert!(!LocalCached::is_well_formed(b"no trailer", None));
        for whole in [true, false] {
            // Each checks what the cache returns against `is_well_formed`.
            local_cache_file(&forged, data, whole);
            local_cache_file(b"no trailer", data, whole);
        }
    }

    #[test]
    fn damaged_files_are_refused() {
        let bytes = b"some bytes of a data object".to_vec();
        let mut good = bytes.clone();
        good.extend_from_slice(&trailer(&bytes));
        let mut ok = good.clone();
        assert_eq!(check(&mut ok, Some(bytes.len() as u64)), Ok(()));
        assert_eq!(ok, bytes);
        for damaged in [
            {
                let mut d = good.clone();
                d[3] ^= 1; // a flipped bit
                d
            },
            good[..good.len() - 1].to_vec(), // cut short
            good[5..].to_vec(),              // lost its start
            Vec::new(),
        ] {
            let mut d = damaged;
            assert!(check(&mut d, None).is_err());
        }
        // Whole, but not the length of the range asked for.
        assert!(check(&mut good.clone(), Some(3)).is_err());
    }

    #[test]
    fn eviction_counts_a_file_gone_as_removed_and_one_it_cannot_remove_as_kept() {
        let dir = tempfile::tempdir().unwrap();
        let t = |s| SystemTime::UNIX_EPOCH + Duration::from_secs(s);
        let (old, gone, stuck, new) = (
            dir.path().join("old.bin"),
            dir.path().join("gone.bin"),
            dir.path().join("stuck.bin"),
            dir.path().join("new.bin"),
        );
        fs::write(&old, [0; 10]).unwrap();
        fs::write(&new, [0; 40]).unwrap();
        // A folder cannot be removed as a file, not even by root.
        fs::create_dir(&stuck).unwrap();
        let files = vec![
            (t(4), 40, new.clone()),
            (t(3), 30, stuck.clone()),
            (t(1), 10, old.clone()),
            (t(2), 20, gone),
        ];
        // Oldest first: `old` is removed, `gone` was removed by another
        // process, `stuck` stays and its bytes with it, `new` goes too.
        assert_eq!(remove_oldest(files.clone(), 100, 35), 30);
        assert!(!old.exists() && !new.exists() && stuck.is_dir());
        // Nothing is removed once the target is met.
        fs::write(&new, [0; 40]).unwrap();
        assert_eq!(remove_oldest(files, 100, 100), 100);
        assert!(new.exists());
    }
}
