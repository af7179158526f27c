//! The seam between the store's core and where its bytes live.
//!
//! The core (index, lines, handlers, schema checks, buffers kept apart,
//! checkpoints, compaction) speaks of objects named relative to the
//! store's root (`data/<writer>.bin`, `<writer>-info.jsonl`) and asks a
//! [`Backend`] for a few things only: append to a writer's log or data
//! object, write an object whole, read an object or a range of it, list
//! by prefix, create an object if it is absent, replace one if it did not
//! change since it was read. A folder is the first backend
//! ([`folder::Folder`]); [`memory::Memory`] keeps objects in memory, for
//! tests. Every backend passes the same contract tests.
//!
//! What only some backends can do is a capability the core asks for and
//! does without where it is missing, never a question of which backend
//! it is:
//! - [`Backend::appends`]: whether an append grows its object in place (a
//!   folder's files) or makes an object of its own ([`Segments`]). It
//!   decides the shape of a checkpoint (tables that point into the logs,
//!   or tables that hold their lines) and whether compaction can run
//!   online (only where the objects it replaces never grow again);
//! - [`Backend::maps`]: memory maps of objects ([`Mapped`]);
//! - [`Backend::locks`]: locks that go with their holder (file locks),
//!   which tell a live writer from a gone one and let a compaction have
//!   the store to itself (where there are none, `memo_lock` takes leases
//!   through [`Backend::create`] and [`Backend::replace`] instead);
//! - [`Backend::file_path`]: objects that are files of this machine, for
//!   handlers that write to a path;
//! - [`Backend::concurrent_reads`]: whether reads gain from running
//!   several at once (requests do, reads from the page cache do not).
//!
//! Elsewhere than in a folder, checkpoints hold their lines and are
//! committed by [`Backend::replace`], and compaction runs online.
//!
//! A program gives a store one of the backends here ([`folder::Folder`],
//! [`memory::Memory`], [`object::Objects`] over `object_store`, which
//! reaches S3, GCS, Azure and others). The types the trait's methods name
//! (appenders, maps, locks, versions) are the store's internals, left
//! out of these pages: a backend of one's own is possible, but its
//! interface follows the store's needs from one version to the next.

pub(crate) mod data_file;
pub mod folder;
pub mod memory;
#[cfg(feature = "object-store")]
pub mod object;

#[cfg(test)]
mod contract;

use std::fmt;
use std::io;
use std::ops::{Deref, Range};
use std::path::PathBuf;

use memmap2::Mmap;

use crate::layout;

/// Where a store's objects live: a folder, memory, an object store.
///
/// Names are relative to the store's root, `/`-separated, never starting
/// with `/` or `.`.
pub trait Backend: Send + Sync {
    /// Where the store is, for messages: a folder's path or a URL.
    fn location(&self) -> String;

    /// The full address of object `name`, for messages.
    fn address(&self, name: &str) -> String;

    /// The whole object `name`; `None` if there is none.
    fn read(&self, name: &str) -> Result<Option<Vec<u8>>, BackendError>;

    /// The bytes of `range` of object `name`, fewer if the object ends
    /// before the range does (none if it ends before the range starts).
    fn read_range(&self, name: &str, range: Range<u64>) -> Result<Vec<u8>, BackendError>;

    /// The objects whose names start with `prefix` and hold no `/` after
    /// it (one level of a folder), sorted by name; none if the prefix's
    /// folder does not exist.
    fn list(&self, prefix: &str) -> Result<Vec<Listed>, BackendError>;

    /// Writes object `name` whole, replacing any: readers see the old
    /// bytes or the new ones, never a part.
    fn write(&self, name: &str, bytes: &[u8], sync: bool) -> Result<(), BackendError>;

    /// Writes object `name` only if there is none: of several creators of
    /// one name, exactly one gets [`Created::Yes`]. Readers never see a
    /// part of it.
    fn create(&self, name: &str, bytes: &[u8], sync: bool) -> Result<Created, BackendError>;

    /// The whole object `name` and its version, for [`Backend::replace`].
    fn read_versioned(&self, name: &str) -> Result<Option<(Vec<u8>, Version)>, BackendError>;

    /// Replaces object `name` with `bytes` only if it is still at
    /// `version`: of several replacers from one version, exactly one
    /// gets [`Replaced::Yes`].
    fn replace(
        &self,
        name: &str,
        bytes: &[u8],
        version: &Version,
    ) -> Result<Replaced, BackendError>;

    /// Deletes object `name`; deleting a missing object is no error.
    fn delete(&self, name: &str) -> Result<(), BackendError>;

    /// Starts a log or data object that only this handle appends to:
    /// `name` is its first object's name.
    fn append_to(&self, name: &str) -> Result<Box<dyn Appender>, BackendError>;

    /// The next log of writer `writer`, made ahead of the seal that needs
    /// it, off the write path, where making one is slow (a folder's file:
    /// an open that creates it takes 40-100 µs): created and locked under
    /// a name no reader reads, and named by [`LogAhead::name`]. `None`
    /// where [`Backend::append_to`] is as quick (the default).
    fn log_ahead(&self, writer: &str) -> Result<Option<Box<dyn LogAhead>>, BackendError> {
        let _ = writer;
        Ok(None)
    }

    /// How appends to a log or data object land: in place, or as objects
    /// of their own (the default).
    fn appends(&self) -> Appends {
        Appends::Segments
    }

    /// Memory maps of objects, where the backend has them (a folder);
    /// `None` elsewhere, where the core reads ranges instead.
    fn maps(&self) -> Option<&dyn Maps> {
        None
    }

    /// Locks that go with their holder, where the backend has them (a
    /// folder's file locks); `None` elsewhere.
    fn locks(&self) -> Option<&dyn Locks> {
        None
    }

    /// The file of this machine that holds object `name`, where objects
    /// are files (a folder): for handlers that write to a path. `None`
    /// elsewhere.
    fn file_path(&self, name: &str) -> Option<PathBuf> {
        let _ = name;
        None
    }

    /// Whether reads gain from running several at once: requests do
    /// (the default), reads from the local page cache do not.
    fn concurrent_reads(&self) -> bool {
        true
    }

    /// The version of object `name` ([`Backend::read_versioned`]'s), to
    /// tell whether it changed; the default reads it.
    fn version(&self, name: &str) -> Result<Option<Version>, BackendError> {
        Ok(self.read_versioned(name)?.map(|(_, version)| version))
    }

    /// Something at the store's root that no store has, where the root may
    /// hold other things (a folder a user names): opening a store there
    /// would scatter its objects among them. `None` where the root holds a
    /// store, nothing, or only what a store begins with (the default).
    fn foreign(&self) -> Result<Option<String>, BackendError> {
        Ok(None)
    }

    /// Makes objects `names`, written or appended before, durable with
    /// their names (where writes are not durable once done: a folder's
    /// files and their folders). Missing objects are skipped.
    fn sync(&self, names: &[String]) -> Result<(), BackendError> {
        let _ = names;
        Ok(())
    }

    /// Takes up the log of a handle that is gone, among `logs` (names of
    /// writers' logs): the writer id's log, ready to append to at its end.
    /// Only backends that can tell a live writer from a gone one (a
    /// folder, by file locks) take logs up; others start new ones.
    fn take_up_log(&self, logs: &[String]) -> Result<Option<Box<dyn Appender>>, BackendError> {
        let _ = logs;
        Ok(None)
    }
}

/// How appends land ([`Backend::appends`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[doc(hidden)]
pub enum Appends {
    /// An append grows its object, which a reader may hold mapped: a
    /// byte offset in a log names a line for good.
    InPlace,
    /// Each append is an object of its own, never changed after
    /// ([`Segments`]): a log is counted in segments.
    Segments,
}

/// Memory maps of a backend's objects ([`Backend::maps`]).
#[doc(hidden)]
pub trait Maps: Send + Sync {
    /// A map of object `name` as it is now (an append after it is not in
    /// it: map again to see it).
    fn map(&self, name: &str) -> Result<Mapped, BackendError>;
}

/// The bytes of an object, memory-mapped.
#[doc(hidden)]
pub struct Mapped(Mmap);

impl Mapped {
    /// A map of `file`.
    ///
    /// # Safety
    /// The bytes of `file` the map covers must never be rewritten or
    /// truncated while the map lives (the store's objects are written
    /// aside and renamed into place, or appended to, never rewritten).
    pub(crate) unsafe fn of_file(file: &std::fs::File) -> io::Result<Mapped> {
        // SAFETY: the caller's promise, above.
        Ok(Mapped(unsafe { Mmap::map(file) }?))
    }

    /// A map of memory holding a copy of `bytes`, for a backend whose
    /// objects are not files (a simulated disk): it reads as a map of a
    /// file does, the bytes as they were when mapped.
    pub fn copied(bytes: &[u8]) -> io::Result<Mapped> {
        let mut map = memmap2::MmapMut::map_anon(bytes.len())?;
        map.copy_from_slice(bytes);
        Ok(Mapped(map.make_read_only()?))
    }
}

impl Deref for Mapped {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        &self.0
    }
}

impl fmt::Debug for Mapped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Mapped({} bytes)", self.0.len())
    }
}

/// Locks that go with their holder ([`Backend::locks`]): a holder that
/// is gone (a process killed) holds none.
#[doc(hidden)]
pub trait Locks: Send + Sync {
    /// Takes the lock named `name` (a name beside the store's objects,
    /// which listings never show) as `how` says; `None` if `how` does not
    /// wait and another holder has it.
    fn lock(&self, name: &str, how: Locking) -> Result<Option<Lock>, BackendError>;
}

/// How [`Locks::lock`] takes a lock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[doc(hidden)]
pub enum Locking {
    /// Shared with other sharers, waiting for one that has it alone.
    Shared,
    /// Alone, waiting for the others.
    Alone,
    /// Alone, or not at all if another holds it.
    TryAlone,
}

/// A lock [`Locks::lock`] took, held until dropped.
#[doc(hidden)]
pub struct Lock(#[allow(dead_code)] Box<dyn std::any::Any + Send + Sync>);

impl Lock {
    /// The lock `held` holds, released when it is dropped (a locked file).
    pub fn new(held: impl std::any::Any + Send + Sync) -> Lock {
        Lock(Box::new(held))
    }
}

impl fmt::Debug for Lock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Lock")
    }
}

/// Appends to the objects of one writer (its log, its shared data).
#[doc(hidden)]
pub trait Appender: Send + Sync {
    /// Appends `bytes` at the next multiple of `align` (zeros before
    /// them); returns the object they went to and where in it. After an
    /// error the object may hold part of the bytes: the next append
    /// starts after them.
    fn append(&mut self, bytes: &[u8], align: u64) -> Result<Appended, BackendError>;

    /// Makes what was appended durable.
    fn sync(&mut self) -> Result<(), BackendError>;

    /// The name of the object the next append goes to, and its length.
    fn end(&self) -> (String, u64);
}

/// A writer's next log, made ahead ([`Backend::log_ahead`]); deleted if
/// dropped unnamed.
#[doc(hidden)]
pub trait LogAhead: Send + Sync {
    /// Names the log `name` (a segment of the writer it was made for),
    /// as [`Backend::append_to`] would have made it: ready to append to.
    fn name(self: Box<Self>, name: &str) -> Result<Box<dyn Appender>, BackendError>;
}

/// Where [`Appender::append`] put bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
#[doc(hidden)]
pub struct Appended {
    /// The object's name.
    pub name: String,
    /// The bytes' offset in it.
    pub offset: u64,
    /// The object's length after them.
    pub end: u64,
}

/// One object of a listing.
#[derive(Debug, Clone, PartialEq, Eq)]
#[doc(hidden)]
pub struct Listed {
    /// Its name, relative to the store's root.
    pub name: String,
    /// Its length in bytes.
    pub size: u64,
}

/// An object's version, as [`Backend::read_versioned`] saw it (a content
/// hash, an ETag).
#[derive(Debug, Clone, PartialEq, Eq)]
#[doc(hidden)]
pub struct Version(pub String);

/// How often a failed request to object storage is retried, and for how
/// long, where codec builds the store from a URL
/// (`Cache::open_url_with` with the `object-store` feature, through
/// [`CacheOptions::retries`](crate::CacheOptions::retries)). A
/// request that fails with a timeout, a connection error or a server
/// error (a 5xx, such as S3's `503 Slow Down`) is sent again after a
/// backoff (100 ms at first, growing up to 15 s) until it succeeds, it
/// was retried `max_retries` times, or `retry_timeout` passed since it was
/// first sent; then the call returns the error.
///
/// The default is `object_store`'s: at most 10 retries within 3 minutes.
/// A store you build yourself for `Cache::open_store` keeps the retries
/// of its builder (`with_retry`).
///
/// ```
/// use std::time::Duration;
/// use codec::store::backend::Retries;
/// let options = codec::CacheOptions::default()
///     .retries(Retries { max_retries: 3, retry_timeout: Duration::from_secs(20) });
/// # let _ = options;
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Retries {
    /// How many times a failed request is sent again at most (0: never).
    pub max_retries: usize,
    /// No request is sent again once this long passed since it was first
    /// sent.
    pub retry_timeout: std::time::Duration,
}

impl Default for Retries {
    fn default() -> Self {
        Retries {
            max_retries: 10,
            retry_timeout: std::time::Duration::from_secs(180),
        }
    }
}

/// What [`Backend::create`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
#[doc(hidden)]
pub enum Created {
    /// The object is this caller's.
    Yes,
    /// An object of that name was there already; nothing was written.
    Exists,
}

/// What [`Backend::replace`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
#[doc(hidden)]
pub enum Replaced {
    /// The object is replaced; its new version.
    Yes(Version),
    /// The object changed (or went) since that version; nothing was written.
    Changed,
}

/// A backend operation failed: which, on which object, and why.
#[derive(Debug)]
pub struct BackendError {
    /// The operation (`read`, `write`, `list`, ...).
    pub op: &'static str,
    /// The object's full address (a path, a URL).
    pub address: String,
    /// The cause; its kind tells a missing object (`NotFound`) apart.
    pub source: io::Error,
}

impl BackendError {
    /// An error of `op` on the object at `address`.
    pub fn new(op: &'static str, address: impl Into<String>, source: io::Error) -> Self {
        BackendError {
            op,
            address: address.into(),
            source,
        }
    }
}

impl fmt::Display for BackendError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The cause is the `source()`, printed once.
        write!(f, "{} of {} failed", self.op, self.address)
    }
}

impl std::error::Error for BackendError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.source)
    }
}

/// Checks an object name: relative, `/`-separated, no part that is empty
/// or starts with `.` (no way out of the store's root).
#[doc(hidden)]
pub fn check_name(name: &str) -> Result<(), io::Error> {
    let bad = name.is_empty()
        || name.contains('\\')
        || name
            .split('/')
            .any(|part| part.is_empty() || part.starts_with('.'));
    if bad {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("`{name}` is not an object name of the store"),
        ));
    }
    Ok(())
}

/// Checks object name `name` ([`check_name`]) before operation `op` of
/// `backend`; the error names both.
#[doc(hidden)]
pub fn checked_name<B: Backend + ?Sized>(
    backend: &B,
    op: &'static str,
    name: &str,
) -> Result<(), BackendError> {
    check_name(name).map_err(|e| BackendError::new(op, backend.address(name), e))
}

/// The version of bytes, where the backend has no version of its own: a
/// hash of the content (SHA-256, so two contents never share one).
#[doc(hidden)]
pub fn content_version(bytes: &[u8]) -> Version {
    use sha2::Digest as _;
    let hash = sha2::Sha256::digest(bytes);
    Version(hash.iter().map(|b| format!("{b:02x}")).collect())
}

/// A writer's log or data as immutable objects, one per append, each
/// created if absent: the first under the name asked for, the next ones
/// under it with `.<n>` before the suffix that names its kind
/// (`layout::segment_name`). For backends without appends.
#[doc(hidden)]
pub struct Segments<B> {
    backend: B,
    name: String,
    next: u64,
}

impl<B: Backend> Segments<B> {
    /// The segments of `name` in `backend`, from the first.
    pub fn new(backend: B, name: &str) -> Self {
        Segments {
            backend,
            name: name.to_owned(),
            next: 0,
        }
    }
}

impl<B: Backend> Appender for Segments<B> {
    fn append(&mut self, bytes: &[u8], _align: u64) -> Result<Appended, BackendError> {
        loop {
            let name = layout::segment_name(&self.name, self.next);
            self.next += 1;
            // A name taken already: by this very append if a request was
            // retried after it succeeded (the same bytes: a line holds its
            // writer's time and sequence), else by a handle that had this
            // writer id before, and then the next name.
            let created = self.backend.create(&name, bytes, false)? == Created::Yes;
            if created || self.backend.read(&name)?.as_deref() == Some(bytes) {
                return Ok(Appended {
                    name,
                    offset: 0,
                    end: bytes.len() as u64,
                });
            }
        }
    }

    fn sync(&mut self) -> Result<(), BackendError> {
        Ok(()) // each segment is whole and durable once created
    }

    fn end(&self) -> (String, u64) {
        (layout::segment_name(&self.name, self.next), 0)
    }
}

#[cfg(test)]
mod error_tests {
    use std::error::Error;

    /// The cause is the `source()`, not a second time in the message.
    #[test]
    fn a_backend_error_prints_its_cause_once() {
        let cause = std::io::Error::new(std::io::ErrorKind::PermissionDenied, "no access");
        let e = super::BackendError::new("read", "/store/x", cause);
        let source = e.source().expect("the cause is the source").to_string();
        assert!(!e.to_string().contains(&source), "{e}");
        assert!(e.to_string().contains("/store/x"), "{e}");
    }
}

#[cfg(test)]
mod mapped_tests {
    /// A map of copied bytes reads them, empty ones too (an empty log is
    /// mapped as any other).
    #[test]
    fn a_map_of_copied_bytes_reads_them() {
        assert_eq!(&*super::Mapped::copied(b"a line\n").unwrap(), b"a line\n");
        assert!(super::Mapped::copied(&[]).unwrap().is_empty());
    }
}
