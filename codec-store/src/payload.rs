//! Which handler reads an entry, and the entry's payload read through it.

use std::borrow::Cow;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use super::line::LineView;
use super::{layout, Cache, Handler, LoadContext, StoreError};

impl Cache {
    /// The handler registered under `name`, borrowed where it can be
    /// (the built-in inline handler).
    pub(super) fn handler_ref(&self, name: &str) -> Option<Cow<'_, Arc<dyn Handler>>> {
        if name == layout::INLINE && !self.inline_replaced.load(Ordering::Relaxed) {
            return Some(Cow::Borrowed(&self.inline));
        }
        self.handler(name).map(Cow::Owned)
    }

    /// The handler `name`, or the one that has it as an alias.
    pub(super) fn handler(&self, name: &str) -> Option<Arc<dyn Handler>> {
        let handlers = self.handlers.read().unwrap_or_else(|e| e.into_inner());
        match handlers.get(name) {
            Some(handler) => Some(handler.clone()),
            None => handlers.get(&self.registry.resolve(name)?).cloned(),
        }
    }

    pub(super) fn load_context<'a>(&'a self, key: &'a str) -> LoadContext<'a> {
        LoadContext {
            backend: &*self.backend,
            resources: &self.resources,
            key,
        }
    }

    /// The payload of the entry of `line`, read by its handler.
    pub(super) fn load_payload(&self, line: &LineView<'_>) -> Result<Vec<u8>, StoreError> {
        let handler = self.handler_ref(line.handler.as_deref().unwrap_or_default());
        self.load_payload_with(handler.as_deref(), line)
    }

    /// [`Cache::load_payload`] with the line's handler looked up already.
    pub(super) fn load_payload_with(
        &self,
        handler: Option<&Arc<dyn Handler>>,
        line: &LineView<'_>,
    ) -> Result<Vec<u8>, StoreError> {
        let handler = handler.ok_or_else(|| StoreError::UnknownHandler {
            key: line.key.clone().into_owned(),
            handler: line.handler.as_deref().unwrap_or_default().to_owned(),
        })?;
        handler.load_ref(line.info_ref(), &self.load_context(&line.key))
    }
}
