//! MessagePack: the primary wire format.

mod marker;
mod read;
mod text;
mod write;

pub use marker::{describe_marker, marker_kind};
pub(crate) use read::Apart;
pub use read::{Integer, MsgpackReader, DEFAULT_DEPTH_LIMIT};
pub(crate) use write::LargeBin;
pub use write::MsgpackWriter;
