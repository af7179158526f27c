//! The handlers of a handle: which one reads an entry (by name, or the
//! one a name is an alias of), a type's default handler, and values put and
//! got through a typed handler or as raw bytes.

use std::any::{Any, TypeId};
use std::borrow::Cow;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use codec_runtime::__store::schema::SchemaInfo;
use codec_runtime::__store::DefaultHandler;
use codec_runtime::{Bytes, Codec, WireKind};

use crate::cache::write::Payload;
use crate::cache::Cache;
use crate::content::handler::SubValues;
use crate::content::handler::{Handler, LoadContext};
use crate::content::typed::Typed;
use crate::error::StoreError;
use crate::index::corrupt_line;
use crate::index::line::LineView;
use crate::index::records::{InfoValue, Mode};
use crate::layout;

impl Cache {
    /// The handler registered under `name`, borrowed where it can be
    /// (the built-in inline handler).
    pub(crate) fn handler_ref(&self, name: &str) -> Option<Cow<'_, Arc<dyn Handler>>> {
        if name == layout::INLINE && !self.inline_replaced.load(Ordering::Relaxed) {
            return Some(Cow::Borrowed(&self.inline));
        }
        self.handler(name).map(Cow::Owned)
    }

    /// The handler `name`, or the one that has it as an alias.
    pub(crate) fn handler(&self, name: &str) -> Option<Arc<dyn Handler>> {
        let handlers = self.handlers.read();
        match handlers.get(name) {
            Some(handler) => Some(handler.clone()),
            None => handlers.get(&self.registry.resolve(name)?).cloned(),
        }
    }

    pub(crate) fn load_context<'a>(&'a self, key: &'a str) -> LoadContext<'a> {
        LoadContext {
            backend: &*self.loads,
            resources: &self.resources,
            key,
            subs: Some(self),
        }
    }

    /// Registers `handler` and makes it the one that stores every `T` put
    /// through this handle without a handler named in [`PutOptions`]
    /// (exca's `register(default_for=T)`). Any handler may be a type's
    /// default: a [`Typed`] one, or a built-in one such as
    /// [`FilePerEntry`](crate::content::handler::FilePerEntry) for large values kept alone.
    ///
    /// [`PutOptions`]: crate::options::PutOptions
    pub fn register_default_handler<T: Codec + 'static>(&self, handler: Arc<dyn Handler>) {
        let name = handler.name().to_owned();
        self.register_handler(handler);
        self.registry.set_default::<T>(&name);
    }

    /// The handler that stores a `T` put without a handler named: the one
    /// registered in this handle ([`Cache::register_default_handler`]),
    /// else the one the type names (`#[codec(handler = ..)]`), if any.
    pub(crate) fn default_handler<T: Codec + 'static>(&self) -> Option<String> {
        self.default_handler_of(TypeId::of::<T>(), T::__STORE_HANDLER)
    }

    /// [`Cache::default_handler`] of the type `type_id`, which names `declared`.
    fn default_handler_of(
        &self,
        type_id: TypeId,
        declared: Option<DefaultHandler>,
    ) -> Option<String> {
        if let Some(name) = self.registry.default_for(type_id) {
            return Some(name);
        }
        match declared? {
            DefaultHandler::Named(name) => Some(name.to_owned()),
            DefaultHandler::Made(make) => Some(self.made_handler(type_id, make)),
        }
    }

    /// Makes sure this handle has the handler type `T` names, if it names
    /// one, so that entries it wrote read without a registration.
    pub(crate) fn ensure_made_handler<T: Codec + 'static>(&self) {
        self.ensure_made_handler_of(TypeId::of::<T>(), T::__STORE_HANDLER);
    }

    /// [`Cache::ensure_made_handler`] of the type `type_id`, which names
    /// `declared`.
    pub(crate) fn ensure_made_handler_of(&self, type_id: TypeId, declared: Option<DefaultHandler>) {
        if let Some(DefaultHandler::Made(make)) = declared {
            self.made_handler(type_id, make);
        }
    }

    /// The name of the handler that `make` builds for the type `type_id`,
    /// built and registered on first use in this handle; a handler this
    /// handle registered under the same name stays (the handle's choice
    /// wins).
    fn made_handler(&self, type_id: TypeId, make: fn() -> Box<dyn Any + Send + Sync>) -> String {
        if let Some(name) = self.registry.made_for(type_id) {
            return name;
        }
        let handler = *make()
            .downcast::<Arc<dyn Handler>>()
            .expect("`#[codec(handler = ..)]` builds an `Arc<dyn Handler>`");
        let name = handler.name().to_owned();
        if self.handler(&name).is_none() {
            self.register_handler(handler);
        }
        self.registry.set_made(type_id, &name);
        name
    }

    /// The handler `name` (or the one it is an alias of) if it is a
    /// [`Typed`] handler of `T`.
    pub(crate) fn typed_handler<T: Codec + 'static>(&self, name: &str) -> Option<Arc<Typed<T>>> {
        let handler: Arc<dyn Any + Send + Sync> = self.handler(name)?;
        handler.downcast::<Typed<T>>().ok()
    }

    /// The value of `key` through its typed handler, if its entry was
    /// stored by a [`Typed`] handler of `T`.
    pub(crate) fn get_typed<T: Codec + 'static>(
        &self,
        handler: Option<&Arc<dyn Handler>>,
        line: &LineView<'_>,
    ) -> Result<Option<T>, StoreError> {
        let handler: Option<&(dyn Any + Send + Sync)> = handler.map(|h| &**h as _);
        let Some(typed) = handler.and_then(|h| h.downcast_ref::<Typed<T>>()) else {
            return Ok(None);
        };
        let info = line.info().map_err(|e| corrupt_line(&line.key, e))?;
        typed
            .load_value(&info, &self.load_context(&line.key))
            .map(Some)
    }

    /// Stores `value` through `typed`.
    pub(crate) fn put_typed<T: Codec + 'static>(
        &self,
        key: &str,
        value: &T,
        typed: &Typed<T>,
        expires: Option<u64>,
    ) -> Result<(), StoreError> {
        let schema = codec_runtime::schema::info::<T>();
        self.write_schema(schema)?;
        // The size of what the handler wrote through its context (files,
        // appends, sub-values), or, if it wrote elsewhere, what its info
        // says (`len`).
        let record = !layout::is_built_in_handler(typed.name());
        self.writer.one_write(|| {
            let (info, parts, held) =
                self.dump_with(key, &[], record, |ctx| typed.dump_value(value, ctx))?;
            let size = match info.get("len") {
                Some(InfoValue::Int(len)) => held.max(u64::try_from(*len).unwrap_or(0)),
                _ => held,
            };
            self.append_entry(
                key,
                Some(schema.name.clone()),
                Some(schema.fingerprint_hex.clone()),
                typed.name(),
                Mode::MsgPack,
                (info, &parts, Vec::new()),
                size,
                expires,
            )
        })
    }

    /// Stores a byte buffer `value` (a type whose encoding is bytes) as its
    /// bytes, as [`Cache::put_bytes`] does (with `handler`, if one is asked
    /// for): raw mode. Any other type is
    /// refused: raw mode does not say how to turn it into bytes.
    pub(crate) fn put_raw<T: Codec + 'static>(
        &self,
        key: &str,
        value: &T,
        handler: Option<&str>,
        expires: Option<u64>,
    ) -> Result<(), StoreError> {
        if T::KIND != WireKind::BYTES {
            return Err(StoreError::NotBytes {
                key: key.to_owned(),
                type_name: codec_runtime::schema::info::<T>().name.clone(),
            });
        }
        let bytes = codec_runtime::from_msgpack::<Bytes>(&codec_runtime::to_msgpack(value)?)
            .map_err(|source| StoreError::Decode {
                key: key.to_owned(),
                source,
            })?;
        // The handler asked for stores the bytes; none, the size chooses.
        self.write_entry(
            key,
            None,
            None,
            Mode::Raw,
            Payload::plain(&bytes),
            handler,
            expires,
        )
    }
}

impl SubValues for Cache {
    fn default_handler(
        &self,
        type_id: TypeId,
        declared: Option<DefaultHandler>,
    ) -> Option<Arc<dyn Handler>> {
        self.handler(&self.default_handler_of(type_id, declared)?)
    }

    fn handler(&self, name: &str) -> Option<Arc<dyn Handler>> {
        Cache::handler(self, name)
    }

    fn check_schema(
        &self,
        key: &str,
        type_name: &str,
        fingerprint: &str,
        info: &SchemaInfo,
    ) -> Result<(), StoreError> {
        self.check_stored_schema(key, Some(type_name), Some(fingerprint), info)
    }
}
