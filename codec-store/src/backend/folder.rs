//! The folder backend: objects are files under the store's folder.
//!
//! Beyond the seam it offers appends in place, memory maps of its files,
//! file locks (a live writer holds its log's; a log nobody holds is taken
//! up by the next handle; handles share `codec-store.lock`, which a
//! compaction takes alone) and, through the shared data file, direct
//! writes of large payloads.

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::backend::data_file::SharedFile;
use crate::backend::{
    checked_name, Appended, Appender, Appends, Backend, BackendError, Created, Listed, Lock,
    Locking, Locks, LogAhead, Mapped, Maps, Replaced, Version,
};
use crate::layout;

/// A store in a folder of the local file system (or a shared one).
#[derive(Debug, Clone)]
pub struct Folder {
    root: PathBuf,
}

impl Folder {
    /// The store in folder `root` (not created here).
    pub fn new(root: impl Into<PathBuf>) -> Folder {
        Folder { root: root.into() }
    }

    /// The path of object `name`.
    pub fn path(&self, name: &str) -> PathBuf {
        self.root.join(name)
    }

    fn checked(&self, op: &'static str, name: &str) -> Result<PathBuf, BackendError> {
        checked_name(self, op, name)?;
        Ok(self.path(name))
    }

    fn error(&self, op: &'static str, path: &Path, e: io::Error) -> BackendError {
        BackendError::new(op, path.display().to_string(), e)
    }

    /// A name of its own for a file written aside before it takes its name.
    fn aside(path: &Path) -> PathBuf {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let mut name = path.as_os_str().to_owned();
        name.push(format!(".{}-{n}{}", std::process::id(), layout::TMP_SUFFIX));
        PathBuf::from(name)
    }

    /// Writes `bytes` to a new file beside `path`, returning its path.
    fn write_aside(&self, path: &Path, bytes: &[u8], sync: bool) -> io::Result<PathBuf> {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        let tmp = Self::aside(path);
        let written = File::create(&tmp).and_then(|mut file| {
            file.write_all(bytes)?;
            if sync {
                file.sync_all()?;
            }
            Ok(())
        });
        match written {
            Ok(()) => Ok(tmp),
            Err(e) => {
                let _ = std::fs::remove_file(&tmp);
                Err(e)
            }
        }
    }
}

/// The largest range [`Folder::read_range`] reads without the file's size.
const UNCHECKED_READ: u64 = 1 << 20;

/// Reads into `buf` from `offset` of `file` until `buf` is full or the
/// file ends (positioned reads: the file's cursor is not used); how many
/// bytes were read.
fn read_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    #[cfg(unix)]
    use std::os::unix::fs::FileExt;
    #[cfg(windows)]
    use std::os::windows::fs::FileExt;
    let mut done = 0;
    while done < buf.len() {
        #[cfg(unix)]
        let n = file.read_at(&mut buf[done..], offset + done as u64);
        #[cfg(windows)]
        let n = file.seek_read(&mut buf[done..], offset + done as u64);
        match n {
            Ok(0) => break,
            Ok(n) => done += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(done)
}

/// A file's version: its inode, modification time and length (a file is
/// replaced by renaming a new one onto it, so its inode changes).
fn version_of(file: &File) -> io::Result<Version> {
    Ok(version_of_meta(&file.metadata()?))
}

/// [`version_of`] from a file's metadata.
fn version_of_meta(meta: &std::fs::Metadata) -> Version {
    #[cfg(unix)]
    let id = {
        use std::os::unix::fs::MetadataExt;
        format!("{}-{}.{}", meta.ino(), meta.mtime(), meta.mtime_nsec())
    };
    #[cfg(not(unix))]
    let id = format!("{:?}", meta.modified().ok());
    Version(format!("{id}-{}", meta.len()))
}

impl Backend for Folder {
    fn location(&self) -> String {
        self.root.display().to_string()
    }

    fn address(&self, name: &str) -> String {
        self.path(name).display().to_string()
    }

    fn read(&self, name: &str) -> Result<Option<Vec<u8>>, BackendError> {
        let path = self.checked("read", name)?;
        match std::fs::read(&path) {
            Ok(bytes) => Ok(Some(bytes)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(self.error("read", &path, e)),
        }
    }

    fn read_range(&self, name: &str, range: Range<u64>) -> Result<Vec<u8>, BackendError> {
        let path = self.checked("read", name)?;
        let read = || -> io::Result<Vec<u8>> {
            let file = File::open(&path)?;
            let asked = range.end.saturating_sub(range.start);
            // Never much more than the file holds: a length from a damaged
            // line must not allocate what is not there. Up to 1 MiB is
            // read without asking the file's size, a call fewer on every
            // get of a payload in a data file.
            let len = if asked <= UNCHECKED_READ {
                asked
            } else {
                range
                    .end
                    .min(file.metadata()?.len())
                    .saturating_sub(range.start)
            };
            let mut buf = vec![0; len as usize];
            let read = read_at(&file, &mut buf, range.start)?;
            if read < buf.len() {
                // Past the file's end: keep no room for what is not there.
                buf.truncate(read);
                buf.shrink_to_fit();
            }
            Ok(buf)
        };
        read().map_err(|e| self.error("read", &path, e))
    }

    fn list(&self, prefix: &str) -> Result<Vec<Listed>, BackendError> {
        let (folder, start) = match prefix.rsplit_once('/') {
            Some((folder, start)) => (self.root.join(folder), start),
            None => (self.root.clone(), prefix),
        };
        let listing = match std::fs::read_dir(&folder) {
            Ok(listing) => listing,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(self.error("list", &folder, e)),
        };
        let mut out = Vec::new();
        for entry in listing {
            let entry = entry.map_err(|e| self.error("list", &folder, e))?;
            let file_name = entry.file_name();
            let Some(file_name) = file_name.to_str() else {
                continue;
            };
            if !file_name.starts_with(start) || file_name.starts_with('.') {
                continue;
            }
            let Ok(meta) = entry.metadata() else {
                continue; // deleted meanwhile
            };
            if !meta.is_file() {
                continue;
            }
            let name = match prefix.rsplit_once('/') {
                Some((folder, _)) => format!("{folder}/{file_name}"),
                None => file_name.to_owned(),
            };
            out.push(Listed {
                name,
                size: meta.len(),
            });
        }
        out.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(out)
    }

    fn write(&self, name: &str, bytes: &[u8], sync: bool) -> Result<(), BackendError> {
        let path = self.checked("write", name)?;
        let tmp = self
            .write_aside(&path, bytes, sync)
            .map_err(|e| self.error("write", &path, e))?;
        std::fs::rename(&tmp, &path).map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            self.error("write", &path, e)
        })?;
        if sync && let Some(parent) = path.parent() {
            sync_folder(parent);
        }
        Ok(())
    }

    fn create(&self, name: &str, bytes: &[u8], sync: bool) -> Result<Created, BackendError> {
        let path = self.checked("create", name)?;
        let tmp = self
            .write_aside(&path, bytes, sync)
            .map_err(|e| self.error("create", &path, e))?;
        // A hard link fails if the name exists: one creator wins, and the
        // file is whole when it appears.
        let linked = std::fs::hard_link(&tmp, &path);
        let _ = std::fs::remove_file(&tmp);
        let created = match linked {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Err(e),
            // A file system without hard links: still one creator, but a
            // reader may see the file before it is whole.
            Err(_) => OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&path)
                .and_then(|mut file| {
                    file.write_all(bytes)?;
                    if sync {
                        file.sync_all()?;
                    }
                    Ok(())
                }),
        };
        match created {
            Ok(()) => {
                // Its name as durable as its bytes: a checkpoint's manifest
                // names the tables created before it.
                if sync && let Some(parent) = path.parent() {
                    sync_folder(parent);
                }
                Ok(Created::Yes)
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(Created::Exists),
            Err(e) => Err(self.error("create", &path, e)),
        }
    }

    fn read_versioned(&self, name: &str) -> Result<Option<(Vec<u8>, Version)>, BackendError> {
        let path = self.checked("read", name)?;
        let read = || -> io::Result<(Vec<u8>, Version)> {
            let mut file = File::open(&path)?;
            let version = version_of(&file)?;
            let mut bytes = Vec::new();
            file.read_to_end(&mut bytes)?;
            Ok((bytes, version))
        };
        match read() {
            Ok(read) => Ok(Some(read)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(self.error("read", &path, e)),
        }
    }

    fn replace(
        &self,
        name: &str,
        bytes: &[u8],
        version: &Version,
    ) -> Result<Replaced, BackendError> {
        let path = self.checked("replace", name)?;
        let fail = |e| self.error("replace", &path, e);
        // Replacers of one object take turns on its lock file; each checks
        // the version under it, so only one replaces from a version.
        let mut lock_name = path.as_os_str().to_owned();
        lock_name.push(".lock");
        let lock = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(false)
            .open(PathBuf::from(lock_name))
            .map_err(fail)?;
        lock.lock().map_err(fail)?;
        let current = match File::open(&path) {
            Ok(file) => Some(version_of(&file).map_err(fail)?),
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            Err(e) => return Err(fail(e)),
        };
        if current.as_ref() != Some(version) {
            return Ok(Replaced::Changed);
        }
        let tmp = self.write_aside(&path, bytes, true).map_err(fail)?;
        std::fs::rename(&tmp, &path).map_err(fail)?;
        if let Some(parent) = path.parent() {
            sync_folder(parent);
        }
        let file = File::open(&path).map_err(fail)?;
        Ok(Replaced::Yes(version_of(&file).map_err(fail)?))
    }

    fn delete(&self, name: &str) -> Result<(), BackendError> {
        let path = self.checked("delete", name)?;
        match std::fs::remove_file(&path) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => Err(self.error("delete", &path, e)),
            _ => Ok(()),
        }
    }

    fn append_to(&self, name: &str) -> Result<Box<dyn Appender>, BackendError> {
        let path = self.checked("append", name)?;
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| self.error("append", &path, e))?;
        }
        if layout::log_writer(name).is_some() {
            return Ok(Box::new(
                new_log(name, &path).map_err(|e| self.error("append", &path, e))?,
            ));
        }
        let file = SharedFile::open(&path).map_err(|e| self.error("append", &path, e))?;
        Ok(Box::new(DataFile {
            name: name.to_owned(),
            path,
            file: Some(file),
        }))
    }

    fn log_ahead(&self, writer: &str) -> Result<Option<Box<dyn LogAhead>>, BackendError> {
        let path = self.checked("append", &format!("{writer}{}", layout::NEXT_LOG_SUFFIX))?;
        let file = OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(|e| self.error("append", &path, e))?;
        // Held by another handle: it names it. Where there are no locks,
        // go on, as a log made at once does.
        if let Err(std::fs::TryLockError::WouldBlock) = file.try_lock() {
            return Ok(None);
        }
        Ok(Some(Box::new(NextLog {
            folder: self.clone(),
            path,
            file: Some(file),
        })))
    }

    fn appends(&self) -> Appends {
        Appends::InPlace
    }

    fn maps(&self) -> Option<&dyn Maps> {
        Some(self)
    }

    fn locks(&self) -> Option<&dyn Locks> {
        Some(self)
    }

    fn file_path(&self, name: &str) -> Option<PathBuf> {
        Some(self.path(name))
    }

    fn concurrent_reads(&self) -> bool {
        false // reads from the page cache gain nothing from threads
    }

    fn version(&self, name: &str) -> Result<Option<Version>, BackendError> {
        let path = self.checked("read", name)?;
        // A stat, not an open: asked at each refresh.
        match std::fs::metadata(&path) {
            Ok(meta) => Ok(Some(version_of_meta(&meta))),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(self.error("read", &path, e)),
        }
    }

    fn foreign(&self) -> Result<Option<String>, BackendError> {
        // A cache's own folder: one stat, not a listing.
        if self.path(layout::META).exists() {
            return Ok(None);
        }
        // A folder that does not exist yet (or cannot be listed: creating
        // it says why) holds nothing of anyone's.
        let Ok(listing) = std::fs::read_dir(&self.root) else {
            return Ok(None);
        };
        let entries = listing.flatten().map(|entry| {
            let name = entry.file_name().to_string_lossy().into_owned();
            let path = entry.path();
            let empty_folder =
                move || std::fs::read_dir(path).is_ok_and(|mut d| d.next().is_none());
            (name, empty_folder)
        });
        Ok(foreign_among(entries, || self.path(layout::META).exists()))
    }

    fn sync(&self, names: &[String]) -> Result<(), BackendError> {
        let mut folders = Vec::new();
        for name in names {
            let path = self.checked("sync", name)?;
            match File::open(&path).and_then(|f| f.sync_all()) {
                Err(e) if e.kind() != io::ErrorKind::NotFound => {
                    return Err(self.error("sync", &path, e))
                }
                _ => {}
            }
            if let Some(parent) = path.parent()
                && !folders.iter().any(|f: &PathBuf| f == parent)
            {
                folders.push(parent.to_owned());
            }
        }
        for folder in folders {
            sync_folder(&folder);
        }
        Ok(())
    }

    fn take_up_log(&self, logs: &[String]) -> Result<Option<Box<dyn Appender>>, BackendError> {
        for name in logs {
            let path = self.path(name);
            let Ok(file) = OpenOptions::new().read(true).append(true).open(&path) else {
                continue; // read-only, or deleted meanwhile
            };
            if file.try_lock().is_err() {
                continue; // its writer lives (or locks are not to be had)
            }
            // Deleted (by a compaction) between the listing and the lock,
            // or sealed (its writer went on to its next segment before it
            // let it go)?
            if !path.exists() || self.path(&next_segment(name)).exists() {
                continue;
            }
            let end = file
                .metadata()
                .map_err(|e| self.error("append", &path, e))?
                .len();
            return Ok(Some(Box::new(Log {
                name: name.clone(),
                path,
                file,
                end,
            })));
        }
        Ok(None)
    }
}

/// The name of the log segment after log `name`.
fn next_segment(name: &str) -> String {
    let (id, n) = layout::segment_of(layout::log_writer(name).unwrap_or(name));
    layout::log_segment(id, n + 1)
}

/// The first entry of a folder's listing that no cache begins with, if
/// the listing shows no cache and none was made while it was read
/// (`made_since`): another handle creating the folder's cache writes its
/// layout file first, then its first entries into `data/`, and a listing
/// need not show a file created while it is read while `data/` is looked
/// into later, when it may hold them already.
fn foreign_among<E: FnOnce() -> bool>(
    entries: impl IntoIterator<Item = (String, E)>,
    made_since: impl FnOnce() -> bool,
) -> Option<String> {
    let mut foreign = None;
    for (name, empty_folder) in entries {
        if layout::marks_a_cache(&name) {
            return None;
        }
        if foreign.is_none() && !layout::may_begin_a_cache(&name, empty_folder()) {
            foreign = Some(name);
        }
    }
    foreign.filter(|_| !made_since())
}

impl Maps for Folder {
    fn map(&self, name: &str) -> Result<Mapped, BackendError> {
        let path = self.checked("map", name)?;
        let file = File::open(&path).map_err(|e| self.error("map", &path, e))?;
        // SAFETY: data files and logs are append-only, tables and other
        // objects written aside and renamed into place: codec never
        // rewrites or truncates bytes that an index line points at or an
        // object holds, and every access checks its range against the
        // mapping's length. A file truncated by another program while
        // mapped could still fault, as with any memory map.
        unsafe { Mapped::of_file(&file) }.map_err(|e| self.error("map", &path, e))
    }
}

impl Locks for Folder {
    fn lock(&self, name: &str, how: Locking) -> Result<Option<Lock>, BackendError> {
        let path = self.checked("lock", name)?;
        let fail = |e| self.error("lock", &path, e);
        loop {
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent).map_err(fail)?;
            }
            // Read-only where the folder is: a lock does not need write access.
            let file = OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .open(&path)
                .or_else(|_| File::open(&path))
                .map_err(fail)?;
            match how {
                Locking::Shared => file.lock_shared().map_err(fail)?,
                Locking::Alone => file.lock().map_err(fail)?,
                Locking::TryAlone => match file.try_lock() {
                    Ok(()) => {}
                    Err(std::fs::TryLockError::WouldBlock) => return Ok(None),
                    Err(std::fs::TryLockError::Error(e)) => return Err(fail(e)),
                },
            }
            // A lock file deleted while this waited for it (a compaction
            // deletes those nobody holds, holding them) locks nothing: the
            // next one to lock the name creates another.
            if still_named(&file, &path) {
                return Ok(Some(Lock::new(file)));
            }
        }
    }
}

/// Whether `path` still names the file `file` is open on.
#[cfg(unix)]
fn still_named(file: &File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (file.metadata(), std::fs::metadata(path)) {
        (Ok(open), Ok(named)) => (open.dev(), open.ino()) == (named.dev(), named.ino()),
        _ => false,
    }
}

/// Whether `path` still names the file `file` is open on: elsewhere, a
/// file open cannot be deleted.
#[cfg(not(unix))]
fn still_named(_file: &File, _path: &Path) -> bool {
    true
}

/// Makes a rename in `dir` durable.
fn sync_folder(dir: &Path) {
    // Some platforms cannot open or sync a folder; the rename stands
    // there, only its durability on power loss is the file system's.
    let _ = File::open(dir).and_then(|d| d.sync_all());
}

/// A writer's log, locked while this handle lives.
struct Log {
    name: String,
    path: PathBuf,
    file: File,
    end: u64,
}

/// How many times [`new_log`] makes its file again, a compaction having
/// taken the one it made for one left by a process killed.
const NEW_LOG_TRIES: u32 = 100;

/// Creates the log `name` at `path`, locked before any other handle can
/// see it: made as `<writer>-info.jsonl.new`, locked, then renamed. A
/// compaction deletes such a file it can lock (one a process killed left
/// between the two): a log whose lock it holds as it is made, or deleted
/// before it is named, is made again.
fn new_log(name: &str, path: &Path) -> io::Result<Log> {
    let id = layout::log_writer(name).unwrap_or(name);
    let new = path.with_file_name(format!("{id}{}", layout::NEW_LOG_SUFFIX));
    let mut tries = 0;
    let file = loop {
        tries += 1;
        let file = OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .truncate(false)
            .open(&new)?;
        match file.try_lock() {
            // Where there are no locks, go on: the log is then never
            // taken up.
            Ok(()) | Err(std::fs::TryLockError::Error(_)) => {}
            // A compaction deletes it: another one, once it is gone.
            Err(std::fs::TryLockError::WouldBlock) if tries < NEW_LOG_TRIES => {
                drop(file);
                std::thread::sleep(std::time::Duration::from_millis(1));
                continue;
            }
            Err(std::fs::TryLockError::WouldBlock) => {
                return Err(io::Error::new(
                    io::ErrorKind::WouldBlock,
                    format!(
                        "{} stays locked by another process (a compaction deletes the \
                         logs killed processes left being made, and holds each as it \
                         does): open the store again",
                        new.display()
                    ),
                ))
            }
        }
        match std::fs::rename(&new, path) {
            Ok(()) => break file,
            Err(e) if e.kind() == io::ErrorKind::NotFound && tries < NEW_LOG_TRIES => continue,
            Err(e) => return Err(e),
        }
    };
    let end = file.metadata()?.len();
    Ok(Log {
        name: name.to_owned(),
        path: path.to_owned(),
        file,
        end,
    })
}

/// A writer's next log, made ahead ([`Backend::log_ahead`]) under the
/// name `<writer>-info.jsonl.next`, locked; deleted if dropped unnamed.
struct NextLog {
    folder: Folder,
    path: PathBuf,
    /// `None` once named.
    file: Option<File>,
}

impl LogAhead for NextLog {
    fn name(mut self: Box<Self>, name: &str) -> Result<Box<dyn Appender>, BackendError> {
        let path = self.folder.checked("append", name)?;
        let fail = |e| self.folder.error("append", &path, e);
        // Locked since it was made: no handle looking for a gone writer's
        // log takes it up once it is named.
        std::fs::rename(&self.path, &path).map_err(fail)?;
        let file = self.file.take().expect("named once");
        let end = file.metadata().map_err(fail)?.len();
        Ok(Box::new(Log {
            name: name.to_owned(),
            path,
            file,
            end,
        }))
    }
}

impl Drop for NextLog {
    fn drop(&mut self) {
        if self.file.take().is_some() {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

impl Appender for Log {
    fn append(&mut self, bytes: &[u8], _align: u64) -> Result<Appended, BackendError> {
        let offset = self.end;
        if let Err(e) = self.file.write_all(bytes) {
            // Part of the bytes may be there: find the log's end again.
            self.end = self.file.metadata().map_or(self.end, |m| m.len());
            return Err(BackendError::new(
                "append",
                self.path.display().to_string(),
                e,
            ));
        }
        self.end += bytes.len() as u64;
        Ok(Appended {
            name: self.name.clone(),
            offset,
            end: self.end,
        })
    }

    fn sync(&mut self) -> Result<(), BackendError> {
        self.file
            .sync_data()
            .map_err(|e| BackendError::new("sync", self.path.display().to_string(), e))
    }

    fn end(&self) -> (String, u64) {
        (self.name.clone(), self.end)
    }
}

/// A writer's shared data file.
struct DataFile {
    name: String,
    path: PathBuf,
    /// `None` after a failed append, until the file's end is found again.
    file: Option<SharedFile>,
}

impl DataFile {
    fn fail(&self, e: io::Error) -> BackendError {
        BackendError::new("append", self.path.display().to_string(), e)
    }
}

impl Appender for DataFile {
    fn append(&mut self, bytes: &[u8], align: u64) -> Result<Appended, BackendError> {
        if self.file.is_none() {
            self.file = Some(SharedFile::open(&self.path).map_err(|e| self.fail(e))?);
        }
        let file = self.file.as_mut().expect("opened above");
        match file.append(&self.path, bytes, align) {
            Ok(offset) => Ok(Appended {
                name: self.name.clone(),
                offset,
                end: offset + bytes.len() as u64,
            }),
            Err(e) => {
                // The file may hold part of the bytes: find its real end again.
                self.file = None;
                Err(self.fail(e))
            }
        }
    }

    fn sync(&mut self) -> Result<(), BackendError> {
        match &self.file {
            Some(file) => file.sync_data().map_err(|e| self.fail(e)),
            None => Ok(()),
        }
    }

    fn end(&self) -> (String, u64) {
        let end = match &self.file {
            Some(file) => file.end(),
            // After a failed append: the length the next append finds.
            None => std::fs::metadata(&self.path).map_or(0, |m| m.len()),
        };
        (self.name.clone(), end)
    }
}

#[cfg(test)]
mod tests {
    use super::{foreign_among, new_log};
    use crate::layout;

    /// A log is made as `<writer>-info.jsonl.new`, locked, then named: one
    /// whose file another process holds as it is made (a compaction
    /// deleting such a file left by a process killed) is made again once
    /// that file is gone, locked; never named unlocked, which would let
    /// another handle take it up as a gone writer's.
    #[test]
    fn a_log_whose_file_is_held_as_it_is_made_is_made_again_locked() {
        let dir = tempfile::tempdir().unwrap();
        let name = layout::log_segment("w", 0);
        let (path, new) = (
            dir.path().join(&name),
            dir.path().join(format!("w{}", layout::NEW_LOG_SUFFIX)),
        );
        std::fs::write(&new, b"").unwrap();
        let holder = std::fs::File::open(&new).unwrap();
        if holder.try_lock().is_err() {
            return; // no locks here
        }
        // Held throughout: an error, and nothing named.
        let err = new_log(&name, &path).err().expect("named while held");
        assert_eq!(err.kind(), std::io::ErrorKind::WouldBlock, "{err}");
        assert!(!path.exists());
        // Deleted by its holder meanwhile: made again, locked.
        let deleting = std::thread::spawn({
            let new = new.clone();
            move || {
                std::thread::sleep(std::time::Duration::from_millis(20));
                std::fs::remove_file(&new).unwrap();
                drop(holder);
            }
        });
        let log = new_log(&name, &path).unwrap();
        deleting.join().unwrap();
        let other = std::fs::File::open(&path).unwrap();
        assert!(
            matches!(other.try_lock(), Err(std::fs::TryLockError::WouldBlock)),
            "the log named is not locked"
        );
        assert!(!new.exists());
        drop(log);
    }

    fn listing(entries: &[(&str, bool)]) -> Vec<(String, impl FnOnce() -> bool)> {
        entries
            .iter()
            .map(|&(name, empty)| (name.to_owned(), move || empty))
            .collect()
    }

    #[test]
    fn a_folder_is_foreign_by_its_first_file_no_cache_begins_with() {
        let other = listing(&[("data", true), ("notes.txt", false), ("data2", false)]);
        assert_eq!(foreign_among(other, || false).as_deref(), Some("notes.txt"));
        let beginning = listing(&[("data", true), ("schemas", true), (".gitignore", false)]);
        assert_eq!(foreign_among(beginning, || false), None);
        let cache = listing(&[("notes.txt", false), ("codec-store.json", false)]);
        assert_eq!(foreign_among(cache, || false), None);
    }

    #[test]
    fn a_folder_made_a_cache_while_it_was_listed_is_not_foreign() {
        // Listed before another handle wrote its layout file; `data/`
        // looked into after its first entry.
        let racing = listing(&[("schemas", true), ("data", false)]);
        assert_eq!(foreign_among(racing, || true), None);
    }

    #[test]
    fn a_lock_file_deleted_while_a_caller_waits_for_it_is_locked_anew() {
        use crate::backend::{Locking, Locks};
        let dir = tempfile::tempdir().unwrap();
        let folder = super::Folder::new(dir.path());
        let name = "locks/k.lock";
        let held = folder.lock(name, Locking::Alone).unwrap().unwrap();
        let root = dir.path().to_owned();
        let waiting = std::thread::spawn(move || {
            let folder = super::Folder::new(&root);
            folder.lock(name, Locking::Alone).unwrap().unwrap()
        });
        // The waiter opens the file and waits for its lock (if it comes
        // later, it finds no file, and the check below holds as well).
        std::thread::sleep(std::time::Duration::from_millis(200));
        // As a compaction deletes a lock file no holder holds.
        std::fs::remove_file(dir.path().join(name)).unwrap();
        drop(held);
        let _waiter_holds = waiting.join().unwrap();
        // The file under the name is the waiter's: nobody else takes it.
        assert!(folder.lock(name, Locking::TryAlone).unwrap().is_none());
    }
}
