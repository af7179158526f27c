//! The cache store of [codec](https://docs.rs/codec): use it through
//! `codec`, which re-exports the handle and its options at its root
//! (`codec::Cache`, `codec::CacheOptions`, `codec::PutOptions`,
//! `codec::StoreError`) and the rest as `codec::store`, where the store's
//! documentation is.
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let dir = tempfile::tempdir()?;
//! let cache = codec::Cache::open(dir.path())?;
//! cache.put("answer", &42u32)?;
//! assert_eq!(cache.get::<u32>("answer")?, Some(42));
//! # Ok(())
//! # }
//! ```

// The crate's layers, each built on the ones before it only (no module
// imports one of a later layer):
// - `layout`: names and constants of the files;
// - `backend/`: where bytes live (a folder, memory, object storage) and
//   the seam they share, with its capabilities (appends in place, memory
//   maps, locks, local files);
// - `error`: the store's errors (a backend's among their causes);
// - `index/`: the index lines, their records, the logs, the checkpoint's
//   tables and manifest, and the in-memory index of a handle;
// - `options`: a handle's and a put's options;
// - `content/`: what a value becomes in storage: handlers, the auto
//   handler that keeps buffers apart, arrays, Arrow, ranged reads, the
//   local copy of remote reads (a backend that wraps another);
// - `cache/`: the handle and the verbs a user calls (put, get, keys,
//   batches, memos, arrays), and opening one;
// - `admin/`: what a maintainer runs (compaction, checkpoints, verify,
//   rebuild).

#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod __fuzz;
#[doc(hidden)]
pub mod __handler;
#[doc(hidden)]
pub mod __ids;
#[doc(hidden)]
pub mod __memoized;
mod admin;
pub mod backend;
mod cache;
mod compaction;
mod content;
mod error;
mod index;
mod layout;
mod options;

pub use admin::{Admin, Bounds, Compacted, Reduced, Used};
pub use cache::declared::{DeclaredSchemaError, DeclaredType, EncodedValue};
pub use cache::memo_state::MemoState;
pub use cache::{Cache, Ref};
#[cfg(feature = "ndarray")]
pub use content::array::{ArrayHandler, MappedArray};
#[cfg(feature = "arrow")]
pub use content::arrow::{ArrowBatchesHandler, ArrowHandler};
pub use content::dump_self::{DumpSelf, SelfDumping};
pub use content::handler::{
    DumpContext, FilePerEntry, Handler, Inline, LoadContext, Shared, SharedWriter,
};
pub use content::parts::Part;
pub use content::typed::{TableInfo, Typed, TypedHandler};
pub use error::{Address, StoreError};
pub use index::line::InfoRef;
pub use index::records::{Info, InfoValue, Mode};
pub use index::EntryInfo;
#[doc(hidden)]
pub use layout::STORE_FORMAT;
pub use options::{CacheOptions, LocalCache, PutOptions};
