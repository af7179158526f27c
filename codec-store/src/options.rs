//! The options of a cache handle and of one put.

use std::path::PathBuf;
use std::time::Duration;

use crate::backend;
use crate::index::records::Mode;

/// Options of a [`Cache`](crate::Cache) handle: the default, changed by
/// the method of each option, so that a new option in a later version
/// breaks no code.
///
/// ```
/// let options = codec::CacheOptions::default().fsync(true).memo_lock(true);
/// assert!(options.fsync && !options.adopt_folder);
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct CacheOptions {
    /// Sync data and index files to disk on every write (default: off).
    pub fsync: bool,
    /// Payloads up to this size go in the index line; larger ones to the
    /// shared data file (default: 1024 bytes).
    pub inline_limit: usize,
    /// Byte buffers of at least this size inside a MessagePack value
    /// (arrays' data, byte strings), however deep, are stored apart: raw
    /// and aligned in the shared data file, read back from a memory map
    /// (default: 64 KiB; values below 4 KiB count as 4 KiB). The rest of
    /// the value is stored as usual.
    pub apart_min: usize,
    /// [`Cache::get_or_insert_with`](crate::Cache::get_or_insert_with) and [`Cache::get_or_try_insert_with`](crate::Cache::get_or_try_insert_with)
    /// return the error of an entry they cannot read as their type (a
    /// breaking change of the type, damaged data), as [`Cache::get`](crate::Cache::get) does,
    /// instead of computing the value again (default: off).
    pub memo_strict: bool,
    /// [`Cache::get_or_insert_with`](crate::Cache::get_or_insert_with),
    /// its kin and `#[codec::memoize]` compute each key again the first
    /// time this handle is asked for it, and replace the stored value; the
    /// next calls of this handle hit what it stored (CocoIndex's
    /// `full_reprocess`). Unlike [`Cache::clear`](crate::Cache::clear), no
    /// value is gone before its new one is stored: other handles, and this
    /// one's plain gets, read the old values until then (default: off).
    pub memo_recompute: bool,
    /// [`memo_recompute`](CacheOptions#structfield.memo_recompute) for the
    /// memo keys under these prefixes only: a memoized function's keys
    /// start with its path (`my_crate::embed/v1/...`), so `my_crate::embed`
    /// recomputes that function and `my_crate::pages` every function of
    /// that module. A prefix matches whole path segments (`my_crate::embed`
    /// is not `my_crate::embed_all`). The environment variable
    /// `CODEC_RECOMPUTE` sets the default: prefixes separated by commas.
    pub memo_recompute_prefixes: Vec<String>,
    /// [`Cache::get_or_insert_with`](crate::Cache::get_or_insert_with) and [`Cache::get_or_try_insert_with`](crate::Cache::get_or_try_insert_with)
    /// take a lock per key (`locks/<hash>.lock`) while they compute, so
    /// that handles in other processes, and on other machines sharing the
    /// store, wait and compute each entry once (default: off; within a
    /// handle, one computation per key is always the rule).
    ///
    /// In a folder the lock is a locked file. The cost, on a miss only:
    /// creating, locking and unlocking a file and re-reading the index
    /// (about 70 µs more per miss on a local disk); one empty file per key
    /// computed, deleted by compaction.
    ///
    /// On object storage (and in memory) it is a lease: an object holding
    /// its holder and when it expires, created if absent, renewed while
    /// the computation runs and deleted after it; a process killed while
    /// it computes holds the key up for [`memo_lease`](CacheOptions#structfield.memo_lease)
    /// at most. Waiting callers poll (from 10 ms up to a second apart) and
    /// return the value as soon as it is stored. The cost, on a miss only:
    /// four requests (the lease created, read and deleted, the index listed
    /// once more) and a thread that renews the lease while the value is
    /// computed; hits cost nothing more.
    pub memo_lock: bool,
    /// How long the lease of [`memo_lock`](CacheOptions#structfield.memo_lock)
    /// lasts on object storage unless renewed (default: 60 s; at least
    /// 1 s). Its holder renews it every third of that while it computes,
    /// so a computation may take as long as it needs; the duration bounds
    /// how long a process that died while computing holds its key up.
    ///
    /// Clocks: a waiter takes a lease over once the expiry written in it
    /// is past by the waiter's own clock, or once it has seen the lease
    /// unchanged for a whole duration by its own timer. A waiter whose
    /// clock runs ahead of the holder's by less than two thirds of the
    /// duration (40 s at the default), less the time a renewal's request
    /// takes, never takes a lease that is still renewed; one whose clock
    /// lags waits one duration at most after it first sees a lease no
    /// longer renewed. A holder stalled for longer than the duration (a
    /// machine suspended) may find its lease taken over: it then warns,
    /// and the key may be computed twice.
    pub memo_lease: Duration,
    /// Build a checkpoint (in a background thread) once this many bytes
    /// of the logs are not covered by one: opening the folder reads that
    /// much at most (default: 4 MiB, about 12,000 lines of small values;
    /// 0: only [`Admin::checkpoint`](crate::Admin::checkpoint) builds one). The environment variable
    /// `CODEC_STORE_CHECKPOINT_BYTES` sets the default (tests run the
    /// store's suite with a tiny one).
    pub checkpoint_bytes: u64,
    /// How a failed request to object storage is retried where
    /// `Cache::open_url_with` builds the store from its URL (default:
    /// at most 10 retries within 3 minutes, `object_store`'s): see
    /// [`backend::Retries`].
    pub retries: backend::Retries,
    /// The mode [`Cache::put`](crate::Cache::put) stores values in (default: MessagePack);
    /// [`Cache::put_with`](crate::Cache::put_with) takes its own. In raw mode only byte buffers
    /// are put, as their bytes.
    pub mode: Mode,
    /// A folder on the local disk keeping the data a cache on object
    /// storage reads, up to a size (default: none). Data objects there
    /// never change, so what it keeps never goes stale: a get of a value
    /// read before, by this handle or another on the same folder, costs
    /// no request. Ignored on a folder, whose data is local already. See
    /// [`LocalCache`].
    pub local_cache: Option<LocalCache>,
    /// Open a folder that holds other files and no cache as a new cache,
    /// its files kept beside the cache's (default: off). Without it such a
    /// folder is refused with [`StoreError::NotACache`](crate::StoreError::NotACache) and nothing is
    /// written there, so that a mistyped path (`"."`, `"src"`) never
    /// scatters the cache's files among a project's. A new, empty or
    /// missing folder, or one that holds a cache, opens either way.
    pub adopt_folder: bool,
    /// How often a handle writes which keys it used (default: one
    /// minute): a hit is noted in memory, and the keys noted are written
    /// once an interval is over, and when the handle is dropped. Each key
    /// costs at most one record per handle and interval; what
    /// [`Admin::reduce_size`](crate::Admin::reduce_size) knows of an
    /// entry's last use is that late at most.
    pub use_interval: Duration,
    /// Bounds the store keeps by itself (default: none): as a checkpoint
    /// starts (in the background every
    /// [`checkpoint_bytes`](CacheOptions#structfield.checkpoint_bytes) of
    /// writes, or [`Admin::checkpoint`](crate::Admin::checkpoint)), the handle removes what is past them, as
    /// [`Admin::reduce_size`](crate::Admin::reduce_size) does, in the
    /// thread that builds the checkpoint (never in a put); the space
    /// comes back with the next compaction.
    pub bounds: Option<Bounds>,
    /// In a folder, the size at which a writer seals the segment of its
    /// log and data it appends to and goes on in a new one (default:
    /// 64 MiB; 0: never by size). A sealed segment never grows again, so
    /// [`Admin::compact_online`](crate::Admin::compact_online) can copy
    /// what is live in it and give its space back while handles write on;
    /// the handle that compacts seals its own segment first. With
    /// [`bounds`](CacheOptions#structfield.bounds), segments are smaller:
    /// a quarter of a bound in bytes, or of the payload the last pass of
    /// other bounds kept (1 MiB at least), this size at most. The
    /// environment variable `CODEC_STORE_SEGMENT_BYTES` sets the default
    /// (tests run the store's suite with tiny segments). On object
    /// storage each append is a sealed object already.
    pub segment_bytes: u64,
    /// With [`bounds`](CacheOptions#structfield.bounds), the store
    /// compacts by itself once the bounds removed entries (in a folder
    /// also once a write sealed two segments since the last compaction
    /// started), and the store holds more than the payload the last pass
    /// of the bounds kept and as much again (8 MiB more at least): online,
    /// in a background thread; in a folder, the oldest sealed segments
    /// mostly dead, on object storage every segment (each append is one).
    /// What a compaction retires stays this long for
    /// handles whose index still names it, then the next compaction
    /// deletes it (default: zero, deleted at once: a handle that finds an
    /// entry's file gone reads the index again and the entry's copy, and
    /// one reading a file has it open or mapped, which a deletion leaves
    /// readable; give a grace period on a network file system that does
    /// not).
    pub compact_grace: Duration,
    /// The time to live of the entries this handle puts without one of
    /// their own ([`PutOptions::ttl`]): each expires that long after it
    /// is put (default: none, entries stay until removed). anystore's
    /// `default_ttl`.
    pub ttl: Option<Duration>,
}

impl Default for CacheOptions {
    fn default() -> Self {
        CacheOptions {
            fsync: false,
            inline_limit: 1024,
            apart_min: 64 * 1024,
            memo_strict: false,
            memo_recompute: false,
            memo_recompute_prefixes: std::env::var("CODEC_RECOMPUTE")
                .map(|v| recompute_prefixes(&v))
                .unwrap_or_default(),
            memo_lock: false,
            memo_lease: Duration::from_secs(60),
            checkpoint_bytes: std::env::var("CODEC_STORE_CHECKPOINT_BYTES")
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(4 << 20),
            retries: backend::Retries::default(),
            mode: Mode::MsgPack,
            local_cache: None,
            adopt_folder: false,
            use_interval: Duration::from_secs(60),
            bounds: None,
            segment_bytes: std::env::var("CODEC_STORE_SEGMENT_BYTES")
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(64 << 20),
            compact_grace: Duration::ZERO,
            ttl: None,
        }
    }
}

/// How one `put` stores its value; `Default` is auto: MessagePack, inline or
/// shared by size.
///
/// ```
/// let json = codec::PutOptions::default().mode(codec::store::Mode::Json);
/// # let _ = json;
/// ```
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct PutOptions {
    /// The serialization. Raw mode stores a byte buffer (`Vec<u8>`,
    /// `codec::Bytes`) as its bytes and refuses any other value
    /// ([`StoreError::NotBytes`](crate::StoreError::NotBytes)). A [`Typed`](crate::Typed) handler writes the value in
    /// its own format, whatever the mode.
    pub mode: Mode,
    /// A handler by name, instead of choosing by size.
    pub handler: Option<String>,
    /// How long the entry lives (default: for ever). Past it the entry is
    /// absent: `get` returns `None`, `contains` `false`, `keys` leave it
    /// out, a memo computes it again; compaction reclaims its space.
    pub ttl: Option<Duration>,
}

impl CacheOptions {
    /// Sets [`fsync`](CacheOptions#structfield.fsync).
    pub fn fsync(mut self, fsync: bool) -> Self {
        self.fsync = fsync;
        self
    }

    /// Sets [`inline_limit`](CacheOptions#structfield.inline_limit).
    pub fn inline_limit(mut self, bytes: usize) -> Self {
        self.inline_limit = bytes;
        self
    }

    /// Sets [`apart_min`](CacheOptions#structfield.apart_min).
    pub fn apart_min(mut self, bytes: usize) -> Self {
        self.apart_min = bytes;
        self
    }

    /// Sets [`memo_recompute`](CacheOptions#structfield.memo_recompute).
    ///
    /// ```
    /// # fn main() -> Result<(), codec::StoreError> {
    /// # let dir = tempfile::tempdir().unwrap();
    /// let cache = codec::Cache::open(dir.path())?;
    /// assert_eq!(cache.get_or_insert_with("summary/1", || "old".to_owned())?, "old");
    /// // A run that reprocesses everything.
    /// let again = codec::CacheOptions::default().memo_recompute(true);
    /// let run = codec::Cache::open_with(dir.path(), again)?;
    /// assert_eq!(run.get_or_insert_with("summary/1", || "new".to_owned())?, "new");
    /// assert_eq!(run.get_or_insert_with("summary/1", || "newer".to_owned())?, "new");
    /// # Ok(())
    /// # }
    /// ```
    pub fn memo_recompute(mut self, recompute: bool) -> Self {
        self.memo_recompute = recompute;
        self
    }

    /// Adds a prefix to [`memo_recompute_prefixes`](CacheOptions#structfield.memo_recompute_prefixes).
    ///
    /// ```
    /// # fn main() -> Result<(), codec::StoreError> {
    /// # let dir = tempfile::tempdir().unwrap();
    /// let cache = codec::Cache::open(dir.path())?;
    /// cache.get_or_insert_with("app::summary/v1/a", || "old".to_owned())?;
    /// cache.get_or_insert_with("app::title/v1/a", || "old".to_owned())?;
    /// let options = codec::CacheOptions::default().memo_recompute_prefix("app::summary");
    /// let run = codec::Cache::open_with(dir.path(), options)?;
    /// assert_eq!(run.get_or_insert_with("app::summary/v1/a", || "new".to_owned())?, "new");
    /// assert_eq!(run.get_or_insert_with("app::title/v1/a", || "new".to_owned())?, "old");
    /// # Ok(())
    /// # }
    /// ```
    pub fn memo_recompute_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.memo_recompute_prefixes.push(prefix.into());
        self
    }

    /// Whether a memo of this handle computes `key` again (once).
    pub(crate) fn recomputes(&self, key: &str) -> bool {
        self.memo_recompute
            || (self.memo_recompute_prefixes.iter()).any(|prefix| under_prefix(key, prefix))
    }

    /// Sets [`memo_strict`](CacheOptions#structfield.memo_strict).
    pub fn memo_strict(mut self, strict: bool) -> Self {
        self.memo_strict = strict;
        self
    }

    /// Sets [`memo_lock`](CacheOptions#structfield.memo_lock).
    pub fn memo_lock(mut self, lock: bool) -> Self {
        self.memo_lock = lock;
        self
    }

    /// Sets [`memo_lease`](CacheOptions#structfield.memo_lease).
    ///
    /// ```
    /// use std::time::Duration;
    /// let options = codec::CacheOptions::default()
    ///     .memo_lock(true)
    ///     .memo_lease(Duration::from_secs(20));
    /// # let _ = options;
    /// ```
    pub fn memo_lease(mut self, duration: Duration) -> Self {
        self.memo_lease = duration;
        self
    }

    /// Sets [`checkpoint_bytes`](CacheOptions#structfield.checkpoint_bytes).
    pub fn checkpoint_bytes(mut self, bytes: u64) -> Self {
        self.checkpoint_bytes = bytes;
        self
    }

    /// Sets [`retries`](CacheOptions#structfield.retries).
    pub fn retries(mut self, retries: backend::Retries) -> Self {
        self.retries = retries;
        self
    }

    /// Sets [`mode`](CacheOptions#structfield.mode).
    pub fn mode(mut self, mode: Mode) -> Self {
        self.mode = mode;
        self
    }

    /// Sets [`local_cache`](CacheOptions#structfield.local_cache).
    pub fn local_cache(mut self, local_cache: LocalCache) -> Self {
        self.local_cache = Some(local_cache);
        self
    }

    /// Sets [`adopt_folder`](CacheOptions#structfield.adopt_folder).
    pub fn adopt_folder(mut self, adopt: bool) -> Self {
        self.adopt_folder = adopt;
        self
    }

    /// Sets [`bounds`](CacheOptions#structfield.bounds).
    pub fn bounds(mut self, bounds: Bounds) -> Self {
        self.bounds = Some(bounds);
        self
    }

    /// Sets [`segment_bytes`](CacheOptions#structfield.segment_bytes).
    pub fn segment_bytes(mut self, bytes: u64) -> Self {
        self.segment_bytes = bytes;
        self
    }

    /// Sets [`compact_grace`](CacheOptions#structfield.compact_grace).
    pub fn compact_grace(mut self, grace: Duration) -> Self {
        self.compact_grace = grace;
        self
    }

    /// Sets [`ttl`](CacheOptions#structfield.ttl): every entry this handle
    /// puts without a time to live of its own expires that long after.
    ///
    /// ```
    /// # fn main() -> Result<(), codec::StoreError> {
    /// # let dir = tempfile::tempdir().unwrap();
    /// use std::time::Duration;
    /// let options = codec::CacheOptions::default().ttl(Duration::from_secs(86_400));
    /// let cache = codec::Cache::open_with(dir.path(), options)?;
    /// cache.put("page/1", &"a day".to_owned())?;
    /// assert!(cache.entries()?[0].expires.is_some());
    /// # Ok(())
    /// # }
    /// ```
    pub fn ttl(mut self, ttl: Duration) -> Self {
        self.ttl = Some(ttl);
        self
    }

    /// Sets [`use_interval`](CacheOptions#structfield.use_interval).
    pub fn use_interval(mut self, interval: Duration) -> Self {
        self.use_interval = interval;
        self
    }
}

impl PutOptions {
    /// Sets [`mode`](PutOptions#structfield.mode).
    pub fn mode(mut self, mode: Mode) -> Self {
        self.mode = mode;
        self
    }

    /// Sets [`handler`](PutOptions#structfield.handler): the handler of
    /// that name stores the value.
    pub fn handler(mut self, name: impl Into<String>) -> Self {
        self.handler = Some(name.into());
        self
    }

    /// Sets [`ttl`](PutOptions#structfield.ttl): the entry expires that
    /// long after it is put.
    ///
    /// ```
    /// # fn main() -> Result<(), codec::StoreError> {
    /// # let dir = tempfile::tempdir().unwrap();
    /// use std::time::Duration;
    /// let cache = codec::Cache::open(dir.path())?;
    /// let options = codec::PutOptions::default().ttl(Duration::from_secs(3600));
    /// cache.put_with("rate/eur", &1.08f64, &options)?;
    /// assert_eq!(cache.get::<f64>("rate/eur")?, Some(1.08)); // for an hour
    /// # Ok(())
    /// # }
    /// ```
    pub fn ttl(mut self, ttl: Duration) -> Self {
        self.ttl = Some(ttl);
        self
    }

    /// When an entry put at `now` expires, in nanoseconds since the Unix epoch.
    pub(crate) fn expires_at(&self, now: u64) -> Option<u64> {
        let ttl = self.ttl?;
        Some(now.saturating_add(u64::try_from(ttl.as_nanos()).unwrap_or(u64::MAX)))
    }
}

/// A folder on the local disk keeping the ranges of data objects that a
/// cache on object storage reads, up to a size: see
/// [`CacheOptions::local_cache`](crate::CacheOptions::local_cache).
///
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use codec::store::LocalCache;
///
/// let local = tempfile::tempdir()?;
/// let options = codec::CacheOptions::default()
///     .local_cache(LocalCache::new(local.path(), 10 << 30)); // 10 GiB
/// // On object storage (`Cache::open_url_with("s3://..", options)`); here in memory.
/// let store = std::sync::Arc::new(codec::store::backend::memory::Memory::new());
/// let cache = codec::Cache::open_backend(store, options)?;
/// cache.put("big", &vec![1u8; 100_000])?;
/// let _first: Vec<u8> = cache.get("big")?.unwrap(); // one ranged GET, kept locally
/// let _again: Vec<u8> = cache.get("big")?.unwrap(); // no request
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocalCache {
    /// The folder, created on first use. Caches of several stores and
    /// several processes may share it.
    pub dir: PathBuf,
    /// The size the folder's files are kept under: past it, the files read
    /// least recently are deleted. A range larger than this is not kept.
    /// Each handle keeps the bound by what its last scan of the folder
    /// found plus what it wrote since, so handles writing one folder
    /// together may overshoot it by what they write between their scans.
    pub max_bytes: u64,
}

impl LocalCache {
    /// A local cache in `dir` of at most `max_bytes`.
    pub fn new(dir: impl Into<PathBuf>, max_bytes: u64) -> Self {
        LocalCache {
            dir: dir.into(),
            max_bytes,
        }
    }
}

/// How large and how old a store may grow: see
/// [`Admin::reduce_size`](crate::Admin::reduce_size) and
/// [`CacheOptions::bounds`](crate::CacheOptions::bounds). A bound left
/// `None` does not count.
///
/// ```
/// use std::time::Duration;
/// let bounds = codec::store::Bounds::default()
///     .max_bytes(10 << 30)
///     .max_age(Duration::from_secs(30 * 86_400));
/// # let _ = bounds;
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Bounds {
    /// The most bytes of payload the live entries may hold together.
    pub max_bytes: Option<u64>,
    /// The most live entries.
    pub max_entries: Option<usize>,
    /// Entries not used for longer than this are removed.
    pub max_age: Option<Duration>,
}

impl Bounds {
    /// Sets [`max_bytes`](Bounds#structfield.max_bytes).
    pub fn max_bytes(mut self, bytes: u64) -> Self {
        self.max_bytes = Some(bytes);
        self
    }

    /// Sets [`max_entries`](Bounds#structfield.max_entries).
    pub fn max_entries(mut self, entries: usize) -> Self {
        self.max_entries = Some(entries);
        self
    }

    /// Sets [`max_age`](Bounds#structfield.max_age).
    pub fn max_age(mut self, age: Duration) -> Self {
        self.max_age = Some(age);
        self
    }

    /// Whether no bound is set.
    pub fn is_unbounded(&self) -> bool {
        self.max_bytes.is_none() && self.max_entries.is_none() && self.max_age.is_none()
    }
}

/// The prefixes of `CODEC_RECOMPUTE`: separated by commas, blanks trimmed.
fn recompute_prefixes(text: &str) -> Vec<String> {
    (text.split(','))
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(str::to_owned)
        .collect()
}

/// Whether `key` is under `prefix`, by whole path segments: the prefix is
/// the key, or ends at a `/` or `::` of it.
fn under_prefix(key: &str, prefix: &str) -> bool {
    let Some(rest) = key.strip_prefix(prefix) else {
        return false;
    };
    rest.is_empty()
        || prefix.ends_with('/')
        || prefix.ends_with("::")
        || rest.starts_with('/')
        || rest.starts_with("::")
}

#[cfg(test)]
mod recompute_tests {
    use super::{recompute_prefixes, under_prefix};

    #[test]
    fn a_prefix_matches_whole_path_segments() {
        assert!(under_prefix("app::embed/v1/ab", "app::embed"));
        assert!(under_prefix("app::pages::embed/v1/ab", "app::pages"));
        assert!(under_prefix("app::pages::embed/v1/ab", "app::pages::"));
        assert!(under_prefix("app::embed/v1/ab", "app::embed/v1"));
        assert!(under_prefix("app::embed", "app::embed"));
        assert!(!under_prefix("app::embed_all/v1/ab", "app::embed"));
        assert!(!under_prefix("app::embedding/v1/ab", "app::embed"));
        assert!(!under_prefix("other::embed/v1/ab", "app::embed"));
        assert_eq!(
            recompute_prefixes(" app::embed, ,app::pages "),
            ["app::embed", "app::pages"]
        );
    }
}
