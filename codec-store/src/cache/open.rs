//! Opening a cache: on a folder (its subfolders and lock), on another
//! backend, and the layout version every store starts with.

use parking_lot::{Mutex, RwLock};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use crate::backend::folder::Folder;
#[cfg(feature = "object-store")]
use crate::backend::object;
use crate::backend::{Backend, Lock, Locking};
use crate::cache::checkpointer::Checkpointer;
use crate::cache::lease;
use crate::cache::memo;
use crate::cache::now_nanos;
use crate::cache::threads::Turns;
use crate::cache::writers;
use crate::cache::writers::{LogWriter, Writer};
use crate::cache::Cache;
use crate::content::apart;
#[cfg(feature = "ndarray")]
use crate::content::array::ArrayHandler;
use crate::content::handler::FilePerEntry;
use crate::content::handler::Inline;
use crate::content::handler::Resources;
use crate::content::handler::Shared;
use crate::content::local_cache::LocalCached;
use crate::content::typed;
#[cfg(feature = "arrow")]
use crate::content::{
    arrow::{ArrowBatchesHandler, ArrowHandler},
    typed::Typed,
};
use crate::error::StoreError;
use crate::index::records::StoreMeta;
use crate::index::Index;
use crate::layout;
use crate::layout::STORE_FORMAT;
use crate::options::CacheOptions;

impl Cache {
    /// Opens (creating if needed) the cache folder `dir`. A URL
    /// (`s3://bucket/prefix`, `file:///path`, `memory://`) opens as
    /// `Cache::open_url` does, with the `object-store` feature; without it,
    /// a URL is refused rather than taken for a folder named `s3:`.
    pub fn open(dir: impl AsRef<Path>) -> Result<Cache, StoreError> {
        Self::open_with(dir, CacheOptions::default())
    }

    /// Opens the store that is at `location` (a folder, or a URL as
    /// [`Cache::open`] takes them), never creating one: a location with no
    /// store is [`StoreError::Open`]. For a location given by hand (a
    /// command's argument), where a typo must not make an empty cache.
    ///
    /// ```
    /// # fn main() -> Result<(), codec::StoreError> {
    /// let dir = tempfile::tempdir().unwrap();
    /// assert!(codec::Cache::open_existing(dir.path()).is_err());
    /// codec::Cache::open(dir.path())?.put("k", &1u8)?;
    /// assert_eq!(codec::Cache::open_existing(dir.path())?.get::<u8>("k")?, Some(1));
    /// # Ok(())
    /// # }
    /// ```
    pub fn open_existing(location: impl AsRef<Path>) -> Result<Cache, StoreError> {
        let location = location.as_ref();
        match location.to_str().filter(|l| is_url(l)) {
            Some(url) => open_existing_url(url),
            None => {
                require_cache_folder(location)?;
                Cache::open(location)
            }
        }
    }

    /// Opens the cache folder (or URL, see [`Cache::open`]) `dir` with
    /// options. While a compaction of the folder runs
    /// ([`Admin::compact`](crate::Admin::compact)), this waits for it to end.
    pub fn open_with(dir: impl AsRef<Path>, options: CacheOptions) -> Result<Cache, StoreError> {
        let dir = dir.as_ref();
        if let Some(url) = dir.to_str().filter(|d| is_url(d)) {
            #[cfg(feature = "object-store")]
            return Self::open_url_with(url, options);
            #[cfg(not(feature = "object-store"))]
            return Err(StoreError::open(
                url,
                "a URL needs codec's `object-store` feature \
                 (and `aws`, `gcp` or `azure` for s3://, gs:// and az://)",
            ));
        }
        if let Some(location) = dir.to_str().filter(|d| looks_like_url(d)) {
            return Err(StoreError::NotAUrl {
                location: location.to_owned(),
            });
        }
        let folder = Folder::new(dir);
        refuse_foreign(&folder, &options)?;
        create_folder(dir)?;
        Self::open_backend(Arc::new(folder), options)
    }

    /// Opens the cache whose objects `backend` holds (creating it if
    /// needed): a folder ([`backend::folder::Folder`](crate::backend::folder::Folder), as [`Cache::open_with`]
    /// does), memory ([`backend::memory::Memory`](crate::backend::memory::Memory)) or one of your own.
    pub fn open_backend(
        backend: Arc<dyn Backend>,
        options: CacheOptions,
    ) -> Result<Cache, StoreError> {
        refuse_foreign(&*backend, &options)?;
        check_meta(&*backend)?;
        // Handles share the store's lock, which a compaction takes alone.
        // Where there is none to take (a backend without locks, a
        // read-only folder without one, a file system without locks), go
        // on without: only compaction relies on it, and it refuses to run
        // there.
        let lock = (backend.locks())
            .and_then(|locks| locks.lock(layout::LOCK, Locking::Shared).ok().flatten());
        Self::open_on(backend, options, lock)
    }

    /// Opens the store `backend` holds (a cache already) without its
    /// shared lock: under the lock a compaction holds alone.
    pub(crate) fn open_unlocked(
        backend: Arc<dyn Backend>,
        options: CacheOptions,
    ) -> Result<Cache, StoreError> {
        Self::open_on(backend, options, None)
    }

    fn open_on(
        backend: Arc<dyn Backend>,
        options: CacheOptions,
        lock: Option<Lock>,
    ) -> Result<Cache, StoreError> {
        let cache = Self::unread(backend, options, lock)?;
        cache.refresh()?;
        Ok(cache)
    }

    /// A handle on the store `backend` holds (a cache already, not a
    /// folder) that has read nothing of it yet: for writing only, as a
    /// compaction's copies are written (reading the store is a request per
    /// segment there).
    pub(crate) fn open_unread(
        backend: Arc<dyn Backend>,
        options: CacheOptions,
    ) -> Result<Cache, StoreError> {
        Self::unread(backend, options, None)
    }

    fn unread(
        backend: Arc<dyn Backend>,
        options: CacheOptions,
        lock: Option<Lock>,
    ) -> Result<Cache, StoreError> {
        if options.memo_lease < lease::MIN_LEASE {
            return Err(StoreError::open(
                backend.location(),
                format!(
                    "CacheOptions::memo_lease is {:?}, which would expire between the requests \
                     that renew it; give it {:?} at least",
                    options.memo_lease,
                    lease::MIN_LEASE,
                ),
            ));
        }
        let mut writer = Writer::default();
        // Take up the log of a handle that is gone, if any (a compaction
        // writes a log of its own).
        let claimed = match lock {
            Some(_) => writers::claim_dead(&*backend)?,
            None => None,
        };
        let writer_id = match claimed {
            Some((id, segment, log)) => {
                writer.segment = segment;
                writer.seq = log.next_seq;
                writer.last_time = log.last_time;
                writer.torn = log.torn;
                writer.log = Some(log);
                id
            }
            None => new_writer_id(),
        };
        // Where objects are files of this machine, their data is local
        // already: no local cache.
        let loads = match &options.local_cache {
            Some(local) if backend.file_path(layout::DATA).is_none() => {
                Arc::new(LocalCached::new(backend.clone(), local)) as Arc<dyn Backend>
            }
            _ => backend.clone(),
        };
        // A folder's root: where its layout file is, if it is a file.
        let dir = backend
            .file_path(layout::META)
            .and_then(|meta| meta.parent().map(Path::to_path_buf));
        let use_interval = options.use_interval;
        let warnings: Arc<Mutex<Vec<String>>> = Default::default();
        let turns = Arc::new(Turns::for_this_machine());
        let checkpointer = Checkpointer::new(
            backend.clone(),
            options.checkpoint_bytes,
            warnings.clone(),
            turns.clone(),
        );
        let writer = LogWriter::new(
            backend.clone(),
            writer_id.clone(),
            &options,
            writer,
            warnings.clone(),
        );
        let cache = Cache::own(crate::cache::Store {
            dir,
            backend,
            loads,
            writer_id,
            options,
            writer,
            index: Arc::new(RwLock::new(Index::default())),
            handlers: RwLock::new(HashMap::default()),
            inline: Arc::new(Inline),
            inline_replaced: AtomicBool::new(false),
            registry: typed::Registry::default(),
            resources: Resources::default(),
            buffers: Default::default(),
            memo: memo::Memo::default(),
            uses: crate::cache::uses::Uses::new(use_interval),
            checkpointer,
            turns,
            upkeep: Default::default(),
            warnings,
            _lock: lock,
        });
        for h in [
            cache.inline.clone(),
            Arc::new(Shared),
            Arc::new(FilePerEntry),
            Arc::new(apart::Auto),
        ] {
            cache.register_handler(h);
        }
        #[cfg(feature = "ndarray")]
        cache.register_handler(Arc::new(ArrayHandler));
        #[cfg(feature = "arrow")]
        {
            cache.register_default_handler::<arrow_array::RecordBatch>(Typed::new(ArrowHandler));
            cache.register_default_handler::<Vec<arrow_array::RecordBatch>>(Typed::new(
                ArrowBatchesHandler,
            ));
        }
        Ok(cache)
    }
}

/// A writer id unique per handle: time, process id, counter, and 32
/// random bits, so that writers on two machines (one bucket, one shared
/// folder) never take the same id even with equal clocks and process ids.
fn new_writer_id() -> String {
    // Seeded (a simulation replaying a run): from the seed.
    if let Some(id) = crate::__ids::seeded_writer_id() {
        return id;
    }
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let random = crate::__ids::random_bits(n);
    format!(
        "{:013x}-{}-{n}-{random:08x}",
        now_nanos() / 1000,
        std::process::id()
    )
}

/// Whether `location` is a URL (`scheme://...`) rather than a path: a
/// scheme of letters, digits, `+`, `-` or `.`, starting with a letter, of
/// two letters at least (so that `C://x` stays a Windows path).
fn is_url(location: &str) -> bool {
    let Some((scheme, _)) = location.split_once("://") else {
        return false;
    };
    let mut chars = scheme.chars();
    scheme.len() >= 2
        && chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
}

/// Whether `location`, not a URL, would be one but for its slashes:
/// `s3:/bucket`, `s3:bucket`, `memory:`. A folder of such a name is more
/// likely a mistyped URL than meant (`./s3:bucket` opens it).
fn looks_like_url(location: &str) -> bool {
    let Some((scheme, _)) = location.split_once(':') else {
        return false;
    };
    !is_url(location) && scheme.len() >= 2 && is_url(&format!("{scheme}://"))
}

/// Refuses a store's root that holds other things and no cache, unless
/// `options` adopt it: opening it would write the cache's files among
/// them.
fn refuse_foreign(backend: &dyn Backend, options: &CacheOptions) -> Result<(), StoreError> {
    if options.adopt_folder {
        return Ok(());
    }
    match backend.foreign()? {
        Some(found) => Err(StoreError::NotACache {
            dir: PathBuf::from(backend.location()),
            found,
        }),
        None => Ok(()),
    }
}

/// Creates the folder and its subfolders if needed, and checks its layout.
pub(crate) fn create_folder(dir: &Path) -> Result<(), StoreError> {
    // Creating the subfolders creates `dir`.
    for d in [&dir.join(layout::DATA), &dir.join(layout::SCHEMAS)] {
        std::fs::create_dir_all(d).map_err(|e| StoreError::io(d, e))?;
    }
    check_meta(&Folder::new(dir))
}

/// Creates `codec-store.json`, or checks that its layout version is one this
/// codec reads.
fn check_meta(backend: &dyn Backend) -> Result<(), StoreError> {
    match backend.read(layout::META)? {
        Some(bytes) => {
            let meta: StoreMeta =
                codec_runtime::from_json_slice(&bytes).map_err(|e| {
                    StoreError::damaged_file(
                        backend,
                        layout::META,
                        format!(
                            "{e}. It holds the layout version of the store, `{{\"format\":{STORE_FORMAT}}}` \
                             for this codec's layout"
                        ),
                    )
                })?;
            if meta.format > STORE_FORMAT {
                return Err(StoreError::Format { found: meta.format });
            }
            Ok(())
        }
        None => {
            let meta = codec_runtime::to_json_vec(&StoreMeta {
                format: STORE_FORMAT,
            })?;
            // Another process may win the race: either file is the same.
            // Synced: a layout file a power cut leaves empty or cut short
            // would keep the store from opening, and every entry written
            // with `fsync` with it.
            backend.create(layout::META, &meta, true)?;
            Ok(())
        }
    }
}

/// Raises the store's layout version to `format` at least, once a handle
/// is about to write what only that layout reads (an entry holding values
/// kept by their handlers, a sealed segment): a codec that reads an
/// earlier one then refuses the store rather than lose them.
pub(crate) fn raise_format(backend: &dyn Backend, format: u32) -> Result<(), StoreError> {
    check_meta(backend)?;
    let found = backend
        .read(layout::META)?
        .and_then(|bytes| codec_runtime::from_json_slice::<StoreMeta>(&bytes).ok());
    if found.is_some_and(|meta| meta.format >= format) {
        return Ok(());
    }
    let meta = codec_runtime::to_json_vec(&StoreMeta { format })?;
    Ok(backend.write(layout::META, &meta, true)?)
}

#[cfg(feature = "object-store")]
impl Cache {
    /// Opens (creating if needed) the cache at `url`: `s3://bucket/prefix`,
    /// `gs://bucket/prefix`, `az://container/prefix` (with the `aws`,
    /// `gcp` or `azure` feature; credentials, region and endpoint from
    /// the usual environment variables, `AWS_*`, `GOOGLE_*`, `AZURE_*`),
    /// `memory://` (a new empty store in memory) or `file:///path` (a
    /// folder, as [`Cache::open`](Cache::open)).
    pub fn open_url(url: &str) -> Result<Cache, StoreError> {
        Self::open_url_with(url, CacheOptions::default())
    }

    /// [`open_url`](Self::open_url) with options.
    pub fn open_url_with(url: &str, options: CacheOptions) -> Result<Cache, StoreError> {
        let at = object::Objects::from_url_with(url, &options.retries).map_err(refused_url)?;
        match at {
            object::At::Folder(path) => Self::open_with(path, options),
            object::At::Objects(backend) => Self::open_backend(Arc::new(backend), options),
        }
    }

    /// Opens (creating if needed) the cache under `prefix` of an object
    /// store you configured.
    pub fn open_store(
        store: Arc<dyn object_store::ObjectStore>,
        prefix: &str,
        options: CacheOptions,
    ) -> Result<Cache, StoreError> {
        let url = format!(
            "{}/{}",
            object::store_url(&*store),
            prefix.trim_matches('/')
        );
        let backend =
            object::Objects::new(store, prefix, url.clone()).map_err(|e| StoreError::Open {
                location: url,
                reason: "the runtime of its object store did not start".into(),
                source: Some(e.into()),
            })?;
        Self::open_backend(Arc::new(backend), options)
    }
}

/// An error unless `dir` is a cache folder already: what works on one
/// (compaction, rebuilding the index, a command) never makes one of
/// another folder.
pub(crate) fn require_cache_folder(dir: &Path) -> Result<(), StoreError> {
    if dir.join(layout::META).exists() {
        return Ok(());
    }
    Err(StoreError::open(
        dir.display().to_string(),
        format!("it is not a codec cache folder (no {})", layout::META),
    ))
}

/// [`Cache::open_existing`] of a URL.
#[cfg(feature = "object-store")]
fn open_existing_url(url: &str) -> Result<Cache, StoreError> {
    let at = object::Objects::from_url(url).map_err(refused_url)?;
    match at {
        object::At::Folder(dir) => {
            require_cache_folder(&dir)?;
            Cache::open(dir)
        }
        object::At::Objects(objects) => {
            if objects.read(layout::META)?.is_none() {
                let why = format!("it is not a codec cache (no {})", layout::META);
                return Err(StoreError::open(url, why));
            }
            Cache::open_backend(Arc::new(objects), Default::default())
        }
    }
}

#[cfg(not(feature = "object-store"))]
fn open_existing_url(url: &str) -> Result<Cache, StoreError> {
    Err(StoreError::open(
        url,
        "a URL needs the `object-store` feature (and `aws`, `gcp` or `azure` for the clouds)",
    ))
}

/// The error of a URL [`object::Objects::from_url`] refused.
#[cfg(feature = "object-store")]
pub(crate) fn refused_url(e: crate::backend::BackendError) -> StoreError {
    // The backend's message says why; the errors behind it (a URL's
    // parse error, the object store's builder) are in that message.
    StoreError::open(e.address, e.source.to_string())
}

#[cfg(test)]
mod tests {
    use super::{is_url, looks_like_url};

    #[test]
    fn mistyped_urls_are_told_from_folders() {
        for mistyped in [
            "s3:/bucket/x",
            "s3:bucket/x",
            "gs:b",
            "memory:",
            "file:/tmp/x",
        ] {
            assert!(looks_like_url(mistyped), "{mistyped}");
        }
        for path in [
            "s3://bucket/x",
            "cache",
            "./s3:/x",
            "dir/s3:x",
            "C:/x",
            "C:x",
            "/tmp/a:b",
            "a b:c",
        ] {
            assert!(!looks_like_url(path), "{path}");
        }
    }

    #[test]
    fn urls_are_told_from_paths() {
        for url in [
            "s3://bucket/p",
            "gs://b",
            "az://c/d",
            "file:///tmp/x",
            "memory://",
        ] {
            assert!(is_url(url), "{url}");
        }
        for path in [
            "cache",
            "/tmp/cache",
            "./s3:/x",
            "C://x",
            "a b://c",
            "://x",
            "dir/s3://x",
        ] {
            assert!(!is_url(path), "{path}");
        }
    }
}
