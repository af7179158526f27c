//! Handlers that take values: a [`TypedHandler<T>`] receives the `&T` being
//! put and returns the `T` being read, so it can write the value with its
//! own library's format (a table as Arrow IPC, a tensor as safetensors, an
//! image as PNG) into files the [`DumpContext`] gives it. Per-type default
//! handlers, handler aliases and [`Cache::pop`](crate::Cache::pop) live here too.
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use std::io::Write;
//! use codec::store::{DumpContext, Info, InfoValue, LoadContext, Typed, TypedHandler};
//! use codec::StoreError;
//!
//! #[derive(codec::Codec, Debug, PartialEq)]
//! struct Page { lines: Vec<String> }
//!
//! /// Pages as plain text files, one line each.
//! struct TextPages;
//!
//! impl TypedHandler<Page> for TextPages {
//!     fn name(&self) -> &str { "text-pages" }
//!
//!     fn dump(&self, page: &Page, ctx: &mut DumpContext<'_>) -> Result<Info, StoreError> {
//!         let (name, mut file) = ctx.allocate_file("txt")?;
//!         let text = page.lines.join("\n");
//!         file.write_all(text.as_bytes()).map_err(|e| ctx.io_error(&name, e))?;
//!         Ok(Info::from([("file".to_owned(), name.into())]))
//!     }
//!
//!     fn load(&self, info: &Info, ctx: &LoadContext<'_>) -> Result<Page, StoreError> {
//!         let Some(InfoValue::Text(name)) = info.get("file") else {
//!             return Err(ctx.corrupt("no `file` in the info"));
//!         };
//!         let text = String::from_utf8(ctx.read_file(name)?)
//!             .map_err(|e| ctx.corrupt(format!("{name} is not UTF-8: {e}")))?;
//!         Ok(Page { lines: text.lines().map(str::to_owned).collect() })
//!     }
//! }
//!
//! let dir = tempfile::tempdir()?;
//! let cache = codec::Cache::open(dir.path())?;
//! // Every `Page` put in this handle goes through `TextPages`.
//! cache.register_default_handler::<Page>(Typed::new(TextPages));
//! let page = Page { lines: vec!["a".into(), "b".into()] };
//! cache.put("page/1", &page)?;
//! assert_eq!(cache.get::<Page>("page/1")?, Some(page));
//! // The entry is as large as its file: bounds and listings count it.
//! assert_eq!(cache.entries()?[0].size, "a\nb".len() as u64);
//! # Ok(())
//! # }
//! ```

use parking_lot::RwLock;
use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::sync::Arc;

use crate::content::handler::{DumpContext, Handler, LoadContext};
use crate::error::StoreError;
use crate::index::records::Info;
use codec_runtime::Codec;

/// Stores and loads values of type `T` with the handler's own format.
///
/// `dump` writes the value where the [`DumpContext`] lets it (a file of
/// its own, the writer's shared data file, sub-values) and returns the
/// info the index line keeps; `load` reads it back from that info. Info
/// keys `#key`, `#type` and `#parts` are reserved. Register it wrapped in [`Typed`].
///
/// The entry's schema check covers `T` as usual (its wire name and
/// fingerprint are in the line); the format of the handler's files is the
/// handler's own: a handler that changes it changes its name (and keeps
/// the old one as an alias only while it still reads the old format).
pub trait TypedHandler<T>: Send + Sync + 'static {
    /// The name written in index lines; unique among a cache's handlers.
    fn name(&self) -> &str;

    /// Former names: entries written under them are read by this handler.
    fn aliases(&self) -> &[&str] {
        &[]
    }

    /// Stores `value`, returning where.
    fn dump(&self, value: &T, ctx: &mut DumpContext<'_>) -> Result<Info, StoreError>;

    /// Loads the value that `dump` described with `info`.
    fn load(&self, info: &Info, ctx: &LoadContext<'_>) -> Result<T, StoreError>;

    /// Called when the entry is removed: free what only this entry uses.
    fn delete(&self, _info: &Info, _ctx: &LoadContext<'_>) -> Result<(), StoreError> {
        Ok(())
    }
}

/// A [`TypedHandler<T>`] as a [`Handler`], to register with
/// [`Cache::register_handler`](crate::Cache::register_handler) or [`Cache::register_default_handler`](crate::Cache::register_default_handler) and
/// to give to [`Admin::compact`](crate::Admin::compact).
///
/// `put` and `get` of a `T` call the typed handler with the value. Where
/// codec needs the entry's bytes ([`Cache::get_bytes`](crate::Cache::get_bytes), compaction, the
/// `codec get` command), they are the value's MessagePack encoding: the
/// value is loaded and encoded, or decoded and dumped.
pub struct Typed<T> {
    inner: Box<dyn TypedHandler<T>>,
}

impl<T: Codec + 'static> Typed<T> {
    /// Wraps `handler`.
    pub fn new(handler: impl TypedHandler<T>) -> Arc<Typed<T>> {
        Arc::new(Typed {
            inner: Box::new(handler),
        })
    }

    pub(crate) fn dump_value(
        &self,
        value: &T,
        ctx: &mut DumpContext<'_>,
    ) -> Result<Info, StoreError> {
        self.inner.dump(value, ctx)
    }

    pub(crate) fn load_value(&self, info: &Info, ctx: &LoadContext<'_>) -> Result<T, StoreError> {
        self.inner.load(info, ctx)
    }
}

impl<T: Codec + 'static> Handler for Typed<T> {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn aliases(&self) -> &[&str] {
        self.inner.aliases()
    }

    fn dump(&self, payload: &[u8], ctx: &mut DumpContext<'_>) -> Result<Info, StoreError> {
        let value =
            codec_runtime::from_msgpack::<T>(payload).map_err(|source| StoreError::Decode {
                key: ctx.key().to_owned(),
                source,
            })?;
        self.inner.dump(&value, ctx)
    }

    fn load(&self, info: &Info, ctx: &LoadContext<'_>) -> Result<Vec<u8>, StoreError> {
        Ok(codec_runtime::to_msgpack(&self.inner.load(info, ctx)?)?)
    }

    fn delete(&self, info: &Info, ctx: &LoadContext<'_>) -> Result<(), StoreError> {
        self.inner.delete(info, ctx)
    }

    fn __values(&self) -> Option<&dyn AnyTyped> {
        Some(self)
    }
}

/// A [`Typed`] handler without its type: what the store calls with a
/// value of a handled type it meets inside another (`content::handled`).
#[doc(hidden)]
pub trait AnyTyped {
    /// Stores `value` if it is a `T`; `None` if it is not.
    fn dump_any(
        &self,
        value: &dyn Any,
        ctx: &mut DumpContext<'_>,
    ) -> Option<Result<Info, StoreError>>;

    /// Loads the value `info` describes if `T` is `type_id`; `None` if not.
    fn load_any(
        &self,
        type_id: TypeId,
        info: &Info,
        ctx: &LoadContext<'_>,
    ) -> Option<Result<Box<dyn Any>, StoreError>>;
}

impl<T: Codec + 'static> AnyTyped for Typed<T> {
    fn dump_any(
        &self,
        value: &dyn Any,
        ctx: &mut DumpContext<'_>,
    ) -> Option<Result<Info, StoreError>> {
        Some(self.inner.dump(value.downcast_ref::<T>()?, ctx))
    }

    fn load_any(
        &self,
        type_id: TypeId,
        info: &Info,
        ctx: &LoadContext<'_>,
    ) -> Option<Result<Box<dyn Any>, StoreError>> {
        (type_id == TypeId::of::<T>()).then(|| {
            self.inner
                .load(info, ctx)
                .map(|v| Box::new(v) as Box<dyn Any>)
        })
    }
}

/// The handlers chosen by type, and the former names of handlers.
#[derive(Default)]
pub(crate) struct Registry {
    /// Alias -> the name of the handler that reads it.
    aliases: RwLock<HashMap<String, String>>,
    /// A type -> the name of its default handler.
    defaults: RwLock<HashMap<TypeId, String>>,
    /// A type -> the name of the handler its `#[codec(handler = Type)]`
    /// built, once built.
    made: RwLock<HashMap<TypeId, String>>,
}

impl Registry {
    pub(crate) fn add_aliases(&self, handler: &dyn Handler) {
        let mut aliases = self.aliases.write();
        for alias in handler.aliases() {
            aliases.insert((*alias).to_owned(), handler.name().to_owned());
        }
    }

    /// The handler name that `name` is an alias of.
    pub(crate) fn resolve(&self, name: &str) -> Option<String> {
        self.aliases.read().get(name).cloned()
    }

    pub(crate) fn set_default<T: 'static>(&self, name: &str) {
        self.defaults
            .write()
            .insert(TypeId::of::<T>(), name.to_owned());
    }

    pub(crate) fn default_for(&self, type_id: TypeId) -> Option<String> {
        self.defaults.read().get(&type_id).cloned()
    }

    pub(crate) fn set_made(&self, type_id: TypeId, name: &str) {
        self.made.write().insert(type_id, name.to_owned());
    }

    pub(crate) fn made_for(&self, type_id: TypeId) -> Option<String> {
        self.made.read().get(&type_id).cloned()
    }
}

/// What an entry of the `arrow` handlers holds: [`EntryInfo::table`](crate::EntryInfo::table).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableInfo {
    /// The number of rows, over every batch.
    pub rows: u64,
    /// The number of record batches.
    pub batches: u64,
    /// The schema as one line: `id: Int64, name: Utf8?` (`?`: nullable).
    pub schema: String,
}

impl crate::index::EntryInfo {
    /// The row count and schema of an Arrow table entry, read from its
    /// info (no need of the `arrow` feature to read them).
    pub fn table(&self) -> Option<TableInfo> {
        if ![crate::layout::ARROW, crate::layout::ARROW_BATCHES].contains(&self.handler.as_str()) {
            return None;
        }
        let int = |key: &str| match self.info.get(key) {
            Some(crate::index::records::InfoValue::Int(i)) => u64::try_from(*i).ok(),
            _ => None,
        };
        match self.info.get("schema") {
            Some(crate::index::records::InfoValue::Text(schema)) => Some(TableInfo {
                rows: int("rows")?,
                batches: int("batches")?,
                schema: schema.clone(),
            }),
            _ => None,
        }
    }
}
