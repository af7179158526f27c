//! MessagePack: the primary wire format.

mod read;
mod write;

pub use read::{describe_marker, marker_kind, Integer, MsgpackReader, DEFAULT_DEPTH_LIMIT};
pub use write::MsgpackWriter;
