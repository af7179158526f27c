//! MessagePack: the primary wire format. The reader and writer are
//! [`crate::MsgpackReader`] and [`crate::MsgpackWriter`]; here are the details
//! they share with hand-written impls: integers of any width, and the
//! default depth limit of a reader.

pub(crate) mod handled;
mod marker;
pub(crate) mod out_of_band;
pub(crate) mod read;
pub(crate) mod write;

pub use crate::wire::{Integer, DEFAULT_DEPTH_LIMIT};
pub(crate) use out_of_band::LargeBin;
pub(crate) use read::MsgpackReader;
pub(crate) use write::MsgpackWriter;
