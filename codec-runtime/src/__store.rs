//! What the store (the `codec-store` crate) builds on below the public
//! interface: byte buffers kept apart from a value's MessagePack (out of
//! band), the arrays' parts, and the JSON number scanner of the index
//! lines. Not a public interface.

pub use crate::convert::{to_msgpack_diverting, to_msgpack_tracking};
/// Values of types with a store handler met inside another value.
pub mod handled {
    pub use crate::msgpack::handled::{
        divert, reading_handled, refuse_merged, undivert, Divert, HandledType, Undivert,
        HANDLED_EXT,
    };
}
/// The JSON number scanner.
pub mod number {
    pub use crate::json::number::*;
}
pub use crate::msgpack::out_of_band::{Backing, LargeBin, OutOfBand};

/// What the store asks of a type's schema.
pub mod schema {
    pub use crate::schema::__tools::stored_schema;
    pub use crate::schema::readable::check_readable;
    pub use crate::schema::{info, wire_name, SchemaInfo};
}

/// The parts of an ndarray array on the wire.
#[cfg(feature = "ndarray")]
pub mod ndarray {
    pub use crate::impls::ndarray::{
        checked_shape, raw_bytes, read_msgpack_parts, write_json_parts, write_msgpack_parts,
        Element,
    };
}

/// Arrow IPC files of record batches.
#[cfg(feature = "arrow")]
pub mod arrow {
    pub use crate::impls::arrow::{decode_ipc_file, ipc_file};
}

/// The default handler a type names for the store
/// (`#[codec(handler = ..)]`, read through `Schema::__STORE_HANDLER`).
#[derive(Clone, Copy, Debug)]
pub enum DefaultHandler {
    /// A handler by name: a built-in one (`"file"`, `"shared"`), or one
    /// each handle registers.
    Named(&'static str),
    /// A handler type: the function builds it, an
    /// `Arc<dyn codec_store::Handler>` in the box (the store's trait is
    /// above this crate).
    Made(fn() -> Box<dyn core::any::Any + Send + Sync>),
}
