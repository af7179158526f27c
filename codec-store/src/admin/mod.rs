//! What a maintainer runs: compaction (of a folder, of object storage,
//! online) and the index checkpoint (build, verify, rebuild).

pub(crate) mod checkpoint_handle;
pub(crate) mod compact;
pub(crate) mod compact_objects;
