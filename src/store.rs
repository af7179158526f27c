//! The cache store: typed values in a folder, written safely by many threads
//! and processes. The handle is [`Cache`](crate::Cache), its options
//! [`CacheOptions`](crate::CacheOptions) and [`PutOptions`](crate::PutOptions),
//! its errors [`StoreError`](crate::StoreError), at the crate's root; what
//! the rest of a store is made of is here.
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! #[derive(codec::Codec, Debug, PartialEq)]
//! struct Chunk { text: String, start: u32 }
//!
//! let dir = tempfile::tempdir()?;
//! let cache = codec::Cache::open(dir.path())?;
//! cache.put("chunk/42", &Chunk { text: "hi".into(), start: 0 })?;
//! let chunk: Option<Chunk> = cache.get("chunk/42")?;
//! assert_eq!(chunk.unwrap().text, "hi");
//! cache.remove("chunk/42")?;
//! assert!(!cache.contains("chunk/42")?);
//! # Ok(())
//! # }
//! ```
//!
//! # Layout
//! - `codec-store.json`: the layout version.
//! - `<writer>-info.jsonl`: one index file (log) per writer (per [`Cache`](crate::Cache)
//!   handle writing at a time), one JSON line per entry: `#key`, `#type`, the schema
//!   fingerprint, the handler and its info, and a CRC-32.
//! - `data/`: payloads the handlers put in files. Large byte buffers inside
//!   a value (arrays' data) are kept there apart from the rest of it and
//!   read back from a memory map ([`CacheOptions::apart_min`](crate::CacheOptions::apart_min)); on
//!   backends without maps, by a ranged read of exactly their bytes.
//! - `schemas/<fingerprint>.json`: each writer schema, once.
//! - `used/<writer>-<n>.jsonl`: the keys a handle read, and when, written
//!   at most once per key and [`CacheOptions::use_interval`](crate::CacheOptions::use_interval):
//!   what [`Admin::reduce_size`] knows of last uses.
//! - `checkpoint.json` and `index/*.idx`: the index checkpoint, sorted
//!   memory-mapped tables of the live line of each key, and how far into
//!   each log they reach. Derived data: always rebuilt from the logs when
//!   damaged ([`Admin::checkpoint`], [`Admin::rebuild_index`]).
//!
//! Opening a folder maps the checkpoint and reads only the log lines
//! written after it; checkpoints build in the background past
//! [`CacheOptions::checkpoint_bytes`](crate::CacheOptions::checkpoint_bytes). A handle holds a lock on its log;
//! a new handle takes up the log of one that is gone, so a folder has at
//! most as many logs as handles that wrote to it at the same time.
//!
//! Other backends than a folder (memory, your own) go through
//! [`Cache::open_backend`](crate::Cache::open_backend): see [`backend`]. They have no memory maps:
//! each get reads exactly the bytes its value needs, one ranged read
//! (`Cache::get_array_rows`, with the `ndarray` feature, reads part of an
//! array), and [`CacheOptions::local_cache`](crate::CacheOptions::local_cache) keeps what was read on the
//! local disk.
//!
//! # Safety under concurrency and crashes
//! A writer appends only to its own files. Data is written before the index
//! line that points at it, and each line is one `write`. Readers skip a torn
//! last line and corrupt lines (see [`Cache::warnings`](crate::Cache::warnings)). The latest write of
//! a key wins (by time, then writer id, then sequence); a removal is a line
//! too, so it hides the key from every reader.
//!
//! Durability: by default nothing is fsynced, so a process crash loses at most
//! the entry being written, but an OS crash or power loss may lose recent
//! entries. [`CacheOptions::fsync`](crate::CacheOptions::fsync) syncs data and index on every write.

#[doc(hidden)]
pub use codec_store::__ids;
pub use codec_store::backend;
#[doc(hidden)]
pub use codec_store::STORE_FORMAT;
pub use codec_store::{
    Address, Admin, Bounds, Compacted, DeclaredSchemaError, DeclaredType, DumpContext, DumpSelf,
    EncodedValue, EntryInfo, FilePerEntry, Handler, Info, InfoRef, InfoValue, Inline, LoadContext,
    LocalCache, MemoState, Mode, Reduced, SelfDumping, Shared, SharedWriter, TableInfo, Typed,
    TypedHandler, Used,
};
#[cfg(feature = "ndarray")]
pub use codec_store::{ArrayHandler, MappedArray};
#[cfg(feature = "arrow")]
pub use codec_store::{ArrowBatchesHandler, ArrowHandler};
