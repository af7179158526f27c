//! What `#[codec(handler = path::to::Handler)]` expands to. Not a public
//! interface.

use std::any::Any;
use std::sync::Arc;

use codec_runtime::Codec;

use crate::content::dump_self::{DumpSelf, SelfDumping};
use crate::content::handler::Handler;
use crate::content::typed::{Typed, TypedHandler};

/// Builds the handler type `H` of `T`, as an `Arc<dyn Handler>` in the box
/// (`codec_runtime::__store::DefaultHandler::Made`).
pub fn made<T: Codec + 'static, H: TypedHandler<T> + Default>() -> Box<dyn Any + Send + Sync> {
    let handler: Arc<dyn Handler> = Typed::new(H::default());
    Box::new(handler)
}

/// The handler of a type that stores itself (`#[codec(handler = Self)]`).
pub fn made_self<T: DumpSelf>() -> Box<dyn Any + Send + Sync> {
    made::<T, SelfDumping<T>>()
}
