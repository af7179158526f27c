//! Values that store themselves (exca's `__dump_info__`): the type says how
//! it is written with [`DumpSelf`], and [`SelfDumping`] is its handler, so
//! no handler type of its own is needed.
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use codec::store::{DumpContext, DumpSelf, Info, InfoValue, LoadContext};
//! use codec::StoreError;
//!
//! /// A report kept as a text file of its own.
//! #[derive(codec::Codec, Debug, PartialEq)]
//! #[codec(handler = Self)] // its own handler, in every store
//! struct Report { text: String }
//!
//! impl DumpSelf for Report {
//!     const HANDLER: &'static str = "report-text";
//!
//!     fn dump_info(&self, ctx: &mut DumpContext<'_>) -> Result<Info, StoreError> {
//!         let file = ctx.write_file("txt", self.text.as_bytes())?;
//!         Ok(Info::from([("file".to_owned(), file.into())]))
//!     }
//!
//!     fn load_from_info(info: &Info, ctx: &LoadContext<'_>) -> Result<Self, StoreError> {
//!         let Some(InfoValue::Text(file)) = info.get("file") else {
//!             return Err(ctx.corrupt("no `file` in the info"));
//!         };
//!         let text = String::from_utf8(ctx.read_file(file)?).map_err(|e| ctx.corrupt(e.to_string()))?;
//!         Ok(Report { text })
//!     }
//! }
//!
//! let dir = tempfile::tempdir()?;
//! let cache = codec::Cache::open(dir.path())?;
//! cache.put("r", &Report { text: "all good".into() })?;
//! assert_eq!(cache.entries()?[0].handler, "report-text");
//! assert_eq!(cache.get::<Report>("r")?, Some(Report { text: "all good".into() }));
//! # Ok(())
//! # }
//! ```

use std::marker::PhantomData;

use codec_runtime::Codec;

use crate::content::handler::{DumpContext, LoadContext};
use crate::content::typed::TypedHandler;
use crate::error::StoreError;
use crate::index::records::Info;

/// A value that knows how it is stored: exca's `__dump_info__` and
/// `__load_from_info__`. Make it the type's handler with
/// `#[codec(handler = Self)]`, or in one handle with
/// `register_default_handler::<T>(Typed::new(SelfDumping::<T>::default()))`.
///
/// The entry's schema check covers the type as for any typed handler; the
/// format of what `dump_info` writes is the type's own: change
/// [`HANDLER`](Self::HANDLER) when it changes.
#[diagnostic::on_unimplemented(
    message = "`{Self}` does not store itself: it does not implement `DumpSelf`",
    note = "implement codec::store::DumpSelf for `{Self}`, or name a handler type: #[codec(handler = path::to::MyHandler)]"
)]
pub trait DumpSelf: Codec + Send + Sync + 'static {
    /// The handler name written in index lines.
    const HANDLER: &'static str;

    /// Former handler names whose entries this type still reads.
    const ALIASES: &'static [&'static str] = &[];

    /// Stores `self`, returning where (exca's `__dump_info__`).
    fn dump_info(&self, ctx: &mut DumpContext<'_>) -> Result<Info, StoreError>;

    /// Loads the value `dump_info` described with `info`.
    fn load_from_info(info: &Info, ctx: &LoadContext<'_>) -> Result<Self, StoreError>;

    /// Called when the entry is removed: free what only this entry uses.
    fn delete_info(_info: &Info, _ctx: &LoadContext<'_>) -> Result<(), StoreError> {
        Ok(())
    }
}

/// The handler of a type that stores itself ([`DumpSelf`]).
pub struct SelfDumping<T>(PhantomData<fn() -> T>);

impl<T> Default for SelfDumping<T> {
    fn default() -> Self {
        SelfDumping(PhantomData)
    }
}

impl<T: DumpSelf> TypedHandler<T> for SelfDumping<T> {
    fn name(&self) -> &str {
        T::HANDLER
    }

    fn aliases(&self) -> &[&str] {
        T::ALIASES
    }

    fn dump(&self, value: &T, ctx: &mut DumpContext<'_>) -> Result<Info, StoreError> {
        value.dump_info(ctx)
    }

    fn load(&self, info: &Info, ctx: &LoadContext<'_>) -> Result<T, StoreError> {
        T::load_from_info(info, ctx)
    }

    fn delete(&self, info: &Info, ctx: &LoadContext<'_>) -> Result<(), StoreError> {
        T::delete_info(info, ctx)
    }
}
