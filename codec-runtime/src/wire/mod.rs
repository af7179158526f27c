//! What the MessagePack and JSON readers share: the integer as read from the
//! wire, and the nesting budget that bounds how deep a value may go. Both
//! formats sit on this module; it depends on neither.

mod depth;
mod integer;

pub(crate) use depth::Depth;
pub use depth::DEFAULT_DEPTH_LIMIT;
pub use integer::Integer;
