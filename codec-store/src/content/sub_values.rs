//! Sub-values of an entry through their own handlers: what
//! [`DumpContext::dump`] and [`LoadContext::load`] do (exca's `ctx.dump`),
//! and what the store does with each value of a type that names a
//! handler (`#[codec(handler = ..)]`) met inside another value it stores.
//!
//! A sub-value is stored as the entry it would be on its own: by its type's
//! default handler (a handler the handle registered for it, or the one the
//! type names with `#[codec(handler = ..)]`), else by the `auto` handler,
//! which keeps large buffers (an array's data) apart, aligned in the shared
//! data file, so that a load views them in the memory map. Its token in the
//! info is a map: `{"handler": .., "type": .., "fingerprint": .., "info": {..}}`,
//! and its load checks the schema as a `get` does.
//!
//! Inside a value the store encodes (an entry's, or a sub-value's that a
//! handler of bytes or `auto` stores), a value of a type with a handler
//! goes to that handler as a sub-value, and an extension value of type
//! [`HANDLED_EXT`](codec_runtime::__store::handled::HANDLED_EXT) holds its
//! place: its number in the list of their tokens, which the entry's info
//! keeps under `#values` (a sub-value's token, under `values`). A read
//! gives each placeholder its value back.

use std::any::Any;

use codec_runtime::__store::handled::{self, Divert, HandledType, Undivert};
use codec_runtime::{Codec, DecodeError, EncodeError, MsgpackReader, MsgpackWriter};

use crate::cache::write::MadePayload;
use crate::content::apart::{self, Parts};
use crate::content::handler::{DumpContext, LoadContext};
use crate::error::StoreError;
use crate::index::records::{Info, InfoValue};
use crate::layout;

const HANDLER: &str = "handler";
const TYPE: &str = "type";
const FINGERPRINT: &str = "fingerprint";
const INFO: &str = "info";
/// In a sub-value's token: the tokens of the values its payload holds
/// the places of.
const VALUES: &str = "values";

impl DumpContext<'_> {
    /// Stores `value` as a sub-value of this entry through its own
    /// default handler (exca's `ctx.dump`): a typed handler registered for
    /// `T` or named by the type, else the `auto` handler, which keeps large
    /// buffers (an array's data) apart so that
    /// [`LoadContext::load`] views them in the memory map. Keep the
    /// returned token in the handler's info; its load checks `T`'s schema
    /// as a `get` does. Inside `value`, each value of a type that names a
    /// handler goes to that handler too.
    pub fn dump<T: Codec + 'static>(&mut self, value: &T) -> Result<InfoValue, StoreError> {
        self.dump_any(value, &HandledType::of::<T>())
    }

    /// [`dump`](Self::dump) through the handler named `handler` (one this
    /// handle has: built-in, registered, or named by a type it stored),
    /// whatever `T`'s default is (exca's `ctx.dump(value, cache_type=...)`).
    /// A handler the handle does not have is
    /// [`StoreError::UnknownHandler`].
    ///
    /// ```
    /// # use codec::store::{DumpContext, Info, LoadContext, Typed, TypedHandler};
    /// # use codec::StoreError;
    /// #[derive(codec::Codec)]
    /// struct Page { title: String, body: Vec<u8> }
    ///
    /// struct Pages;
    /// impl TypedHandler<Page> for Pages {
    ///     fn name(&self) -> &str { "pages" }
    ///     fn dump(&self, page: &Page, ctx: &mut DumpContext<'_>) -> Result<Info, StoreError> {
    ///         Ok(Info::from([
    ///             ("title".to_owned(), ctx.dump(&page.title)?),
    ///             // The body in a file of its own.
    ///             ("body".to_owned(), ctx.dump_as(&page.body, "file")?),
    ///         ]))
    ///     }
    ///     fn load(&self, info: &Info, ctx: &LoadContext<'_>) -> Result<Page, StoreError> {
    ///         let part = |name| info.get(name).ok_or_else(|| ctx.corrupt(format!("no {name}")));
    ///         Ok(Page { title: ctx.load(part("title")?)?, body: ctx.load(part("body")?)? })
    ///     }
    /// }
    ///
    /// # fn main() -> Result<(), StoreError> {
    /// # let dir = tempfile::tempdir().unwrap();
    /// let cache = codec::Cache::open(dir.path())?;
    /// cache.register_default_handler::<Page>(Typed::new(Pages));
    /// cache.put("p", &Page { title: "t".into(), body: vec![7; 100] })?;
    /// assert_eq!(cache.get::<Page>("p")?.unwrap().body, vec![7; 100]);
    /// # Ok(())
    /// # }
    /// ```
    pub fn dump_as<T: Codec + 'static>(
        &mut self,
        value: &T,
        handler: &str,
    ) -> Result<InfoValue, StoreError> {
        let Some(found) = self.subs.and_then(|subs| subs.handler(handler)) else {
            return Err(StoreError::UnknownHandler {
                key: self.key().to_owned(),
                handler: handler.to_owned(),
            });
        };
        self.dump_through(value, &HandledType::of::<T>(), Some(found))
    }

    /// [`dump`](Self::dump) of a value of `ty`.
    pub(crate) fn dump_any(
        &mut self,
        value: &dyn Any,
        ty: &HandledType,
    ) -> Result<InfoValue, StoreError> {
        let handler = self
            .subs
            .and_then(|subs| subs.default_handler(ty.type_id, ty.handler));
        self.dump_through(value, ty, handler)
    }

    /// A sub-value of `ty` through `handler`, else the `auto` handler.
    fn dump_through(
        &mut self,
        value: &dyn Any,
        ty: &HandledType,
        handler: Option<std::sync::Arc<dyn crate::content::handler::Handler>>,
    ) -> Result<InfoValue, StoreError> {
        let schema = (ty.schema)();
        // What a sub-value writes is the entry's: sized, checked and
        // copied without its handler.
        let recording = std::mem::replace(&mut self.record, true);
        let mut values = Vec::new();
        let dumped: Result<(String, Info), StoreError> = (|| match &handler {
            Some(handler) => {
                if let Some(info) = handler.__values().and_then(|v| v.dump_any(value, self)) {
                    return Ok((handler.name().to_owned(), info?));
                }
                let (payload, _, found) = self.encode_diverting(value, ty, None)?;
                values = found;
                Ok((handler.name().to_owned(), handler.dump(&payload, self)?))
            }
            None => {
                let (payload, large, found) =
                    self.encode_diverting(value, ty, Some(self.apart_min))?;
                values = found;
                let info = apart::dump_apart(&payload, &large, self)?;
                Ok((layout::AUTO.to_owned(), info))
            }
        })();
        self.record = recording;
        let (name, info) = dumped?;
        self.schemas.push(schema);
        let mut token = Info::from([
            (HANDLER.to_owned(), InfoValue::Text(name)),
            (TYPE.to_owned(), InfoValue::Text(schema.name.clone())),
            (
                FINGERPRINT.to_owned(),
                InfoValue::Text(schema.fingerprint_hex.clone()),
            ),
            (INFO.to_owned(), InfoValue::Map(info)),
        ]);
        if !values.is_empty() {
            token.insert(VALUES.to_owned(), InfoValue::List(values));
        }
        Ok(InfoValue::Map(token))
    }

    /// The MessagePack encoding of `value` (of `ty`, the root: not
    /// diverted itself), each value of a handled type inside it stored
    /// through its handler and its token listed; with the `bin` values
    /// of at least `large` bytes listed if asked.
    pub(crate) fn encode_diverting(
        &mut self,
        value: &dyn Any,
        ty: &HandledType,
        large: Option<usize>,
    ) -> Result<MadePayload, StoreError> {
        let mut w = MsgpackWriter::new(Vec::new());
        let mut divert = ToHandlers {
            ctx: self,
            values: Vec::new(),
            error: None,
        };
        let (encoded, bins) = w.diverting(Some(ty.type_id), &mut divert, |w| match large {
            Some(min) => w.tracking_large_bins(min, |w| (ty.encode)(value, w)),
            None => ((ty.encode)(value, w), Vec::new()),
        });
        if let Some(error) = divert.error {
            return Err(error);
        }
        encoded?;
        Ok((w.into_inner(), bins, divert.values))
    }
}

/// Gives each value of a handled type met while encoding to its handler,
/// as a sub-value of the entry.
struct ToHandlers<'c, 'a> {
    ctx: &'c mut DumpContext<'a>,
    values: Vec<InfoValue>,
    /// The store's error, which the encoder's cannot carry.
    error: Option<StoreError>,
}

impl Divert for ToHandlers<'_, '_> {
    fn divert(&mut self, value: &dyn Any, ty: &HandledType) -> Result<u32, EncodeError> {
        // Each has its token in the index line, read with every lookup.
        if self.values.len() >= layout::MAX_KEPT_VALUES {
            return Err(EncodeError::Custom {
                message: format!(
                    "more than {} values of types with a store handler (`{}`) in one value: \
                     the entry's index line lists each; store them as entries of their own, \
                     or give the type that holds them a handler",
                    layout::MAX_KEPT_VALUES,
                    ty.rust_name
                ),
            });
        }
        let index = self.values.len() as u32;
        match self.ctx.dump_any(value, ty) {
            Ok(token) => {
                self.values.push(token);
                Ok(index)
            }
            Err(error) => {
                let message = format!("storing a `{}` through its handler: {error}", ty.rust_name);
                self.error = Some(error);
                Err(EncodeError::Custom { message })
            }
        }
    }
}

/// Notes whether an encoding meets a value of a handled type, and stops
/// it there: a put encodes first without its dump context (a plain
/// encoding, into bytes any handler takes), and again with it only if it
/// must.
#[derive(Default)]
pub(crate) struct Probe {
    pub found: bool,
}

impl Divert for Probe {
    fn divert(&mut self, _: &dyn Any, _: &HandledType) -> Result<u32, EncodeError> {
        self.found = true;
        Err(EncodeError::Custom {
            message: "a value of a type with a store handler".to_owned(),
        })
    }
}

impl LoadContext<'_> {
    /// A sub-value stored by [`DumpContext::dump`], through the handler
    /// that stored it, its schema checked as a `get` checks it (a
    /// compatible change of `T` reads, a breaking one is an error). A token
    /// of [`DumpContext::dump_value`] (the value's MessagePack) reads too.
    pub fn load<T: Codec + 'static>(&self, token: &InfoValue) -> Result<T, StoreError> {
        let InfoValue::Map(_) = token else {
            return self.load_value(token);
        };
        let boxed = self.load_any(token, &HandledType::of::<T>())?;
        Ok(*boxed
            .downcast::<T>()
            .expect("load_any returns a value of the type asked"))
    }

    /// Frees what a sub-value stored by [`DumpContext::dump`] (or
    /// [`DumpContext::dump_as`]) holds outside the entry's line, through
    /// the handler that stored it, and the values inside it: what a
    /// handler's `delete` calls for each sub-value it dumped (a file a
    /// sub-value's handler wrote would else stay once the entry is
    /// removed). A token of a value kept in the line frees nothing.
    pub fn delete(&self, token: &InfoValue) -> Result<(), StoreError> {
        let InfoValue::Map(parts) = token else {
            return Ok(()); // dump_value's or dump_bytes': in the line or a shared range
        };
        let bad = || self.corrupt(format!("`{token:?}` is not a sub-value token"));
        let name = parts
            .get(HANDLER)
            .and_then(InfoValue::as_text)
            .ok_or_else(bad)?;
        let Some(InfoValue::Map(info)) = parts.get(INFO) else {
            return Err(bad());
        };
        if let Some(InfoValue::List(values)) = parts.get(VALUES) {
            for value in values {
                self.delete(value)?;
            }
        }
        let handler = self.subs.and_then(|subs| subs.handler(name));
        let handler = handler.ok_or_else(|| StoreError::UnknownHandler {
            key: self.key.to_owned(),
            handler: name.to_owned(),
        })?;
        handler.delete(info, self)
    }

    /// [`load`](Self::load) of a sub-value of `ty`.
    pub(crate) fn load_any(
        &self,
        token: &InfoValue,
        ty: &HandledType,
    ) -> Result<Box<dyn Any>, StoreError> {
        let bad = || self.corrupt(format!("`{token:?}` is not a sub-value token"));
        let InfoValue::Map(parts) = token else {
            return Err(bad());
        };
        let text = |name: &str| parts.get(name).and_then(InfoValue::as_text).ok_or_else(bad);
        let (name, type_name, fingerprint) = (text(HANDLER)?, text(TYPE)?, text(FINGERPRINT)?);
        let Some(InfoValue::Map(info)) = parts.get(INFO) else {
            return Err(bad());
        };
        let values = match parts.get(VALUES) {
            None => &[][..],
            Some(InfoValue::List(values)) => values,
            Some(_) => return Err(bad()),
        };
        let Some(subs) = self.subs else {
            return Err(StoreError::unsupported(
                self.backend.location(),
                format!(
                    "entry `{}`: sub-values load through a cache handle",
                    self.key
                ),
            ));
        };
        let schema = (ty.schema)();
        if fingerprint != schema.fingerprint_hex {
            subs.check_schema(self.key, type_name, fingerprint, schema)?;
        }
        if name == layout::AUTO {
            let parts = Parts::load(info, self)?;
            self.reading_values(values, || parts.decode_with(ty.decode))
        } else {
            // The type's own handler, built if this handle has not met it.
            let _ = subs.default_handler(ty.type_id, ty.handler);
            let handler = subs
                .handler(name)
                .ok_or_else(|| StoreError::UnknownHandler {
                    key: self.key.to_owned(),
                    handler: name.to_owned(),
                })?;
            if let Some(loaded) = handler
                .__values()
                .and_then(|v| v.load_any(ty.type_id, info, self))
            {
                return loaded;
            }
            let payload = handler.load(info, self)?;
            self.reading_values(values, || {
                let mut r = MsgpackReader::new(&payload);
                let value = (ty.decode)(&mut r).map_err(|e| r.locate(e))?;
                r.finish()?;
                Ok(value)
            })
        }
    }

    /// Runs `decode`, each placeholder of a handled value read from its
    /// token in `values`. A store error met on the way (a sub-value's
    /// breaking schema change, damage) is the result, as it is.
    pub(crate) fn reading_values<R>(
        &self,
        values: &[InfoValue],
        decode: impl FnOnce() -> Result<R, DecodeError>,
    ) -> Result<R, StoreError> {
        let from = FromHandlers {
            ctx: self,
            values,
            error: std::cell::RefCell::new(None),
        };
        let decoded = match values.is_empty() {
            true => decode(),
            false => handled::reading_handled(&from, decode),
        };
        if let Some(error) = from.error.into_inner() {
            return Err(error);
        }
        decoded.map_err(|source| StoreError::Decode {
            key: self.key.to_owned(),
            source,
        })
    }
}

/// Gives back each value of a handled type from its token.
struct FromHandlers<'c, 'a> {
    ctx: &'c LoadContext<'a>,
    values: &'c [InfoValue],
    /// The store's error, which the decoder's cannot carry.
    error: std::cell::RefCell<Option<StoreError>>,
}

impl Undivert for FromHandlers<'_, '_> {
    fn undivert(&self, index: u32, ty: &HandledType) -> Result<Box<dyn Any>, DecodeError> {
        let Some(token) = self.values.get(index as usize) else {
            return Err(DecodeError::custom(format!(
                "the payload names kept value {index}, of {} listed in the info",
                self.values.len()
            )));
        };
        self.ctx.load_any(token, ty).map_err(|error| {
            let message = format!("reading a `{}` through its handler: {error}", ty.rust_name);
            self.error.borrow_mut().get_or_insert(error);
            DecodeError::custom(message)
        })
    }
}

/// The key `#values` as the text of an index line holds it.
pub(crate) const QUOTED_VALUES: &str = "\"#values\"";

/// The tokens of the kept values an entry's info lists under `#values`.
pub(crate) fn entry_values(info: &Info) -> &[InfoValue] {
    match info.get(layout::VALUES) {
        Some(InfoValue::List(values)) => values,
        _ => &[],
    }
}
