//! `Codec` for the standard library's types.

#[cfg(feature = "arrow")]
pub mod arrow;
pub mod bytes;
#[cfg(feature = "chrono")]
pub(crate) mod chrono;
mod collections;
#[cfg(feature = "num-complex")]
mod complex;
#[cfg(feature = "decimal")]
mod decimal;
#[cfg(feature = "ndarray")]
pub mod ndarray;
mod primitives;
#[cfg(feature = "serde")]
pub mod serde_bridge;
#[cfg(feature = "serde")]
pub mod serde_opaque;
#[cfg(feature = "serde")]
pub(crate) mod serde_wrapper;
mod std_types;
mod times;
#[cfg(feature = "uuid")]
mod uuid;
mod wrappers;
