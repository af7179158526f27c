//! Handlers put an entry's payload somewhere and find it again. The built-in
//! ones: `inline` (in the index line), `shared` (appended to the writer's
//! data file), `file` (one file per entry). Users add their own through the
//! [`Handler`] trait.

use parking_lot::{Mutex, MutexGuard};
use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::path::PathBuf;
use std::sync::Arc;

use base64::Engine as _;
use codec_runtime::__store::schema::SchemaInfo;
use codec_runtime::__store::DefaultHandler;

use crate::backend::{Appender, Appends, Backend, Created};
use crate::cache::writers::SharedData;
use crate::content::parts::Part;
use crate::error::StoreError;
use crate::index::line::InfoRef;
use crate::index::records::{Info, InfoValue};
use crate::layout;

/// Stores and loads payloads for a cache.
///
/// `dump` returns the info the index line keeps (where the payload went);
/// `load` gets it back. Info keys `#key`, `#type` and `#parts` are reserved (the
/// last lists the files and ranges the dump wrote: see [`Part`](crate::Part)). A
/// handler that takes values rather than bytes is a
/// [`TypedHandler`](crate::content::typed::TypedHandler).
///
/// Threads sharing a [`Cache`](crate::Cache) run their handlers' dumps at
/// the same time: a dump holds no lock of the handle while it works, only
/// the shared data file while it appends to it (from the first piece to
/// the last of a [`SharedWriter`] range).
pub trait Handler: Any + Send + Sync {
    /// The name written in index lines; unique among a cache's handlers.
    fn name(&self) -> &str;

    /// Former names: entries written under them are read by this handler
    /// (and compaction rewrites them under its name).
    fn aliases(&self) -> &[&str] {
        &[]
    }

    /// Stores `payload`, returning where.
    fn dump(&self, payload: &[u8], ctx: &mut DumpContext<'_>) -> Result<Info, StoreError>;

    /// Loads the payload that `dump` described with `info`.
    fn load(&self, info: &Info, ctx: &LoadContext<'_>) -> Result<Vec<u8>, StoreError>;

    /// [`load`](Self::load), with the info read in place from the index
    /// line. The default builds the [`Info`] map and calls `load`; handlers
    /// of small payloads override it to skip that.
    fn load_ref(&self, info: InfoRef<'_>, ctx: &LoadContext<'_>) -> Result<Vec<u8>, StoreError> {
        let info = info
            .to_info()
            .map_err(|e| ctx.corrupt(format!("index info: {e}")))?;
        self.load(&info, ctx)
    }

    /// Called when the entry is removed: free what only this entry uses.
    fn delete(&self, _info: &Info, _ctx: &LoadContext<'_>) -> Result<(), StoreError> {
        Ok(())
    }

    /// The handler as one that takes values ([`Typed`](crate::content::typed::Typed)
    /// overrides it): how the store gives it a value of a type it meets
    /// inside another. Not for handlers a program writes.
    #[doc(hidden)]
    fn __values(&self) -> Option<&dyn crate::content::typed::AnyTyped> {
        None
    }
}

/// What a handler can do while storing one entry.
pub struct DumpContext<'a> {
    pub(crate) backend: &'a dyn Backend,
    pub(crate) writer_id: &'a str,
    pub(crate) seq: u64,
    /// The writer's segment, which its shared data goes to.
    pub(crate) segment: u64,
    /// The handle's shared data segment, which it appends to.
    pub(crate) shared: &'a SharedData,
    pub(crate) fsync: bool,
    /// Whether an append to the shared data segment is synced (not where
    /// the caller syncs many at once).
    pub(crate) fsync_shared: bool,
    pub(crate) key: &'a str,
    /// The payload's large `bin` values, for the `auto` handler.
    pub(crate) large: Vec<codec_runtime::__store::LargeBin>,
    pub(crate) inline_limit: usize,
    /// The size from which sub-values keep their buffers apart.
    pub(crate) apart_min: usize,
    /// The handle, for the handlers of sub-values.
    pub(crate) subs: Option<&'a dyn SubValues>,
    /// The schemas of the sub-values stored, to write once the dump is done.
    pub(crate) schemas: Vec<&'static codec_runtime::__store::schema::SchemaInfo>,
    /// Whether the dump records its parts: for the handlers a program
    /// brings, not the built-in ones, which every handle has.
    pub(crate) record: bool,
    /// The files and ranges this dump wrote through the context.
    pub(crate) parts: Vec<Part>,
    /// The bytes of sub-values kept in the info itself.
    pub(crate) inline_bytes: u64,
    /// The number after the last file name this entry was given.
    pub(crate) files: u64,
    /// The handle's count of file names: the sequence they are of, and
    /// how many were given for it. Dumps that fail leave files under
    /// their names (the next dump of the same sequence names past them),
    /// and dumps of different threads may begin at the same sequence.
    pub(crate) named: &'a Mutex<(u64, u64)>,
    /// The files [`allocate_file`](Self::allocate_file) gave out, whose
    /// bytes are known once the handler has written them.
    pub(crate) allocated: Vec<String>,
}

impl<'a> DumpContext<'a> {
    /// The key of the entry being stored.
    pub fn key(&self) -> &str {
        self.key
    }

    /// Creates a new file for this entry under `data/`; returns its name
    /// (relative to `data/`, for the info) and the open file. Only a
    /// cache in a folder has files: elsewhere use
    /// [`write_file`](Self::write_file).
    pub fn allocate_file(&mut self, extension: &str) -> Result<(String, File), StoreError> {
        let Some(data_dir) = self.backend.file_path(layout::DATA) else {
            return Err(StoreError::unsupported(
                self.backend.location(),
                format!(
                    "entry `{}`: this store has no files to allocate; \
                     write the payload with DumpContext::write_file",
                    self.key
                ),
            ));
        };
        let mut tries = 0;
        loop {
            let name = self.next_file_name(extension);
            let path = data_dir.join(&name);
            match OpenOptions::new().write(true).create_new(true).open(&path) {
                Ok(file) => {
                    if self.record {
                        self.allocated.push(name.clone());
                    }
                    return Ok((name, file));
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && tries < 1000 => {
                    tries += 1;
                }
                // A store opened on its backend has no data folder until
                // its first data object.
                Err(e) if e.kind() == std::io::ErrorKind::NotFound && !data_dir.exists() => {
                    std::fs::create_dir_all(&data_dir).map_err(|e| StoreError::io(&data_dir, e))?;
                }
                Err(e) => return Err(StoreError::io(&path, e)),
            }
        }
    }

    /// Writes `bytes` as a new data object of this entry, whole (readers
    /// never see a part of it); returns its name (relative to `data/`,
    /// for the info).
    pub fn write_file(&mut self, extension: &str, bytes: &[u8]) -> Result<String, StoreError> {
        for _ in 0..1000 {
            let name = self.next_file_name(extension);
            let object = layout::data_object(&name);
            if self.backend.create(&object, bytes, self.fsync)? == Created::Yes {
                if self.record {
                    self.parts.push(Part::of(&name, None, bytes));
                }
                return Ok(name);
            }
        }
        let name = layout::entry_file_name(self.writer_id, self.seq, 0, extension);
        Err(StoreError::io(
            self.backend.address(&layout::data_object(&name)),
            std::io::ErrorKind::AlreadyExists.into(),
        ))
    }

    /// The name of this entry's next file. A writer taken up from a
    /// handle that is gone may find a file of an entry whose line was
    /// never written under that name: its caller then asks for the next.
    fn next_file_name(&mut self, extension: &str) -> String {
        let n = {
            let mut named = self.named.lock();
            if named.0 < self.seq {
                *named = (self.seq, 0);
            }
            if named.0 == self.seq {
                named.1 += 1;
                self.files = named.1;
            } else {
                // A dump that began before the last line, still naming:
                // on from its own last name (a name another dump took is
                // skipped by its caller, as above).
                self.files += 1;
            }
            self.files - 1
        };
        layout::entry_file_name(self.writer_id, self.seq, n, extension)
    }

    /// Appends `bytes` to this writer's shared data file; returns the file's
    /// name (relative to `data/`) and the offset of the bytes.
    pub fn append_shared(&mut self, bytes: &[u8]) -> Result<(String, u64), StoreError> {
        self.append_shared_aligned(bytes, 1)
    }

    /// Like [`append_shared`](Self::append_shared), with zeros before `bytes`
    /// so that they start at a multiple of `align`, in the same write.
    pub fn append_shared_aligned(
        &mut self,
        bytes: &[u8],
        align: u64,
    ) -> Result<(String, u64), StoreError> {
        let (name, offset) = self.append_unrecorded(bytes, align)?;
        if self.record {
            self.parts.push(Part::of(&name, Some(offset), bytes));
        }
        Ok((name, offset))
    }

    /// [`append_shared_aligned`](Self::append_shared_aligned), leaving the
    /// part unrecorded (for its caller to record).
    fn append_unrecorded(&mut self, bytes: &[u8], align: u64) -> Result<(String, u64), StoreError> {
        let shared = self.shared;
        self.append_to_shared(&mut shared.file.lock(), bytes, align)
    }

    /// [`append_unrecorded`](Self::append_unrecorded) to `file`, the
    /// shared data segment's guard.
    fn append_to_shared(
        &self,
        file: &mut Option<Box<dyn Appender>>,
        bytes: &[u8],
        align: u64,
    ) -> Result<(String, u64), StoreError> {
        let segment = (self.writer_id, self.segment);
        let appended =
            (self.shared).append(file, self.backend, segment, bytes, align, self.fsync_shared)?;
        let name = appended
            .name
            .strip_prefix(layout::DATA)
            .unwrap_or(&appended.name)
            .trim_start_matches('/');
        Ok((name.to_owned(), appended.offset))
    }

    /// A writer of one range of this writer's shared data file, for a
    /// payload a handler makes piece by piece (exca's
    /// `ctx.shared_file(suffix)`): [`std::io::Write`] it in, then
    /// [`SharedWriter::finish`] gives the file's name and the range's
    /// offset and length, which the handler keeps in its info and reads
    /// back with [`LoadContext::read_range`].
    ///
    /// In a folder each write goes to the file as it comes, so the
    /// payload is never held whole in memory. On object storage, where
    /// an append is an object of its own, the pieces are gathered and
    /// appended as one at `finish`.
    ///
    /// ```
    /// # use codec::store::{DumpContext, Info, InfoValue, LoadContext, Handler};
    /// # use codec::StoreError;
    /// use std::io::Write as _;
    ///
    /// /// Streams a payload in chunks, as a handler writing a large file would.
    /// struct Chunked;
    ///
    /// impl Handler for Chunked {
    ///     fn name(&self) -> &str { "chunked" }
    ///     fn dump(&self, payload: &[u8], ctx: &mut DumpContext<'_>) -> Result<Info, StoreError> {
    ///         let mut out = ctx.shared_writer();
    ///         for chunk in payload.chunks(4096) {
    ///             out.write_all(chunk).map_err(|e| StoreError::Custom { message: e.to_string() })?;
    ///         }
    ///         let (file, offset, len) = out.finish()?;
    ///         Ok(Info::from([
    ///             ("file".to_owned(), InfoValue::from(file)),
    ///             ("offset".to_owned(), InfoValue::Int(offset as i64)),
    ///             ("len".to_owned(), InfoValue::Int(len as i64)),
    ///         ]))
    ///     }
    ///     fn load(&self, info: &Info, ctx: &LoadContext<'_>) -> Result<Vec<u8>, StoreError> {
    ///         let (Some(InfoValue::Text(file)), Some(InfoValue::Int(offset)), Some(InfoValue::Int(len))) =
    ///             (info.get("file"), info.get("offset"), info.get("len"))
    ///         else {
    ///             return Err(ctx.corrupt("no range"));
    ///         };
    ///         ctx.read_range(file, *offset as u64, *len as u64)
    ///     }
    /// }
    ///
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let dir = tempfile::tempdir()?;
    /// let cache = codec::Cache::open(dir.path())?;
    /// cache.register_handler(std::sync::Arc::new(Chunked));
    /// let big = vec![7u8; 100_000];
    /// cache.put_with("big", &codec::Bytes(big.clone()), &codec::PutOptions::default().handler("chunked"))?;
    /// assert_eq!(cache.get::<codec::Bytes>("big")?.map(|b| b.0), Some(big));
    /// # Ok(())
    /// # }
    /// ```
    pub fn shared_writer(&mut self) -> SharedWriter<'_, 'a> {
        let gather = self.backend.appends() != Appends::InPlace;
        SharedWriter {
            ctx: self,
            file: None,
            start: None,
            len: 0,
            crc: crc32fast::Hasher::new(),
            gathered: gather.then(Vec::new),
        }
    }

    /// Appends `parts` to this writer's shared data, each at a multiple of
    /// `align`, all in one data object; returns its name (relative to
    /// `data/`) and each part's offset. In a folder each part is its own
    /// write to the one shared file; where each append is an object of its
    /// own (object storage), the parts are joined into one append, so one
    /// name finds them all and they cost one request.
    pub(crate) fn append_shared_parts(
        &mut self,
        parts: &[&[u8]],
        align: u64,
    ) -> Result<(String, Vec<u64>), StoreError> {
        let mut offsets = Vec::with_capacity(parts.len());
        if self.backend.appends() == Appends::InPlace || parts.len() == 1 {
            let mut file = String::new();
            for part in parts {
                let (name, offset) = self.append_shared_aligned(part, align)?;
                file = name;
                offsets.push(offset);
            }
            return Ok((file, offsets));
        }
        let align = align.max(1);
        let mut joined = Vec::with_capacity(
            parts.iter().map(|p| p.len()).sum::<usize>() + parts.len() * align as usize,
        );
        for part in parts {
            let pad = (align - joined.len() as u64 % align) % align;
            joined.resize(joined.len() + pad as usize, 0);
            offsets.push(joined.len() as u64);
            joined.extend_from_slice(part);
        }
        let (file, base) = self.append_shared_aligned(&joined, align)?;
        Ok((file, offsets.into_iter().map(|o| base + o).collect()))
    }

    /// Stores `bytes` as a sub-value of this entry, as the cache stores
    /// payloads by default: in the returned token itself when small, else
    /// appended to the shared data file. Keep the token in the handler's
    /// info and give it to [`LoadContext::load_bytes`].
    pub fn dump_bytes(&mut self, bytes: &[u8]) -> Result<InfoValue, StoreError> {
        let engine = &base64::engine::general_purpose::STANDARD;
        if bytes.len() <= self.inline_limit {
            self.inline_bytes += bytes.len() as u64;
            return Ok(InfoValue::Text(format!("b64:{}", engine.encode(bytes))));
        }
        let (file, offset) = self.append_shared(bytes)?;
        Ok(InfoValue::Text(format!(
            "at:{file}:{offset}:{}",
            bytes.len()
        )))
    }

    /// Stores a value (its MessagePack encoding) as a sub-value of this
    /// entry: see [`dump_bytes`](Self::dump_bytes) and
    /// [`LoadContext::load_value`]. The entry's schema check does not cover
    /// it: a handler that changes what it stores changes its name.
    /// [`dump`](Self::dump) stores it through its own handler, with its
    /// schema.
    pub fn dump_value<T: codec_runtime::Codec>(
        &mut self,
        value: &T,
    ) -> Result<InfoValue, StoreError> {
        self.dump_bytes(&codec_runtime::to_msgpack(value)?)
    }

    /// What the entry holds once the dump is done: the files and ranges
    /// it wrote through this context (the files it was given read as they
    /// are now), and its size, those and the sub-values kept in the info.
    pub(crate) fn finish(&mut self) -> Result<(Vec<Part>, u64), StoreError> {
        for name in std::mem::take(&mut self.allocated) {
            let object = layout::data_object(&name);
            let bytes = self.backend.read(&object)?.ok_or_else(|| {
                StoreError::io(
                    self.backend.address(&object),
                    std::io::ErrorKind::NotFound.into(),
                )
            })?;
            self.parts.push(Part::of(&name, None, &bytes));
        }
        let parts = std::mem::take(&mut self.parts);
        let held = self.inline_bytes + parts.iter().map(|p| p.len).sum::<u64>();
        Ok((parts, held))
    }

    /// Whether data must reach the disk before the index line (the cache's
    /// durability option): handlers writing their own files call `sync_data`.
    pub fn fsync(&self) -> bool {
        self.fsync
    }

    /// The path of a file [`allocate_file`](Self::allocate_file) named,
    /// for libraries that write to a path; on a store that is not a folder,
    /// its address (for messages: there is no file to write).
    pub fn path(&self, name: &str) -> PathBuf {
        let object = layout::data_object(name);
        (self.backend.file_path(&object)).unwrap_or_else(|| self.backend.address(&object).into())
    }

    /// The error of a failed read or write of the file `name` (relative
    /// to `data/`).
    pub fn io_error(&self, name: &str, source: std::io::Error) -> StoreError {
        StoreError::io(self.path(name), source)
    }
}

/// The data file, offset and length a sub-value token of the shared data
/// (`at:<file>:<offset>:<len>`, [`DumpContext::dump_bytes`]) names.
pub(crate) fn shared_token(token: &str) -> Option<(&str, u64, u64)> {
    let mut parts = token.strip_prefix("at:")?.rsplitn(3, ':');
    let (len, offset, file) = (parts.next()?, parts.next()?, parts.next()?);
    Some((file, offset.parse().ok()?, len.parse().ok()?))
}

/// Read-side resources a handler keeps open between loads (an open map, a
/// file handle), by name.
#[derive(Default)]
pub(crate) struct Resources {
    map: Mutex<HashMap<String, Arc<dyn Any + Send + Sync>>>,
}

/// What a handler can do while loading one entry.
pub struct LoadContext<'a> {
    pub(crate) backend: &'a dyn Backend,
    pub(crate) resources: &'a Resources,
    pub(crate) key: &'a str,
    /// The handle, for the handlers and schemas of sub-values.
    pub(crate) subs: Option<&'a dyn SubValues>,
}

impl LoadContext<'_> {
    /// The key of the entry being loaded.
    pub fn key(&self) -> &str {
        self.key
    }

    /// The path of a file named in info (relative to `data/`), in a
    /// cache in a folder.
    pub fn path(&self, name: &str) -> Result<PathBuf, StoreError> {
        let object = self.object(name)?;
        match self.backend.file_path(&object) {
            Some(path) => Ok(path),
            None => Err(StoreError::unsupported(
                self.backend.location(),
                format!(
                    "entry `{}`: this store has no files; read the data with \
                     LoadContext::read_file or read_range",
                    self.key
                ),
            )),
        }
    }

    /// Deletes a file named in info (relative to `data/`), on every
    /// backend: what a handler's [`Handler::delete`] calls for the files
    /// it wrote with [`DumpContext::write_file`] or
    /// [`DumpContext::allocate_file`]. Deleting a missing file is no error.
    pub fn delete_file(&self, name: &str) -> Result<(), StoreError> {
        let object = self.object(name)?;
        Ok(self.backend.delete(&object)?)
    }

    /// The object name of a data file named in info (relative to `data/`).
    pub(crate) fn object(&self, name: &str) -> Result<String, StoreError> {
        self.check_file_name(name)?;
        Ok(layout::data_object(name))
    }

    /// Refuses a file name in info that would leave `data/`.
    pub(crate) fn check_file_name(&self, name: &str) -> Result<(), StoreError> {
        if name.contains('/') || name.contains('\\') || name.starts_with('.') {
            return Err(self.corrupt(format!("data file name `{name}` leaves the data folder")));
        }
        Ok(())
    }

    /// An error about this entry's data.
    pub fn corrupt(&self, message: impl Into<String>) -> StoreError {
        StoreError::Corrupt {
            key: self.key.to_owned(),
            message: message.into(),
        }
    }

    /// The bytes of a sub-value, from the token
    /// [`DumpContext::dump_bytes`] returned.
    pub fn load_bytes(&self, token: &InfoValue) -> Result<Vec<u8>, StoreError> {
        let bad = || self.corrupt(format!("`{token:?}` is not a sub-value token"));
        let InfoValue::Text(token) = token else {
            return Err(bad());
        };
        if let Some(data) = token.strip_prefix("b64:") {
            return decode_inline(data, self);
        }
        let (file, offset, len) = shared_token(token).ok_or_else(bad)?;
        self.read_range(file, offset, len)
    }

    /// A sub-value stored by [`DumpContext::dump_value`].
    pub fn load_value<T: codec_runtime::Codec>(&self, token: &InfoValue) -> Result<T, StoreError> {
        codec_runtime::from_msgpack(&self.load_bytes(token)?).map_err(|source| StoreError::Decode {
            key: self.key.to_owned(),
            source,
        })
    }

    /// A resource kept between loads, created by `init` on first use.
    pub fn resource<R: Any + Send + Sync>(
        &self,
        name: &str,
        init: impl FnOnce() -> Result<R, StoreError>,
    ) -> Result<Arc<R>, StoreError> {
        let mut map = self.resources.map.lock();
        if let Some(found) = map.get(name).and_then(|r| r.clone().downcast::<R>().ok()) {
            return Ok(found);
        }
        let created = Arc::new(init()?);
        map.insert(name.to_owned(), created.clone());
        Ok(created)
    }

    /// Drops a resource, so the next load creates it again (after a file changed).
    pub fn invalidate(&self, name: &str) {
        self.resources.map.lock().remove(name);
    }
}

pub(crate) fn lacks(key: &str, ctx: &LoadContext<'_>) -> StoreError {
    ctx.corrupt(format!("index info lacks `{key}`"))
}

fn decode_inline(data: &str, ctx: &LoadContext<'_>) -> Result<Vec<u8>, StoreError> {
    let mut out = Vec::new();
    decode_inline_into(data, &mut out, ctx)?;
    Ok(out)
}

/// The bytes of inline `data` (base64), appended to `out`.
pub(crate) fn decode_inline_into(
    data: &str,
    out: &mut Vec<u8>,
    ctx: &LoadContext<'_>,
) -> Result<(), StoreError> {
    base64::engine::general_purpose::STANDARD
        .decode_vec(data, out)
        .map_err(|e| ctx.corrupt(format!("inline data is not base64: {e}")))
}

fn text<'a>(info: &'a Info, key: &str, ctx: &LoadContext<'_>) -> Result<&'a str, StoreError> {
    match info.get(key) {
        Some(InfoValue::Text(s)) => Ok(s),
        _ => Err(lacks(key, ctx)),
    }
}

fn int(info: &Info, key: &str, ctx: &LoadContext<'_>) -> Result<u64, StoreError> {
    match info.get(key) {
        Some(InfoValue::Int(i)) if *i >= 0 => Ok(*i as u64),
        _ => Err(lacks(key, ctx)),
    }
}

/// The file, offset and length of a payload [`range_info`] described,
/// read in place.
pub(crate) fn range_ref<'a>(
    info: InfoRef<'a>,
    ctx: &LoadContext<'_>,
) -> Result<(std::borrow::Cow<'a, str>, u64, u64), StoreError> {
    let int = |key| match info.int(key) {
        Some(i) if i >= 0 => Ok(i as u64),
        _ => Err(lacks(key, ctx)),
    };
    let file = info.text("file").ok_or_else(|| lacks("file", ctx))?;
    Ok((file, int("offset")?, int("len")?))
}

/// The info of a payload at `offset` of a shared data file.
pub(crate) fn range_info(file: String, offset: u64, len: usize) -> Info {
    [
        ("file".to_owned(), InfoValue::Text(file)),
        ("offset".to_owned(), InfoValue::Int(offset as i64)),
        ("len".to_owned(), InfoValue::Int(len as i64)),
    ]
    .into_iter()
    .collect()
}

/// Payloads kept in the index line itself, base64-encoded: for small values.
pub struct Inline;

impl Handler for Inline {
    fn name(&self) -> &str {
        layout::INLINE
    }

    fn dump(&self, payload: &[u8], _ctx: &mut DumpContext<'_>) -> Result<Info, StoreError> {
        let data = base64::engine::general_purpose::STANDARD.encode(payload);
        Ok([("data".to_owned(), InfoValue::Text(data))]
            .into_iter()
            .collect())
    }

    fn load(&self, info: &Info, ctx: &LoadContext<'_>) -> Result<Vec<u8>, StoreError> {
        decode_inline(text(info, "data", ctx)?, ctx)
    }

    fn load_ref(&self, info: InfoRef<'_>, ctx: &LoadContext<'_>) -> Result<Vec<u8>, StoreError> {
        let data = info.text("data").ok_or_else(|| lacks("data", ctx))?;
        decode_inline(&data, ctx)
    }
}

/// Payloads appended to the writer's shared data file: `(file, offset, len)`.
pub struct Shared;

impl Handler for Shared {
    fn name(&self) -> &str {
        layout::SHARED
    }

    fn dump(&self, payload: &[u8], ctx: &mut DumpContext<'_>) -> Result<Info, StoreError> {
        let (file, offset) = ctx.append_shared(payload)?;
        Ok(range_info(file, offset, payload.len()))
    }

    fn load(&self, info: &Info, ctx: &LoadContext<'_>) -> Result<Vec<u8>, StoreError> {
        ctx.read_range(
            text(info, "file", ctx)?,
            int(info, "offset", ctx)?,
            int(info, "len", ctx)?,
        )
    }

    fn load_ref(&self, info: InfoRef<'_>, ctx: &LoadContext<'_>) -> Result<Vec<u8>, StoreError> {
        let (file, offset, len) = range_ref(info, ctx)?;
        ctx.read_range(&file, offset, len)
    }
}

/// One file per entry under `data/`: for large payloads kept and deleted alone.
pub struct FilePerEntry;

impl Handler for FilePerEntry {
    fn name(&self) -> &str {
        layout::FILE
    }

    fn dump(&self, payload: &[u8], ctx: &mut DumpContext<'_>) -> Result<Info, StoreError> {
        let name = ctx.write_file("bin", payload)?;
        Ok([
            ("file".to_owned(), InfoValue::Text(name)),
            ("len".to_owned(), InfoValue::Int(payload.len() as i64)),
        ]
        .into_iter()
        .collect())
    }

    fn load(&self, info: &Info, ctx: &LoadContext<'_>) -> Result<Vec<u8>, StoreError> {
        ctx.read_range(text(info, "file", ctx)?, 0, int(info, "len", ctx)?)
    }

    fn delete(&self, info: &Info, ctx: &LoadContext<'_>) -> Result<(), StoreError> {
        ctx.delete_file(text(info, "file", ctx)?)
    }
}

/// What the contexts ask of the handle for sub-values
/// (`content::sub_values`).
pub(crate) trait SubValues: Sync {
    /// The default handler of the type `type_id` (which names `declared`).
    fn default_handler(
        &self,
        type_id: TypeId,
        declared: Option<DefaultHandler>,
    ) -> Option<Arc<dyn Handler>>;

    /// The handler `name` (or the one it is an alias of).
    fn handler(&self, name: &str) -> Option<Arc<dyn Handler>>;

    /// Checks that a value of `type_name` and `fingerprint` reads as `info`.
    fn check_schema(
        &self,
        key: &str,
        type_name: &str,
        fingerprint: &str,
        info: &SchemaInfo,
    ) -> Result<(), StoreError>;
}

/// One range of a writer's shared data file, written piece by piece:
/// [`DumpContext::shared_writer`].
pub struct SharedWriter<'c, 'a> {
    ctx: &'c mut DumpContext<'a>,
    /// The shared data segment, held from the first piece to the last so
    /// that no other thread's append comes between them.
    file: Option<MutexGuard<'a, Option<Box<dyn Appender>>>>,
    /// The file and offset of the first piece, once written.
    start: Option<(String, u64)>,
    len: u64,
    crc: crc32fast::Hasher,
    /// The pieces, where the backend's appends are objects of their own.
    gathered: Option<Vec<u8>>,
}

impl SharedWriter<'_, '_> {
    /// Ends the range: its file's name (relative to `data/`), offset and
    /// length. A range nothing was written to is empty, at the end of
    /// the file.
    pub fn finish(mut self) -> Result<(String, u64, u64), StoreError> {
        // The range is whole: other threads append again.
        self.file = None;
        if let Some(gathered) = self.gathered.take() {
            let (file, offset) = self.ctx.append_unrecorded(&gathered, 1)?;
            self.start = Some((file, offset));
        }
        let (file, offset) = match self.start.take() {
            Some(start) => start,
            None => self.ctx.append_unrecorded(&[], 1)?,
        };
        if self.ctx.record {
            self.ctx.parts.push(Part {
                file: file.clone(),
                offset: Some(offset),
                len: self.len,
                crc: self.crc.clone().finalize(),
            });
        }
        Ok((file, offset, self.len))
    }

    fn append(&mut self, buf: &[u8]) -> Result<(), StoreError> {
        if let Some(gathered) = &mut self.gathered {
            gathered.extend_from_slice(buf);
            return Ok(());
        }
        let shared = self.ctx.shared;
        let guard = self.file.get_or_insert_with(|| shared.file.lock());
        let (file, offset) = self.ctx.append_to_shared(guard, buf, 1)?;
        match &self.start {
            None => self.start = Some((file, offset)),
            // The segment is held from the first piece on: nothing else
            // appends between two pieces, and no seal comes during a
            // write (`cache/underway.rs`).
            Some((first, at)) if *first == file && at + self.len == offset => {}
            Some((first, at)) => {
                return Err(StoreError::Custom {
                    message: format!(
                        "a shared range of `{}` broke off: {first} at {} then {file} at {offset}",
                        self.ctx.key,
                        at + self.len
                    ),
                })
            }
        }
        Ok(())
    }
}

impl std::io::Write for SharedWriter<'_, '_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        self.append(buf).map_err(std::io::Error::other)?;
        self.len += buf.len() as u64;
        self.crc.update(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
