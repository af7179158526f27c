//! What a maintainer runs: compaction (of a folder, of object storage,
//! online) and the index checkpoint (build, verify, rebuild), behind one
//! type, [`Admin`].

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use crate::backend::Backend;
use crate::cache::Cache;
use crate::content::handler::Handler;
use crate::error::StoreError;
use crate::index::checkpoint::objects::Sources;
use crate::index::EntryInfo;

pub use crate::cache::reduce::{Reduced, Used};
pub use crate::compaction::Compacted;
pub use crate::options::Bounds;

/// The maintenance of a store: compaction and the index checkpoint, what
/// the `codec` command runs (`codec compact`, `codec verify`). A
/// [`Cache`] has the verbs of a program that keeps values; this has the
/// rest.
///
/// What works on a handle's store comes from [`Cache::admin`]; what needs
/// a folder to itself (a folder's compaction, rebuilding its index) is an
/// associated function taking the folder.
///
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use codec::store::Admin;
/// let dir = tempfile::tempdir()?;
/// {
///     let cache = codec::Cache::open(dir.path())?;
///     cache.put("a", &1u32)?;
///     cache.put("a", &2u32)?;
///     cache.admin().checkpoint()?;
///     assert_eq!(cache.admin().verify_index()?, 1);
/// } // no handle may have the folder open while it is compacted
/// let done = Admin::compact(dir.path(), &[], |_, _| {})?;
/// assert_eq!(done.kept, 1);
/// # Ok(())
/// # }
/// ```
pub struct Admin<'a> {
    cache: Held<'a>,
}

/// The handle an [`Admin`] works through: a program's, or its own.
enum Held<'a> {
    Borrowed(&'a Cache),
    Owned(Box<Cache>),
}

impl std::ops::Deref for Held<'_> {
    type Target = Cache;

    fn deref(&self) -> &Cache {
        match self {
            Held::Borrowed(cache) => cache,
            Held::Owned(cache) => cache,
        }
    }
}

impl Admin<'static> {
    /// The maintenance of the store at `location`, for a program that
    /// keeps no values there itself (an operator's tool, a cron job): a
    /// folder's path, or a URL as [`Cache::open_url`] takes (with the
    /// `object-store` feature). The store must exist: a location holding
    /// none is an error, never a new store. Give the handlers its entries
    /// need with [`Admin::with_handler`].
    ///
    /// ```
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use std::time::Duration;
    /// use codec::store::Admin;
    /// let dir = tempfile::tempdir()?;
    /// // A program, still running, whose writer seals a segment every 4 KiB.
    /// let options = codec::CacheOptions::default().segment_bytes(4096);
    /// let cache = codec::Cache::open_with(dir.path(), options)?;
    /// for i in 0..1000u32 {
    ///     cache.put("counter", &i)?;
    /// }
    /// let admin = Admin::open(dir.path().to_str().unwrap())?;
    /// let done = admin.compact_online(Duration::ZERO, |_, _| {})?;
    /// assert!(done.size_after < done.size_before / 4);
    /// assert!(Admin::open("/no/such/store").is_err());
    /// # Ok(())
    /// # }
    /// ```
    pub fn open(location: &str) -> Result<Admin<'static>, StoreError> {
        Ok(Admin {
            cache: Held::Owned(Box::new(Cache::open_existing(location)?)),
        })
    }

    /// Registers `handler` in this admin's own handle: the entries it
    /// stored are then copied, sized and read by it.
    pub fn with_handler(self, handler: Arc<dyn Handler>) -> Admin<'static> {
        self.cache.register_handler(handler);
        self
    }
}

impl std::fmt::Debug for Admin<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Admin")
            .field("location", &self.cache.location())
            .finish()
    }
}

impl<'a> Admin<'a> {
    /// The maintenance of the store `cache` has open ([`Cache::admin`]).
    pub(crate) fn of(cache: &'a Cache) -> Admin<'a> {
        Admin {
            cache: Held::Borrowed(cache),
        }
    }
}

impl Admin<'_> {
    /// Builds a checkpoint of the store now, from the lines written since
    /// the last one (waiting for a build in progress in a folder; on object
    /// storage, building again if another handle commits first), and takes
    /// it up. Checkpoints also build by themselves, in the background, once
    /// [`CacheOptions::checkpoint_bytes`](crate::CacheOptions::checkpoint_bytes)
    /// of the logs are not covered.
    pub fn checkpoint(&self) -> Result<(), StoreError> {
        let cache = &*self.cache;
        // One pass of the bounds at a time.
        cache.upkeep.join();
        cache.checkpointer.join(&cache.index);
        cache.upkeep.apply_bounds(cache);
        // The compaction the bounds asked for, if they did, or one an
        // earlier pass asked for while another ran.
        cache.upkeep.compact_asked(cache);
        cache.checkpointer.build_now(&cache.index)?;
        cache.refresh()
    }

    /// Checks the checkpoint the handle reads whole: every block of its
    /// tables, every line they point at. Returns the keys it holds
    /// (0 without a checkpoint); a damage is a [`StoreError::DamagedFile`].
    pub fn verify_index(&self) -> Result<usize, StoreError> {
        self.cache.refresh()?;
        (self.cache.index_read().verify_checkpoint())
            .map_err(|damaged| crate::index::checkpoint::damaged(&*self.cache.backend, damaged))
    }

    /// The encoded payload of a live entry (one of
    /// [`Cache::entries`]), as its handler stored it: what `codec get`
    /// shows without the entry's type.
    pub fn entry_payload(&self, entry: &EntryInfo) -> Result<Vec<u8>, StoreError> {
        self.cache.entry_payload(entry)
    }

    /// Checks the bytes a live entry holds outside its line against what
    /// its dump recorded ([`EntryInfo::parts`](crate::EntryInfo::parts)): each file and range there,
    /// of its length and checksum. This needs no handler: it checks the
    /// bytes, not their meaning. `Ok(None)` when the entry recorded none
    /// (a built-in handler's, which [`Admin::entry_payload`] checks, or
    /// one written before entries recorded their bytes); else how many
    /// parts it checked.
    pub fn check_entry_bytes(&self, entry: &EntryInfo) -> Result<Option<usize>, StoreError> {
        let Some(parts) = &entry.parts else {
            return Ok(None);
        };
        let ctx = self.cache.load_context(&entry.key);
        for part in parts {
            part.read_checked(&ctx)?;
        }
        Ok(Some(parts.len()))
    }

    /// The bytes of each part a live entry recorded
    /// ([`EntryInfo::parts`]), in order, read without its handler and
    /// checked as [`Admin::check_entry_bytes`] checks them: empty when it
    /// recorded none.
    pub fn entry_bytes(&self, entry: &EntryInfo) -> Result<Vec<Vec<u8>>, StoreError> {
        let Some(parts) = &entry.parts else {
            return Ok(Vec::new());
        };
        let ctx = self.cache.load_context(&entry.key);
        parts.iter().map(|p| p.read_checked(&ctx)).collect()
    }

    /// Whether this handle has the handler `name` (built in, registered,
    /// or named by a type the program links): the one that reads its
    /// entries' values.
    pub fn has_handler(&self, name: &str) -> bool {
        self.cache.handler(name).is_some()
    }

    /// The schema a fingerprint (of [`EntryInfo::fingerprint`]) names, as
    /// stored by the writer that used it; `None` if it is missing.
    pub fn writer_schema(
        &self,
        fingerprint: &str,
    ) -> Result<Option<serde_json::Value>, StoreError> {
        self.cache.writer_schema(fingerprint)
    }

    /// Compacts the store the handle has open, online, with the handlers
    /// registered on it, while this handle and others go on writing and
    /// reading: on object storage and memory as [`Admin::compact_backend`]
    /// does; in a folder, what is live in the writers' sealed segments is
    /// copied (this handle's segment is sealed first; another live
    /// handle's, once it holds
    /// [`segment_bytes`](crate::CacheOptions::segment_bytes)) and the
    /// segments retired. What a compaction retired is deleted by a later
    /// one once older than `grace` (zero: at once; a handle whose index
    /// still names a moved entry reads the index again). In a folder it
    /// waits for a compaction under way.
    ///
    /// ```
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use codec::store::backend::memory::Memory;
    /// let backend = std::sync::Arc::new(Memory::new());
    /// let cache = codec::Cache::open_backend(backend, Default::default())?;
    /// cache.put("a", &1u32)?;
    /// cache.put("a", &2u32)?;
    /// let grace = std::time::Duration::from_secs(3600);
    /// let done = cache.admin().compact_online(grace, |_, _| {})?;
    /// assert_eq!(done.kept, 1);
    /// # Ok(())
    /// # }
    /// ```
    pub fn compact_online(
        &self,
        grace: Duration,
        progress: impl FnMut(usize, usize),
    ) -> Result<Compacted, StoreError> {
        let mut progress = progress;
        crate::compaction::compact_handle_online(&self.cache, grace, &mut progress)
    }

    /// Keeps the store within `bounds`: removes the least recently used
    /// entries until at most `max_bytes` of payload and `max_entries`
    /// entries are left, and every entry not used for `max_age`. An
    /// entry's last use is the latest of when it was written and when
    /// any handle read it, as handles record it (at most one record per
    /// key and handle every
    /// [`use_interval`](crate::CacheOptions::use_interval)).
    ///
    /// It runs online on every backend: the entries go as
    /// [`Cache::remove`] removes them, while other handles read and
    /// write (a key written again meanwhile is kept). The space comes
    /// back at once for entries in files of their own, and through the
    /// online compaction that follows on every backend
    /// ([`Admin::compact_online`] with `grace`), whose report is
    /// [`Reduced::compacted`].
    ///
    /// ```
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use codec::store::Bounds;
    /// # let dir = tempfile::tempdir()?;
    /// let cache = codec::Cache::open(dir.path())?;
    /// cache.put("old", &1u32)?;
    /// cache.put("new", &2u32)?;
    /// let grace = std::time::Duration::from_secs(3600);
    /// let done = cache.admin().reduce_size(&Bounds::default().max_entries(1), grace)?;
    /// assert_eq!(done.removed, ["old"]);
    /// assert_eq!(cache.keys()?, ["new"]);
    /// # Ok(())
    /// # }
    /// ```
    pub fn reduce_size(&self, bounds: &Bounds, grace: Duration) -> Result<Reduced, StoreError> {
        self.cache.reduce_size(bounds, Some(grace))
    }

    /// Every live entry with when it was last used, most recently used
    /// first: what [`Admin::reduce_size`] keeps first (`codec inspect`
    /// shows it).
    pub fn entries_by_use(&self) -> Result<Vec<Used>, StoreError> {
        Ok(self.cache.entries_by_use()?.0)
    }

    /// Rewrites the live entries of the folder `dir` into one new writer and
    /// deletes every other index and data file: the space of removed and
    /// overwritten entries comes back. `handlers` are the user handlers its
    /// entries were stored with; `progress` is called with (entries done,
    /// entries in all) as it goes.
    ///
    /// A folder as the last compaction left it (the same logs and data,
    /// every entry still live) is left as it is: nothing is copied.
    ///
    /// Entries whose data is damaged (truncated, missing, undecodable) are
    /// dropped and listed; any other read error stops the compaction before
    /// it deletes anything. An entry of a handler not given is an error
    /// before anything is written. No handle may have the folder open
    /// ([`StoreError::InUse`]); a compaction stopped midway (a crash, a
    /// kill) leaves the folder readable, and the next one completes it.
    pub fn compact(
        dir: impl AsRef<Path>,
        handlers: &[Arc<dyn Handler>],
        progress: impl FnMut(usize, usize),
    ) -> Result<Compacted, StoreError> {
        let mut progress = progress;
        crate::compaction::compact_folder(dir.as_ref(), handlers, &mut progress)
    }

    /// Compacts the store `backend` holds, online: the live entries are
    /// copied into one new writer and the space of removed and overwritten
    /// ones comes back, while other handles go on writing and reading.
    /// The objects the compaction replaces are deleted by a later
    /// compaction once this one's commit is older than `grace` (a handle
    /// that has not refreshed for longer than that may find an entry's
    /// data gone; zero deletes them at once, for a store no other handle
    /// has open). `handlers` and `progress` are as for [`Admin::compact`],
    /// which a folder goes to.
    ///
    /// If another compaction commits first, this one returns an error
    /// saying so (nothing is lost: its copies are ordinary entries until
    /// the next compaction).
    pub fn compact_backend(
        backend: Arc<dyn Backend>,
        handlers: &[Arc<dyn Handler>],
        grace: Duration,
        progress: impl FnMut(usize, usize),
    ) -> Result<Compacted, StoreError> {
        let mut progress = progress;
        crate::compaction::compact_backend(backend, handlers, grace, &mut progress)
    }

    /// Builds the checkpoint of the folder `dir` again from the logs
    /// alone, whatever state the last one is in (`codec verify
    /// --rebuild-index`). Returns the lines read.
    pub fn rebuild_index(dir: impl AsRef<Path>) -> Result<u64, StoreError> {
        let dir = dir.as_ref();
        crate::cache::open::require_cache_folder(dir)?;
        let folder: Arc<dyn Backend> = Arc::new(crate::backend::folder::Folder::new(dir));
        Ok(
            crate::index::checkpoint::build(&folder, true, true, Sources::Every)?
                .map_or(0, |b| b.lines),
        )
    }
}
