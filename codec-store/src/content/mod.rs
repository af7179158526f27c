//! What an entry's value becomes in storage: the handlers (inline, shared
//! data files, a file per entry, your own), the auto handler that keeps
//! large buffers apart, arrays and Arrow tables, ranged reads of data
//! files, and the local copy of what was read from object storage.

pub(crate) mod apart;
#[cfg(feature = "ndarray")]
pub(crate) mod array;
#[cfg(feature = "arrow")]
pub(crate) mod arrow;
pub(crate) mod dump_self;
pub(crate) mod handler;
pub(crate) mod local_cache;
pub(crate) mod parts;
pub(crate) mod ranged;
pub(crate) mod sub_values;
pub(crate) mod typed;
