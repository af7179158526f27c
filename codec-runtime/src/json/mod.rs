//! JSON: the secondary wire format, same shape as the MessagePack encoding.

pub(crate) mod number;
mod read;
mod scan;
mod write;

pub use read::JsonReader;
pub use write::JsonWriter;
