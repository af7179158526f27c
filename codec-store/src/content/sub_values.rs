//! Sub-values of an entry through their own handlers: what
//! [`DumpContext::dump`] and [`LoadContext::load`] do (exca's `ctx.dump`).
//!
//! A sub-value is stored as the entry it would be on its own: by its type's
//! default handler (a handler the handle registered for it, or the one the
//! type names with `#[codec(handler = ..)]`), else by the `auto` handler,
//! which keeps large buffers (an array's data) apart, aligned in the shared
//! data file, so that a load views them in the memory map. Its token in the
//! info is a map: `{"handler": .., "type": .., "fingerprint": .., "info": {..}}`,
//! and its load checks the schema as a `get` does.

use std::any::{Any, TypeId};

use codec_runtime::__store::schema;
use codec_runtime::Codec;

use crate::content::apart::{self, Parts};
use crate::content::handler::{DumpContext, LoadContext};
use crate::content::typed::Typed;
use crate::error::StoreError;
use crate::index::records::{Info, InfoValue};
use crate::layout;

const HANDLER: &str = "handler";
const TYPE: &str = "type";
const FINGERPRINT: &str = "fingerprint";
const INFO: &str = "info";

impl DumpContext<'_> {
    /// Stores `value` as a sub-value of this entry through its own
    /// default handler (exca's `ctx.dump`): a typed handler registered for
    /// `T` or named by the type, else the `auto` handler, which keeps large
    /// buffers (an array's data) apart so that
    /// [`LoadContext::load`] views them in the memory map. Keep the
    /// returned token in the handler's info; its load checks `T`'s schema
    /// as a `get` does.
    pub fn dump<T: Codec + 'static>(&mut self, value: &T) -> Result<InfoValue, StoreError> {
        let schema = schema::info::<T>();
        let handler = self
            .subs
            .and_then(|subs| subs.default_handler(TypeId::of::<T>(), T::__STORE_HANDLER));
        let typed = handler.as_ref().and_then(|h| {
            let any: &(dyn Any + Send + Sync) = &**h;
            any.downcast_ref::<Typed<T>>()
        });
        let (name, info) = match (typed, &handler) {
            (Some(typed), Some(handler)) => {
                (handler.name().to_owned(), typed.dump_value(value, self)?)
            }
            (None, Some(handler)) => {
                let payload = codec_runtime::to_msgpack(value)?;
                (handler.name().to_owned(), handler.dump(&payload, self)?)
            }
            _ => {
                let (payload, large) =
                    codec_runtime::__store::to_msgpack_tracking(value, self.apart_min)?;
                (
                    layout::AUTO.to_owned(),
                    apart::dump_apart(&payload, &large, self)?,
                )
            }
        };
        self.schemas.push(schema);
        Ok(InfoValue::Map(Info::from([
            (HANDLER.to_owned(), InfoValue::Text(name)),
            (TYPE.to_owned(), InfoValue::Text(schema.name.clone())),
            (
                FINGERPRINT.to_owned(),
                InfoValue::Text(schema.fingerprint_hex.clone()),
            ),
            (INFO.to_owned(), InfoValue::Map(info)),
        ])))
    }
}

impl LoadContext<'_> {
    /// A sub-value stored by [`DumpContext::dump`], through the handler
    /// that stored it, its schema checked as a `get` checks it (a
    /// compatible change of `T` reads, a breaking one is an error). A token
    /// of [`DumpContext::dump_value`] (the value's MessagePack) reads too.
    pub fn load<T: Codec + 'static>(&self, token: &InfoValue) -> Result<T, StoreError> {
        let InfoValue::Map(parts) = token else {
            return self.load_value(token);
        };
        let bad = || self.corrupt(format!("`{token:?}` is not a sub-value token"));
        let text = |name: &str| parts.get(name).and_then(InfoValue::as_text).ok_or_else(bad);
        let (name, type_name, fingerprint) = (text(HANDLER)?, text(TYPE)?, text(FINGERPRINT)?);
        let Some(InfoValue::Map(info)) = parts.get(INFO) else {
            return Err(bad());
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
        let schema = schema::info::<T>();
        if fingerprint != schema.fingerprint_hex {
            subs.check_schema(self.key, type_name, fingerprint, schema)?;
        }
        let decoded = if name == layout::AUTO {
            Parts::load(info, self)?.decode::<T>()
        } else {
            // The type's own handler, built if this handle has not met it.
            let _ = subs.default_handler(TypeId::of::<T>(), T::__STORE_HANDLER);
            let handler = subs
                .handler(name)
                .ok_or_else(|| StoreError::UnknownHandler {
                    key: self.key.to_owned(),
                    handler: name.to_owned(),
                })?;
            let any: &(dyn Any + Send + Sync) = &*handler;
            if let Some(typed) = any.downcast_ref::<Typed<T>>() {
                return typed.load_value(info, self);
            }
            codec_runtime::from_msgpack(&handler.load(info, self)?)
        };
        decoded.map_err(|source| StoreError::Decode {
            key: self.key.to_owned(),
            source,
        })
    }
}
