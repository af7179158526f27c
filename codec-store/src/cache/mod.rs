//! The cache handle and the verbs a user calls on it: put and get here,
//! the rest one file each (keys, batches, memos, arrays), and opening a
//! handle.

#[cfg(feature = "ndarray")]
mod array_entry;
mod batch;
pub(crate) mod checkpointer;
pub(crate) mod declared;
mod handlers;
mod in_place;
pub(crate) mod keys;
pub(crate) mod lease;
pub(crate) mod memo;
pub(crate) mod memo_state;
pub(crate) mod open;
pub(crate) mod reduce;
pub(crate) mod threads;
pub(crate) mod underway;
pub(crate) mod upkeep;
pub(crate) mod uses;
pub(crate) mod write;
pub(crate) mod writers;

use parking_lot::{Mutex, RwLock};
use std::any::TypeId;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use codec_runtime::__store::schema;
use codec_runtime::Fingerprint;
use codec_runtime::{Bytes, Codec};

use crate::backend::{Backend, Lock};
use crate::content::apart;
use crate::content::handler::{Handler, Resources};
use crate::content::sub_values::{self, Probe};
use crate::content::typed;
use crate::error::StoreError;
use crate::index;
use crate::index::line::LineView;
use crate::index::records::{IndexLine, Info, Mode};
use crate::index::{corrupt_line, view, EntryInfo, Found, Index};
use crate::layout;
use crate::options::{CacheOptions, PutOptions};
use codec_runtime::__store::handled::HandledType;
pub use in_place::Ref;
use write::Payload;

/// A folder of typed values: see the [crate documentation](crate).
pub struct Cache {
    /// What the handle holds, shared with its background work (the
    /// checkpointer, which applies the bounds too).
    pub(crate) store: Arc<Store>,
    /// Whether this is the handle the program holds, not the background
    /// work's: the one that closes the store.
    owner: bool,
}

impl std::ops::Deref for Cache {
    type Target = Store;

    fn deref(&self) -> &Store {
        &self.store
    }
}

impl Cache {
    /// The handle the program holds, over `store`.
    pub(crate) fn own(store: Store) -> Cache {
        Cache {
            store: Arc::new(store),
            owner: true,
        }
    }

    /// A handle for background work over the same store, which closes
    /// nothing when dropped: the owner waits for the work before it
    /// closes the store.
    pub(crate) fn for_background(&self) -> Cache {
        Cache {
            store: self.store.clone(),
            owner: false,
        }
    }
}

/// An entry whose removal line is written, and what it leaves to delete.
pub(crate) struct Removed {
    key: String,
    /// Its handler's name; `None` for an entry with no files.
    handler: Option<String>,
    info: Info,
}

/// The state of a [`Cache`] handle.
#[doc(hidden)]
pub struct Store {
    /// The folder, for a store in one.
    pub(crate) dir: Option<PathBuf>,
    /// Where the objects live: the folder `dir`, or another backend.
    pub(crate) backend: Arc<dyn Backend>,
    pub(crate) writer_id: String,
    pub(crate) options: CacheOptions,
    /// The writer: this handle's log and shared data, and its seals.
    pub(crate) writer: writers::LogWriter,
    pub(crate) index: Arc<RwLock<Index>>,
    pub(crate) handlers: RwLock<HashMap<String, Arc<dyn Handler>, foldhash::fast::RandomState>>,
    /// The built-in inline handler, which most small values use: a get
    /// reaches it without the lock of `handlers` and without a reference
    /// count, which threads getting at once would pass back and forth.
    pub(crate) inline: Arc<dyn Handler>,
    /// Another handler was registered under the inline handler's name.
    pub(crate) inline_replaced: AtomicBool,
    pub(crate) registry: typed::Registry,
    pub(crate) resources: Resources,
    /// The buffers lent to [`Ref`]s of payloads kept in index lines.
    pub(crate) buffers: in_place::Buffers,
    pub(crate) memo: memo::Memo,
    /// The keys this handle used since it last recorded them.
    pub(crate) uses: uses::Uses,
    /// The handle's checkpoints.
    pub(crate) checkpointer: checkpointer::Checkpointer,
    /// The upkeep of its bounds.
    pub(crate) upkeep: upkeep::Upkeep,
    /// The turns its background threads take.
    pub(crate) turns: Arc<threads::Turns>,
    /// What the handle's upkeep had to say: builds of checkpoints, passes
    /// of the bounds, compactions, seals.
    pub(crate) warnings: Arc<Mutex<Vec<String>>>,
    /// A shared lock on `codec-store.lock` while the handle lives, so that
    /// a compaction never deletes files under it.
    pub(crate) _lock: Option<Lock>,
    /// What loads read through: `backend`, behind the local cache of
    /// [`CacheOptions::local_cache`] where there is one.
    pub(crate) loads: Arc<dyn Backend>,
}

pub(crate) fn now_nanos() -> u64 {
    if let Some(seeded) = crate::__ids::seeded_now() {
        return seeded;
    }
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0)
}

impl Cache {
    /// The folder of a cache in a folder; `None` for a cache on another
    /// backend (object storage, memory), whose [`location`](Cache::location)
    /// is a URL.
    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    /// Where the cache is: the folder's path, or a URL (`s3://bucket/prefix`).
    pub fn location(&self) -> String {
        self.backend.location()
    }

    /// This handle's writer id: its index file is `<id>-info.jsonl`.
    pub fn writer_id(&self) -> &str {
        &self.writer_id
    }

    /// Adds a handler, replacing one of the same name; entries written
    /// under its [aliases](Handler::aliases) are read by it too.
    pub fn register_handler(&self, handler: Arc<dyn Handler>) {
        self.registry.add_aliases(&*handler);
        let name = handler.name().to_owned();
        if name == layout::INLINE && !Arc::ptr_eq(&handler, &self.inline) {
            self.inline_replaced.store(true, Ordering::Relaxed);
        }
        self.handlers.write().insert(name, handler);
    }

    /// Reads what other writers appended since the last refresh. Lookups of
    /// a missing key refresh on their own; call this to see overwrites by
    /// other writers of keys this handle already knows.
    pub fn refresh(&self) -> Result<(), StoreError> {
        self.checkpointer.take_up_ended(&self.index);
        Index::refresh_aside(&self.index, &self.backend)
    }

    /// Lines skipped while reading the index (torn or corrupt), one
    /// message each; then the entries [`Cache::get_or_insert_with`] could
    /// not read and computed again, one message per type and reason (a
    /// schema change, damaged data), with their count and a few keys.
    pub fn warnings(&self) -> Vec<String> {
        let mut warnings = self.index.read().warnings.clone();
        warnings.extend(self.warnings.lock().iter().cloned());
        warnings.extend(self.memo.warnings());
        warnings
    }

    /// Stores `value` under `key`, replacing any previous value: in the
    /// mode of [`CacheOptions::mode`], by the handler registered for `T`
    /// ([`Cache::register_default_handler`]) if any.
    pub fn put<T: Codec + 'static>(&self, key: &str, value: &T) -> Result<(), StoreError> {
        self.put_with(key, value, &self.put_options())
    }

    /// The options of [`Cache::put`]: the handle's mode.
    pub(crate) fn put_options(&self) -> PutOptions {
        PutOptions {
            mode: self.options.mode,
            handler: None,
            ttl: None,
        }
    }

    /// Stores `value` under `key` with a chosen mode or handler.
    pub fn put_with<T: Codec + 'static>(
        &self,
        key: &str,
        value: &T,
        options: &PutOptions,
    ) -> Result<(), StoreError> {
        keys::check_key(key)?;
        let expires = options.expires_at(now_nanos());
        if options.mode == Mode::Raw {
            return self.put_raw(key, value, options.handler.as_deref(), expires);
        }
        let handler = match &options.handler {
            Some(name) => Some(name.clone()),
            None => self.default_handler::<T>(),
        };
        if let Some(typed) = handler.as_deref().and_then(|h| self.typed_handler::<T>(h)) {
            return self.put_typed(key, value, &typed, expires);
        }
        // A value holding values of types with a handler is encoded again
        // in its entry's dump context, which stores those through their
        // handlers; others (most) are encoded before it.
        let mut probe = Probe::default();
        let encoded =
            codec_runtime::__store::to_msgpack_diverting(value, self.options.apart_min, &mut probe);
        let (payload, large) = match options.mode {
            _ if probe.found => {
                return self.put_holding_handled(key, value, options, handler, expires)
            }
            Mode::Json => (codec_runtime::to_json_vec(value)?, Vec::new()),
            _ => encoded?,
        };
        let info = schema::info::<T>();
        self.write_schema(info)?;
        self.write_entry(
            key,
            Some(info.name.clone()),
            Some(info.fingerprint_hex.clone()),
            options.mode,
            Payload {
                bytes: &payload,
                large: &large,
            },
            handler.as_deref(),
            expires,
        )
    }

    /// [`put_with`](Self::put_with) of a value holding values of types
    /// with a store handler: each goes to its handler as a sub-value of
    /// the entry, whose payload holds its place (`content/sub_values.rs`).
    fn put_holding_handled<T: Codec + 'static>(
        &self,
        key: &str,
        value: &T,
        options: &PutOptions,
        handler: Option<String>,
        expires: Option<u64>,
    ) -> Result<(), StoreError> {
        let ty = HandledType::of::<T>();
        if options.mode == Mode::Json {
            return Err(StoreError::unsupported(
                self.backend.location(),
                format!(
                    "entry `{key}`: a `{}` holds values of a type with a store handler, \
                     which JSON mode cannot give to their handler (it stores the value's JSON); \
                     put it in MessagePack mode (the default)",
                    ty.rust_name
                ),
            ));
        }
        let info = schema::info::<T>();
        self.write_schema(info)?;
        self.write_entry_made(
            key,
            Some(info.name.clone()),
            Some(info.fingerprint_hex.clone()),
            options.mode,
            handler.as_deref(),
            expires,
            |ctx| ctx.encode_diverting(value, &ty, Some(self.options.apart_min)),
        )
    }

    /// Stores raw bytes under `key`.
    pub fn put_bytes(&self, key: &str, bytes: &[u8]) -> Result<(), StoreError> {
        keys::check_key(key)?;
        self.write_entry(
            key,
            None,
            None,
            Mode::Raw,
            Payload::plain(bytes),
            None,
            None,
        )
    }

    /// Stores `value` as the bytes `serialize` makes of it (a custom format for one call).
    /// Its error (any error type, or a message) is the source of a
    /// [`StoreError::Function`].
    pub fn put_with_fn<T, E: Into<Box<dyn std::error::Error + Send + Sync>>>(
        &self,
        key: &str,
        value: &T,
        serialize: impl FnOnce(&T) -> Result<Vec<u8>, E>,
    ) -> Result<(), StoreError> {
        let bytes = serialize(value).map_err(|e| StoreError::Function {
            key: key.to_owned(),
            action: "serializing",
            source: e.into(),
        })?;
        self.put_bytes(key, &bytes)
    }

    /// Stores `value` as the [`Codec`] value `convert` makes of it, with
    /// that value's type name and schema, as [`Cache::put`] stores it
    /// (anystore's `serialization_func`): for a type that is not `Codec`
    /// itself, kept through a `Codec` mirror of it. Read it back with
    /// [`Cache::get_converted`]; its error (any error type, or a message)
    /// is the source of a [`StoreError::Function`].
    ///
    /// ```
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use std::net::SocketAddr;
    ///
    /// #[derive(codec::Codec)]
    /// struct Endpoint { host: String, port: u16 }
    ///
    /// let dir = tempfile::tempdir()?;
    /// let cache = codec::Cache::open(dir.path())?;
    /// let addr: SocketAddr = "127.0.0.1:8080".parse()?;
    /// cache.put_converted("addr", &addr, |a| {
    ///     Ok::<_, std::convert::Infallible>(Endpoint { host: a.ip().to_string(), port: a.port() })
    /// })?;
    /// let back: Option<SocketAddr> =
    ///     cache.get_converted("addr", |e: Endpoint| format!("{}:{}", e.host, e.port).parse::<SocketAddr>())?;
    /// assert_eq!(back, Some(addr));
    /// # Ok(())
    /// # }
    /// ```
    pub fn put_converted<T: ?Sized, U: Codec + 'static, E>(
        &self,
        key: &str,
        value: &T,
        convert: impl FnOnce(&T) -> Result<U, E>,
    ) -> Result<(), StoreError>
    where
        E: Into<Box<dyn std::error::Error + Send + Sync>>,
    {
        let stored = convert(value).map_err(|e| StoreError::Function {
            key: key.to_owned(),
            action: "converting",
            source: e.into(),
        })?;
        self.put(key, &stored)
    }

    /// The value under `key` as `convert` makes it of the stored `U`,
    /// read (and schema-checked) as [`Cache::get`] reads it: the
    /// counterpart of [`Cache::put_converted`].
    pub fn get_converted<U: Codec + 'static, T, E>(
        &self,
        key: &str,
        convert: impl FnOnce(U) -> Result<T, E>,
    ) -> Result<Option<T>, StoreError>
    where
        E: Into<Box<dyn std::error::Error + Send + Sync>>,
    {
        let Some(stored) = self.get::<U>(key)? else {
            return Ok(None);
        };
        convert(stored).map(Some).map_err(|e| StoreError::Function {
            key: key.to_owned(),
            action: "converting back",
            source: e.into(),
        })
    }

    /// The value under `key`, if any. Written by another version of `T`, it
    /// decodes if every schema change is compatible, else it is an error
    /// listing the changes. A key no write takes (empty, longer than 4 KiB,
    /// with a control character) is [`StoreError::InvalidKey`], as it is to
    /// every read and to `remove`, unless a value was stored under it before
    /// the rule.
    ///
    /// As [`codec::Value`](codec_runtime::Value), any entry reads, whatever
    /// type wrote it (raw bytes as a byte string): its data as maps,
    /// arrays and scalars, without the Rust type.
    ///
    /// ```
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// #[derive(codec::Codec)]
    /// struct Chunk { text: String, start: u32 }
    ///
    /// let dir = tempfile::tempdir()?;
    /// let cache = codec::Cache::open(dir.path())?;
    /// cache.put("c", &Chunk { text: "hi".into(), start: 3 })?;
    /// let value = cache.get::<codec::Value>("c")?.unwrap();
    /// assert_eq!(codec::to_json(&value)?, r#"{"text":"hi","start":3}"#);
    /// # Ok(())
    /// # }
    /// ```
    pub fn get<T: Codec + 'static>(&self, key: &str) -> Result<Option<T>, StoreError> {
        self.reading_moved(|| self.get_once(key))
    }

    /// `read`, and once more after reading the index again if a file it
    /// read is missing: an online compaction moved the entry, and deleted
    /// the file this handle's index still named (past its grace period).
    pub(crate) fn reading_moved<R>(
        &self,
        read: impl Fn() -> Result<R, StoreError>,
    ) -> Result<R, StoreError> {
        match read() {
            Err(e) if e.is_missing() => {
                self.refresh()?;
                read()
            }
            done => done,
        }
    }

    fn get_once<T: Codec + 'static>(&self, key: &str) -> Result<Option<T>, StoreError> {
        let Some(found) = self.lookup(key)? else {
            return Ok(None);
        };
        let line = view(key, &found)?;
        #[cfg(feature = "ndarray")]
        if line.handler.as_deref() == Some(layout::ARRAY) {
            return self.get_array_entry::<T>(&line).map(Some);
        }
        let info = schema::info::<T>();
        // `Value` reads any entry, whatever type wrote it: an untyped get.
        let untyped = TypeId::of::<T>() == TypeId::of::<codec_runtime::Value>();
        let same = line.fingerprint.as_deref() == Some(info.fingerprint_hex.as_str());
        if !same && !untyped {
            self.check_schema(&line, info)?;
        }
        self.ensure_made_handler::<T>();
        // One lookup of the handler serves a typed one and the others.
        let handler = self.handler_ref(line.handler.as_deref().unwrap_or_default());
        if let Some(value) = self.get_typed::<T>(handler.as_deref(), &line)? {
            return Ok(Some(value));
        }
        // The values its payload holds the places of, which their
        // handlers stored.
        let values_info = match line.info_ref().mentions(sub_values::QUOTED_VALUES) {
            true => Some(line.info().map_err(|e| corrupt_line(key, e))?),
            false => None,
        };
        let values = values_info
            .as_ref()
            .map_or(&[][..], sub_values::entry_values);
        let ctx = self.load_context(key);
        if line.mode == Mode::MsgPack && line.handler.as_deref() == Some(layout::AUTO) {
            let info = line.info().map_err(|e| corrupt_line(key, e))?;
            let parts = apart::Parts::load(&info, &ctx)?;
            return ctx.reading_values(values, || parts.decode()).map(Some);
        }
        // Viewed where it lies (a data file's map, a lent buffer),
        // as `get_ref` views it: decoding makes the one copy.
        let held = self.held(handler.as_deref(), &line)?;
        let payload = held.bytes();
        // Raw bytes, read untyped: a byte string.
        let raw;
        let payload = match line.mode {
            Mode::Raw if untyped => {
                raw = codec_runtime::to_msgpack(&Bytes(payload.to_vec()))?;
                &raw[..]
            }
            _ => payload,
        };
        ctx.reading_values(values, || match line.mode {
            Mode::Json => codec_runtime::from_json_slice(payload),
            _ => codec_runtime::from_msgpack(payload),
        })
        .map(Some)
    }

    /// The raw bytes under `key` (for entries stored with [`Cache::put_bytes`]),
    /// or the encoded payload of a typed entry. An entry of a handler
    /// this handle lacks gives the bytes its handler wrote, as recorded
    /// (checked; its parts one after the other, which
    /// [`Admin::entry_bytes`](crate::Admin::entry_bytes) gives apart); one
    /// written before entries recorded them is
    /// [`StoreError::UnknownHandler`].
    pub fn get_bytes(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
        match self.with_payload(key, <[u8]>::to_vec) {
            Err(StoreError::UnknownHandler { key, handler }) => {
                self.recorded_bytes(&key).and_then(|bytes| match bytes {
                    // Removed meanwhile.
                    None if self.lookup(&key)?.is_none() => Ok(None),
                    None => Err(StoreError::UnknownHandler { key, handler }),
                    some => Ok(some),
                })
            }
            other => other,
        }
    }

    /// The bytes the entry `key` recorded, its parts one after the other,
    /// checked; `None` if it has none recorded (or no entry is there).
    fn recorded_bytes(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
        let Some(found) = self.lookup(key)? else {
            return Ok(None);
        };
        let line = view(key, &found)?;
        let info = line.info().map_err(|e| corrupt_line(key, e))?;
        let Some(parts) = crate::content::parts::Part::of_info(&info) else {
            return Ok(None);
        };
        let parts = parts.map_err(|message| StoreError::Corrupt {
            key: key.to_owned(),
            message,
        })?;
        let ctx = self.load_context(key);
        let mut bytes = Vec::new();
        for part in &parts {
            bytes.extend_from_slice(&part.read_checked(&ctx)?);
        }
        Ok(Some(bytes))
    }

    /// `read` of the payload under `key`, viewed where it lies (a data
    /// file's map, a lent buffer), as [`Cache::get_ref`] views it.
    fn with_payload<R>(
        &self,
        key: &str,
        read: impl FnOnce(&[u8]) -> R,
    ) -> Result<Option<R>, StoreError> {
        let held = self.reading_moved(|| {
            let Some(found) = self.lookup(key)? else {
                return Ok(None);
            };
            let line = view(key, &found)?;
            let handler = self.handler_ref(line.handler.as_deref().unwrap_or_default());
            self.held(handler.as_deref(), &line).map(Some)
        })?;
        Ok(held.map(|held| read(held.bytes())))
    }

    /// The value under `key`, made by `deserialize` from its bytes, which
    /// it reads where they lie (in a folder, a data file's memory map),
    /// not copied. Its error (any error type, or a message) is the source
    /// of a [`StoreError::Function`].
    pub fn get_with_fn<T, E: Into<Box<dyn std::error::Error + Send + Sync>>>(
        &self,
        key: &str,
        deserialize: impl FnOnce(&[u8]) -> Result<T, E>,
    ) -> Result<Option<T>, StoreError> {
        let Some(deserialized) = self.with_payload(key, deserialize)? else {
            return Ok(None);
        };
        deserialized.map(Some).map_err(|e| StoreError::Function {
            key: key.to_owned(),
            action: "deserializing",
            source: e.into(),
        })
    }

    /// Removes `key` for every reader. Returns whether it was present; a
    /// key no write takes (empty, too long, with a control character) is
    /// [`StoreError::InvalidKey`] unless it was stored before the rule.
    pub fn remove(&self, key: &str) -> Result<bool, StoreError> {
        let Some(found) = self.lookup_unnoted(key)? else {
            keys::check_key(key)?;
            return Ok(false);
        };
        let removed = self.write_removal(key, &found, 0)?;
        self.delete_removed(removed)?;
        Ok(true)
    }

    /// Appends the line that removes `key`, whose live line `found` is,
    /// at time `at` (0: when it is written); returns what the removal
    /// leaves to delete once that line is written
    /// ([`delete_removed`](Self::delete_removed)).
    pub(crate) fn write_removal(
        &self,
        key: &str,
        found: &Found,
        at: u64,
    ) -> Result<Removed, StoreError> {
        let line = view(key, found)?;
        let handler = line.handler.as_deref().map(str::to_owned);
        // Only a handler that deletes files (one of a program's, `file`),
        // or the values' handlers, need the info: parsing it (a payload
        // inline, in base64) would slow removals down for nothing.
        let needs_info = handler.as_deref().is_some_and(|h| {
            h == layout::FILE
                || !layout::is_built_in_handler(h)
                || line.info_ref().mentions(sub_values::QUOTED_VALUES)
        });
        let info = match needs_info {
            true => line.info().map_err(|e| corrupt_line(key, e))?,
            false => Info::new(),
        };
        self.append_line(IndexLine::removal(key, at))?;
        Ok(Removed {
            key: key.to_owned(),
            handler,
            info,
        })
    }

    /// Deletes the files of an entry whose removal line is written: its
    /// handler's, or, without its handler, the files of its own that it
    /// recorded (ranges of shared files go with compaction); so do those
    /// of the values its payload holds the places of, which their
    /// handlers wrote.
    pub(crate) fn delete_removed(&self, removed: Removed) -> Result<(), StoreError> {
        let Removed { key, handler, info } = removed;
        let Some(name) = handler else {
            return Ok(());
        };
        let ctx = self.load_context(&key);
        let handler = self.handler(&name);
        if let Some(handler) = &handler {
            handler.delete(&info, &ctx)?;
        }
        if handler.is_none() || info.contains_key(layout::VALUES) {
            let parts = crate::content::parts::Part::of_info(&info);
            for part in parts.and_then(Result::ok).unwrap_or_default() {
                if part.offset.is_none() {
                    ctx.delete_file(&part.file)?;
                }
            }
        }
        Ok(())
    }

    /// Removes `key` and returns the value it held, if any.
    ///
    /// The value is read, then the key removed: a put of the same key by
    /// another handle in between is removed with it.
    pub fn pop<T: Codec + 'static>(&self, key: &str) -> Result<Option<T>, StoreError> {
        let Some(value) = self.get::<T>(key)? else {
            return Ok(None);
        };
        self.remove(key)?;
        Ok(Some(value))
    }

    /// [`Admin::entry_payload`](crate::Admin::entry_payload).
    pub(crate) fn entry_payload(&self, entry: &EntryInfo) -> Result<Vec<u8>, StoreError> {
        let handler = self
            .handler(&entry.handler)
            .ok_or_else(|| StoreError::UnknownHandler {
                key: entry.key.clone(),
                handler: entry.handler.clone(),
            })?;
        handler.load(&entry.info, &self.load_context(&entry.key))
    }

    /// [`Admin::writer_schema`](crate::Admin::writer_schema).
    pub(crate) fn writer_schema(
        &self,
        fingerprint: &str,
    ) -> Result<Option<serde_json::Value>, StoreError> {
        let name = layout::schema_object(fingerprint);
        match self.backend.read(&name)? {
            Some(bytes) => serde_json::from_slice(&bytes).map(Some).map_err(|e| {
                StoreError::damaged_file(
                    &*self.backend,
                    &name,
                    format!(
                        "{e}. It is the schema of a type's version; remove it, and the next \
                         handle to put a value of that version writes it again"
                    ),
                )
            }),
            None => Ok(None),
        }
    }

    /// The text of the live line of `key`, refreshing the index once if
    /// the key is unknown.
    pub(crate) fn lookup(&self, key: &str) -> Result<Option<Found>, StoreError> {
        let found = self.lookup_unnoted(key)?;
        match found {
            Some(_) => self.uses.note(key, &*self.backend, &self.writer_id),
            // A key no write takes is a mistake, not a miss (one stored
            // before the rule still reads).
            None => keys::check_key(key)?,
        }
        Ok(found)
    }

    /// [`lookup`](Self::lookup) that records no use: a removal's, which
    /// would make the entry it removes the most recently used to a
    /// reduction running beside it.
    pub(crate) fn lookup_unnoted(&self, key: &str) -> Result<Option<Found>, StoreError> {
        self.checkpointer.take_up_ended(&self.index);
        match self.index_get(key)? {
            // Expired, as the line this handle knows: another writer may
            // have put it again since.
            Some(Some(found)) if found.expired(key, now_nanos) => {}
            Some(Some(found)) => return Ok(Some(found)),
            Some(None) => return Ok(None),
            None => {}
        }
        self.refresh()?;
        let found = self.index_get(key)?.flatten();
        Ok(found.filter(|found| !found.expired(key, now_nanos)))
    }

    /// [`lookup_unnoted`](Self::lookup_unnoted) of each of `keys`: their
    /// lines after the checkpoint taken under one taking of the index's
    /// lock, the checkpoint's tables read and the lines parsed without it
    /// ([`Index::aside`]): a write waits for the lock (a key the index
    /// does not know, or cannot tell, is looked up by itself).
    pub(crate) fn lookup_many_unnoted(
        &self,
        keys: &[&str],
    ) -> Result<Vec<Option<Found>>, StoreError> {
        self.checkpointer.take_up_ended(&self.index);
        let aside = self.index.read().aside(keys);
        let got = aside.found(keys);
        let now = now_nanos();
        (keys.iter().zip(got))
            .map(|(key, got)| match got {
                Ok(Some(Some(found))) if !found.expired(key, || now) => Ok(Some(found)),
                Ok(Some(None)) => Ok(None),
                _ => self.lookup_unnoted(key),
            })
            .collect()
    }

    /// [`Index::get`]; a damaged checkpoint found on the way is put aside
    /// (with a warning) and the logs read instead.
    pub(crate) fn index_get(&self, key: &str) -> Result<Option<Option<Found>>, StoreError> {
        let got = self.index.read().get(key);
        let damaged = match got {
            Ok(found) => return Ok(found),
            Err(damaged) => damaged,
        };
        // A compaction may have retired the log a line of the checkpoint
        // is in, and built the checkpoint again: taken up first.
        self.refresh()?;
        if let Ok(found) = self.index.read().get(key) {
            return Ok(found);
        }
        self.put_checkpoint_aside(&damaged.0)?;
        Ok(self.index.read().get(key).unwrap_or_default())
    }

    /// Every live key and its line; expired entries are not live.
    pub(crate) fn live_lines(&self) -> Result<Vec<index::LiveLine>, StoreError> {
        let now = now_nanos();
        self.read_live(|snapshot| snapshot.lines(now))
    }

    /// The latest line of each key whose line the caller asks for (of
    /// each log, what `log_asked` says, by the writer id of the log, a
    /// segment's own; where it says so, the lines `line_asked` says, by
    /// their bytes), and of the keys written since the checkpoint, live
    /// or not (`None`: removed or expired), each with that writer id
    /// ([`LinesSnapshot::newest_needed`](index::LinesSnapshot::newest_needed)).
    pub(crate) fn newest_lines_needed(
        &self,
        log_asked: &dyn Fn(&str) -> index::checkpoint::Asked,
        line_asked: &dyn Fn(&[u8]) -> bool,
    ) -> Result<Vec<index::NewestLine>, StoreError> {
        let now = now_nanos();
        self.refresh()?;
        // The checkpoint's lines asked for read first, without the lock;
        // then only the lines after it that the compaction may copy, or
        // that hide one of those, copied under it.
        let base = self.index.read().base();
        if let Ok(found) = base
            .as_ref()
            .map_or(Ok(None), |b| b.needed(log_asked, line_asked))
        {
            let shadowing = found.as_ref().map(|found| {
                (found.lines.keys())
                    .map(|key| index::table::key_hash(key))
                    .collect::<std::collections::HashSet<u64, foldhash::fast::RandomState>>()
            });
            let snapshot =
                (self.index.read()).snapshot_asked(base.as_ref(), log_asked, shadowing.as_ref());
            // Else a checkpoint taken up meanwhile: every line read again.
            if let Some(snapshot) = snapshot
                && let Ok(lines) = snapshot.newest_needed_of(found, now, log_asked, line_asked)
            {
                return Ok(lines);
            }
        }
        self.read_live(|snapshot| snapshot.newest_needed(now, log_asked, line_asked))
    }

    /// `read` of the index's live lines, after a refresh.
    fn read_live<T: Default>(
        &self,
        read: impl Fn(index::LinesSnapshot) -> Result<T, index::table::Damaged>,
    ) -> Result<T, StoreError> {
        self.refresh()?;
        // Read without the index's lock, which writers need.
        let snapshot = self.index.read().snapshot();
        Ok(match read(snapshot) {
            Ok(lines) => lines,
            // As in `index_get`: a checkpoint built again is taken up
            // first.
            Err(damaged) => match self.refresh().map(|()| read(self.index.read().snapshot())) {
                Ok(Ok(lines)) => lines,
                _ => {
                    self.put_checkpoint_aside(&damaged.0)?;
                    read(self.index.read().snapshot()).unwrap_or_default()
                }
            },
        })
    }

    /// The maintenance operations of the store this handle has open.
    pub fn admin(&self) -> crate::Admin<'_> {
        crate::Admin::of(self)
    }

    /// Whether the options bound the store.
    pub(crate) fn bounded(&self) -> bool {
        (self.options.bounds.as_ref()).is_some_and(|b| !b.is_unbounded())
    }

    pub(crate) fn index_read(&self) -> parking_lot::RwLockReadGuard<'_, Index> {
        self.index.read()
    }

    pub(crate) fn index_write(&self) -> parking_lot::RwLockWriteGuard<'_, Index> {
        self.index.write()
    }

    pub(crate) fn put_checkpoint_aside(&self, why: &str) -> Result<(), StoreError> {
        let mut index = self.index.write();
        if !index.is_distrusted() {
            index.distrust(&self.backend.location(), why);
        }
        index.refresh(&self.backend)
    }

    /// An entry written with another schema: decodable only if every change
    /// from the writer's schema to `T`'s is compatible.
    pub(crate) fn check_schema(
        &self,
        line: &LineView<'_>,
        info: &schema::SchemaInfo,
    ) -> Result<(), StoreError> {
        self.check_stored_schema(
            &line.key,
            line.type_name.as_deref(),
            line.fingerprint.as_deref(),
            info,
        )
    }

    /// Checks that a value stored as `type_name` with `fingerprint` reads
    /// as the type of `info`.
    pub(crate) fn check_stored_schema(
        &self,
        key: &str,
        type_name: Option<&str>,
        fingerprint: Option<&str>,
        info: &schema::SchemaInfo,
    ) -> Result<(), StoreError> {
        let key = || key.to_owned();
        let found = type_name.unwrap_or("raw bytes");
        let fp_text = fingerprint.unwrap_or_default();
        // Raw bytes have no fingerprint: the name alone refuses them.
        let writer = match fp_text.parse::<Fingerprint>() {
            Ok(writer) => writer,
            Err(_) if !info.accepts_name(found) => Fingerprint([0; 16]),
            Err(_) => {
                return Err(StoreError::Corrupt {
                    key: key(),
                    message: format!("malformed fingerprint `{fp_text}`"),
                })
            }
        };
        schema::check_readable(
            found,
            writer,
            info,
            || {
                self.writer_schema(fp_text)?
                    .ok_or_else(|| StoreError::Corrupt {
                        key: key(),
                        message: format!(
                            "the writer's schema {}/{} is missing",
                            layout::SCHEMAS,
                            layout::schema_name(fp_text)
                        ),
                    })
            },
            |refusal| StoreError::schema(key(), refusal),
        )
    }
}

/// Where the cache is and which writer this handle is: a `Result<Cache, _>`
/// can be unwrapped, and a type holding a handle can derive `Debug`.
impl std::fmt::Debug for Cache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cache")
            .field("location", &self.location())
            .field("writer_id", &self.writer_id)
            .finish_non_exhaustive()
    }
}

impl Drop for Cache {
    fn drop(&mut self) {
        if !self.owner {
            return;
        }
        // A checkpoint in progress ends before the handle's folder lock
        // goes (a compaction may be waiting for it); one a write asked
        // for meanwhile is built.
        // Its removals may ask for a build, and for a compaction.
        self.upkeep.join();
        self.checkpointer.close(&self.index);
        if let Err(e) = self.uses.flush(&*self.backend, &self.writer_id) {
            log::debug!(target: "codec::store", "recording uses: {e}");
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{mpsc, Arc};
    use std::time::Duration;

    use crate::compaction::sealed::{compact_sealed, Compaction};
    use crate::index::READING_ASIDE;
    use crate::{Cache, CacheOptions};

    /// A refresh that finds nothing new in a folder lists it without the
    /// index's lock, and takes the lock only to read: the writes, which
    /// take it, go on meanwhile.
    #[test]
    fn a_refresh_with_nothing_new_takes_the_index_s_lock_only_to_read() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::open(dir.path()).unwrap();
        cache.put("k", &1u32).unwrap();
        cache.refresh().unwrap();
        let held = cache.index.read();
        let (tx, rx) = mpsc::channel();
        std::thread::scope(|s| {
            s.spawn(|| tx.send(cache.refresh()).unwrap());
            let refreshed = rx.recv_timeout(Duration::from_secs(30));
            drop(held);
            let refreshed = refreshed.expect("the refresh waited to write the index");
            refreshed.unwrap();
        });
    }

    /// Once another handle's compaction retired logs this handle's index
    /// read, a refresh reads the store again without the index's lock,
    /// and the index it puts in place holds what this handle wrote
    /// meanwhile.
    #[test]
    fn a_write_made_while_the_store_is_read_again_aside_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        let options = CacheOptions::default().segment_bytes(0);
        let a = Arc::new(Cache::open_with(dir.path(), options.clone()).unwrap());
        let b = Cache::open_with(dir.path(), options).unwrap();
        // B's segment mostly dead, read by A; then retired.
        b.put("b", &1u32).unwrap();
        for i in 0..20u32 {
            b.put(&format!("dead{i}"), &i).unwrap();
            b.remove(&format!("dead{i}")).unwrap();
        }
        b.writer.seal_now().unwrap();
        a.put("a", &1u32).unwrap();
        a.refresh().unwrap();
        let own = Compaction::IfFree(Duration::ZERO);
        compact_sealed(Some(&b), b.backend.clone(), &[], own, &mut |_, _| {}).unwrap();
        let writer = a.clone();
        let meanwhile = move || {
            let free = writer.index.try_write().is_some();
            assert!(free, "the store was read again under the index's lock");
            writer.put("a", &2u32).unwrap();
            writer.put("new", &3u32).unwrap();
        };
        READING_ASIDE.with_borrow_mut(|hook| *hook = Some(Box::new(meanwhile)));
        a.refresh().unwrap();
        assert!(
            READING_ASIDE.with_borrow(Option::is_none),
            "not read again aside"
        );
        // Read from the index itself: a key it misses, `get` would refresh.
        let line = |key: &str| match a.index.read().get(key) {
            Ok(Some(Some(found))) => found.text.to_string(),
            other => panic!("{key}: {:?}", other.map(|o| o.map(|f| f.is_some()))),
        };
        // 2 in MessagePack.
        assert!(line("a").contains(r#""data":"Ag==""#), "{}", line("a"));
        line("new");
        line("b");
        assert_eq!(a.get::<u32>("a").unwrap(), Some(2));
    }

    /// A put to `cache` while `held` (a guard of one of its locks) is
    /// held: whether it counted itself in `spun` (waited on its
    /// processor) before `held` was let go; then the put's value reads
    /// back.
    fn a_put_spins_while_held<G>(
        cache: &Cache,
        held: G,
        spun: &std::sync::atomic::AtomicU64,
    ) -> bool {
        use std::sync::atomic::Ordering::Relaxed;

        let before = spun.load(Relaxed);
        let waited = std::thread::scope(|s| {
            let writer = s.spawn(|| cache.put("k", &2u32));
            let start = std::time::Instant::now();
            while spun.load(Relaxed) == before && start.elapsed() < Duration::from_secs(30) {
                std::thread::yield_now();
            }
            let waited = spun.load(Relaxed) > before;
            drop(held);
            writer.join().unwrap().unwrap();
            waited
        });
        assert_eq!(cache.get::<u32>("k").unwrap(), Some(2));
        waited
    }

    /// A write that finds the index's lock held waits for it on its
    /// processor a while before it sleeps (on a machine with more than
    /// one).
    #[test]
    fn a_write_waits_for_the_index_s_lock_on_its_processor_first() {
        if crate::cache::threads::processors() == 1 {
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::open(dir.path()).unwrap();
        cache.put("k", &1u32).unwrap();
        let held = cache.index.read();
        let spun = a_put_spins_while_held(&cache, held, &crate::cache::write::SPUN_FOR_INDEX);
        assert!(spun, "the write slept at once");
    }

    /// A write that finds the writer's lock held (by a pass of the bounds
    /// writing removals) waits for it on its processor a while before it
    /// sleeps (on a machine with more than one).
    #[test]
    fn a_write_waits_for_the_writer_s_lock_on_its_processor_first() {
        if crate::cache::threads::processors() == 1 {
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::open(dir.path()).unwrap();
        cache.put("k", &1u32).unwrap();
        let held = cache.writer.lock();
        let spun = a_put_spins_while_held(&cache, held, &crate::cache::writers::SPUN_FOR_WRITER);
        assert!(spun, "the write slept at once");
    }

    /// A refresh reads what another handle wrote since the last: a key
    /// this handle knows, written again.
    #[test]
    fn a_refresh_reads_what_another_handle_wrote_since() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (
            Cache::open(dir.path()).unwrap(),
            Cache::open(dir.path()).unwrap(),
        );
        a.put("k", &1u32).unwrap();
        assert_eq!(b.get::<u32>("k").unwrap(), Some(1));
        a.put("k", &2u32).unwrap();
        b.refresh().unwrap();
        assert_eq!(b.get::<u32>("k").unwrap(), Some(2));
        // A writer new to this handle.
        let c = Cache::open(dir.path()).unwrap();
        c.put("k", &3u32).unwrap();
        b.refresh().unwrap();
        assert_eq!(b.get::<u32>("k").unwrap(), Some(3));
    }
}
