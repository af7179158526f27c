//! What the MessagePack and JSON readers share: the cursor over the input
//! (position, nesting budget, errors carrying the offset) and the integer as
//! read from the wire. Both formats sit on this module; it depends on
//! neither.

mod cursor;
mod depth;
mod integer;

pub(crate) use cursor::Cursor;
use depth::Depth;
pub use depth::DEFAULT_DEPTH_LIMIT;
pub use integer::Integer;
