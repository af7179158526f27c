//! The cache store (`codec::Cache`), one module per concept. Tests that are
//! not about local files run on every backend of the build
//! (`fixtures::backends`); the modules of a backend or a value kind that
//! needs a feature are built with it.
//!
//! Some tests run this binary again as their child processes
//! (`fixtures::child`).

#[macro_use]
mod fixtures;

mod apart;
mod backends;
mod basics;
mod checkpoint;
mod compact;
mod compact_online;
mod declared;
mod expiry;
mod forged_checkpoint;
mod handled_inside;
mod handler_fixture;
mod handlers;
mod in_place;
mod memo;
mod memo_state;
mod memoize;
mod open;
mod processes;
mod program_handlers;
mod reduce;
mod sim;
mod typed;

#[cfg(feature = "ndarray")]
mod arrays;
#[cfg(feature = "arrow")]
mod arrow;
#[cfg(feature = "ndarray")]
mod fixture;
#[cfg(feature = "ndarray")]
mod sub_values;

#[cfg(feature = "object-store")]
mod object;
#[cfg(feature = "object-store")]
mod object_checkpoint;
#[cfg(all(feature = "object-store", feature = "ndarray"))]
mod object_reads;

#[cfg(feature = "azure")]
mod azure;
#[cfg(feature = "aws")]
mod s3;
#[cfg(feature = "aws")]
mod s3_memo;
#[cfg(feature = "aws")]
mod s3_processes;
