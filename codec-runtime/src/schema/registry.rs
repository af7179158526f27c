//! Types that register themselves for `DriftCheck::all`
//! (and `codec::python::Module::all`):
//! `#[derive(Codec)]` submits every non-generic type with a
//! `#[codec(name = "...")]` or `#[codec(version = N)]`, through the
//! `inventory` crate, so a type cannot be left out of the check by
//! forgetting to list it.

use super::SchemaInfo;
use crate::codec::Schema;

/// A type the derive registered. Not built by hand: the derive emits it.
pub struct Registered {
    /// The type's schema facts.
    pub(crate) info: fn() -> &'static SchemaInfo,
    /// The type's Rust path, for messages.
    pub(crate) rust_name: fn() -> &'static str,
    /// `module_path!()` where the type is defined.
    pub(crate) module: &'static str,
}

impl Registered {
    /// The registration of `T`, defined in `module`.
    pub const fn new<T: Schema + 'static>(module: &'static str) -> Self {
        Registered {
            info: super::info::<T>,
            rust_name: std::any::type_name::<T>,
            module,
        }
    }

    /// Whether the type is one of codec's own (the store's records), which
    /// codec's tests check against its own files.
    pub(crate) fn is_codecs_own(&self) -> bool {
        ["codec_runtime", "codec_store"].iter().any(|own| {
            self.module
                .strip_prefix(own)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with("::"))
        })
    }
}

inventory::collect!(Registered);

/// Every registered type of the program, in no set order.
pub(crate) fn registered() -> impl Iterator<Item = &'static Registered> {
    inventory::iter::<Registered>.into_iter()
}
