//! `Codec` for the standard library's types.

pub mod bytes;
mod collections;
mod primitives;
mod std_types;
mod wrappers;
