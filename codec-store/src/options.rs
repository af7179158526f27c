//! The options of a cache handle and of one put.

use super::{backend, LocalCache, Mode};
#[cfg(doc)]
use super::{Cache, StoreError, Typed};

/// Options of a [`Cache`] handle.
#[derive(Debug, Clone)]
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
    /// [`Cache::get_or_insert_with`] and [`Cache::get_or_try_insert_with`]
    /// return the error of an entry they cannot read as their type (a
    /// breaking change of the type, damaged data), as [`Cache::get`] does,
    /// instead of computing the value again (default: off).
    pub memo_strict: bool,
    /// [`Cache::get_or_insert_with`] and [`Cache::get_or_try_insert_with`]
    /// take a lock file per key (`locks/<hash>.lock`) while they compute,
    /// so that handles in other processes wait and compute each entry once
    /// (default: off; within a handle, one computation per key is always
    /// the rule). The cost, on a miss only: creating, locking and unlocking
    /// a file and re-reading the index (about 70 µs more per miss on a
    /// local disk, see the README); one empty file per key computed,
    /// deleted by compaction.
    pub memo_lock: bool,
    /// Build a checkpoint (in a background thread) once this many bytes
    /// of the logs are not covered by one: opening the folder reads that
    /// much at most (default: 4 MiB, about 12,000 lines of small values;
    /// 0: only [`Cache::checkpoint`] builds one). The environment variable
    /// `CODEC_STORE_CHECKPOINT_BYTES` sets the default (tests run the
    /// store's suite with a tiny one).
    pub checkpoint_bytes: u64,
    /// How a failed request to object storage is retried where
    /// `Cache::open_url_with` builds the store from its URL (default:
    /// at most 10 retries within 3 minutes, `object_store`'s): see
    /// [`backend::Retries`].
    pub retries: backend::Retries,
    /// The mode [`Cache::put`] stores values in (default: MessagePack);
    /// [`Cache::put_with`] takes its own. In raw mode only byte buffers
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
    /// folder is refused with [`StoreError::NotACache`] and nothing is
    /// written there, so that a mistyped path (`"."`, `"src"`) never
    /// scatters the cache's files among a project's. A new, empty or
    /// missing folder, or one that holds a cache, opens either way.
    pub adopt_folder: bool,
}

impl Default for CacheOptions {
    fn default() -> Self {
        CacheOptions {
            fsync: false,
            inline_limit: 1024,
            apart_min: 64 * 1024,
            memo_strict: false,
            memo_lock: false,
            checkpoint_bytes: std::env::var("CODEC_STORE_CHECKPOINT_BYTES")
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(4 << 20),
            retries: backend::Retries::default(),
            mode: Mode::MsgPack,
            local_cache: None,
            adopt_folder: false,
        }
    }
}

/// How one `put` stores its value; `Default` is auto: MessagePack, inline or
/// shared by size.
#[derive(Debug, Clone, Default)]
pub struct PutOptions {
    /// The serialization. Raw mode stores a byte buffer (`Vec<u8>`,
    /// `codec::Bytes`) as its bytes and refuses any other value
    /// ([`StoreError::NotBytes`]). A [`Typed`] handler writes the value in
    /// its own format, whatever the mode.
    pub mode: Mode,
    /// A handler by name, instead of choosing by size.
    pub handler: Option<String>,
}
