//! Reads in place: [`Cache::get_ref`] and its guard [`Ref`], which holds
//! the bytes of an entry while a value that borrows from them lives.
//!
//! A payload in a data file is viewed in the file's memory map; a small
//! one, kept in its index line, is decoded from base64 into a buffer the
//! handle lends and takes back when the guard drops. A get from a warm
//! handle allocates nothing either way.

use std::any::Any;
use std::fmt;
use std::marker::PhantomData;
use std::ops::Deref;
use std::sync::Arc;

use codec_runtime::__private::Schema;
use codec_runtime::__store::schema;
use codec_runtime::{Decode, DecodeError};
use parking_lot::Mutex;

use super::Cache;
use crate::content::handler::{
    decode_inline_into, lacks, range_ref, FilePerEntry, Handler, Inline, LoadContext, Shared,
};
use crate::error::StoreError;
use crate::index::line::LineView;
use crate::index::records::Mode;
use crate::index::view;

/// The bytes of one entry, held for the values read from them in place:
/// what [`Cache::get_ref`] returns. [`value`](Ref::value) decodes a `T`,
/// which may borrow from the guard (`&'a str`, `&'a [u8]`, `Cow<'a, _>`
/// fields) and so cannot outlive it.
///
/// While it lives, the data file it views stays mapped (as an array from
/// [`Cache::get_array`] keeps it), and a buffer the handle lends stays
/// lent; it holds no lock, so puts and gets go on.
pub struct Ref<'c, T> {
    held: Held<'c>,
    mode: Mode,
    _value: PhantomData<fn() -> T>,
}

impl<'c, T> Ref<'c, T> {
    /// Decodes the value, borrowing from the bytes this guard holds. Each
    /// call decodes again: keep the value rather than calling it twice.
    ///
    /// The entry's schema was checked when the guard was made: an error
    /// here is bytes that do not decode as `T` (a damaged entry), at the
    /// path the [`DecodeError`] names.
    pub fn value<'a>(&'a self) -> Result<T, DecodeError>
    where
        T: Decode<'a>,
    {
        match self.mode {
            Mode::Json => codec_runtime::from_json_slice(self.bytes()),
            _ => codec_runtime::from_msgpack(self.bytes()),
        }
    }

    /// The entry's encoded payload, in the format it was stored in
    /// ([`format`](Ref::format)).
    pub fn bytes(&self) -> &[u8] {
        self.held.bytes()
    }

    /// The format of [`bytes`](Ref::bytes): MessagePack or JSON.
    pub fn format(&self) -> Mode {
        self.mode
    }

    /// Whether the bytes are viewed in a data file's memory map, rather
    /// than held in a buffer (a payload kept in its index line, or read
    /// from a store without maps).
    pub fn is_mapped(&self) -> bool {
        matches!(self.held, Held::Window { .. })
    }
}

impl<T> fmt::Debug for Ref<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Ref")
            .field("format", &self.mode)
            .field("len", &self.bytes().len())
            .field("mapped", &self.is_mapped())
            .finish()
    }
}

/// Where the bytes of a [`Ref`] (or of an entry [`Cache::get`] decodes)
/// are.
pub(crate) enum Held<'c> {
    /// `len` bytes at `start` of a data file's map (or of a range read).
    Window {
        bytes: Arc<dyn Deref<Target = [u8]> + Send + Sync>,
        start: usize,
        len: usize,
    },
    /// A buffer of their own, lent by `lender` when it has one.
    Buffer {
        buf: Vec<u8>,
        lender: Option<&'c Buffers>,
    },
}

impl Held<'_> {
    /// The entry's encoded payload.
    pub(crate) fn bytes(&self) -> &[u8] {
        match self {
            Held::Window { bytes, start, len } => &bytes[*start..*start + *len],
            Held::Buffer { buf, .. } => buf,
        }
    }
}

impl Drop for Held<'_> {
    fn drop(&mut self) {
        if let Held::Buffer {
            buf,
            lender: Some(lender),
        } = self
        {
            lender.give_back(std::mem::take(buf));
        }
    }
}

/// The buffers a handle lends to [`Ref`]s of payloads kept in index lines,
/// so that a get in place allocates nothing once the handle is warm.
#[derive(Default)]
pub(crate) struct Buffers(Mutex<Vec<Vec<u8>>>);

impl Buffers {
    /// How many buffers are kept for the next gets: as many as guards a
    /// few threads hold at once.
    const KEPT: usize = 16;
    /// Larger buffers are freed, not kept: an inline payload is small.
    const LARGEST: usize = 64 * 1024;

    fn lend(&self) -> Vec<u8> {
        self.0.lock().pop().unwrap_or_default()
    }

    fn give_back(&self, mut buf: Vec<u8>) {
        if buf.capacity() > Self::LARGEST {
            return;
        }
        buf.clear();
        let mut kept = self.0.lock();
        if kept.len() < Self::KEPT {
            kept.push(buf);
        }
    }
}

impl Cache {
    /// The entry under `key`, held for a value that borrows from it: a
    /// [`Ref`] whose [`value`](Ref::value) decodes a `T` in place, its
    /// `&str` and `&[u8]` fields pointing into the store's memory map (in
    /// a folder) or into the one buffer the guard holds. The schema is
    /// checked as [`Cache::get`] checks it, before any decoding.
    ///
    /// ```
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// #[derive(codec::Codec)]
    /// struct Chunk { text: String, start: u32 }
    ///
    /// #[derive(codec::Codec)]
    /// #[codec(name = "Chunk")]
    /// struct ChunkRef<'a> { text: &'a str, start: u32 }
    ///
    /// let dir = tempfile::tempdir()?;
    /// let cache = codec::Cache::open(dir.path())?;
    /// cache.put("c", &Chunk { text: "x".repeat(4096), start: 3 })?;
    ///
    /// let entry = cache.get_ref::<ChunkRef<'_>>("c")?.expect("stored");
    /// let chunk = entry.value()?;
    /// assert_eq!((chunk.text.len(), chunk.start), (4096, 3));
    /// // Read from the data file's map, not copied.
    /// assert!(entry.bytes().as_ptr_range().contains(&chunk.text.as_ptr()));
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// Owned types read too (`get_ref::<Chunk>`), as `get` reads them. An
    /// entry of raw bytes (`put_bytes`, `put_array`) has no encoding to
    /// decode: it is [`StoreError::Unsupported`], which names `get_bytes`
    /// and `get_array`.
    pub fn get_ref<T: Schema>(&self, key: &str) -> Result<Option<Ref<'_, T>>, StoreError> {
        self.reading_moved(|| self.get_ref_once(key))
    }

    fn get_ref_once<T: Schema>(&self, key: &str) -> Result<Option<Ref<'_, T>>, StoreError> {
        let Some(found) = self.lookup(key)? else {
            return Ok(None);
        };
        let line = view(key, &found)?;
        let info = schema::info::<T>();
        // `Value` reads any entry, whatever type wrote it.
        let untyped = std::ptr::eq(info, schema::info::<codec_runtime::Value>());
        let same = line.fingerprint.as_deref() == Some(info.fingerprint_hex.as_str());
        if !same && !untyped {
            self.check_schema(&line, info)?;
        }
        // Entries written through the handler `T` names read without a
        // registration, as `get` reads them.
        self.ensure_made_handler_of(typeid::of::<T>(), T::__STORE_HANDLER);
        if line.mode == Mode::Raw {
            return Err(StoreError::unsupported(
                self.backend.location(),
                format!(
                    "entry `{key}` holds raw bytes, not an encoded value: \
                     read them with Cache::get_bytes (an array with Cache::get_array)"
                ),
            ));
        }
        if line
            .info_ref()
            .mentions(crate::content::sub_values::QUOTED_VALUES)
            && line
                .info()
                .is_ok_and(|info| info.contains_key(crate::layout::VALUES))
        {
            return Err(StoreError::unsupported(
                self.backend.location(),
                format!(
                    "entry `{key}` holds values that their types' handlers keep, \
                     which a `Ref` cannot read in place: read it with Cache::get"
                ),
            ));
        }
        let name = line.handler.as_deref().unwrap_or_default();
        Ok(Some(Ref {
            held: self.held(self.handler_ref(name).as_deref(), &line)?,
            mode: line.mode,
            _value: PhantomData,
        }))
    }

    /// The payload of `line`, stored by `handler` (the one its line
    /// names, if this handle has it): viewed in place where the built-in
    /// handlers put it in a data file and the store has maps, decoded
    /// into a lent buffer when it is in the line, else loaded by its
    /// handler.
    pub(crate) fn held(
        &self,
        handler: Option<&Arc<dyn Handler>>,
        line: &LineView<'_>,
    ) -> Result<Held<'_>, StoreError> {
        let handler = handler.ok_or_else(|| StoreError::UnknownHandler {
            key: line.key.clone().into_owned(),
            handler: line.handler.as_deref().unwrap_or_default().to_owned(),
        })?;
        let ctx = self.load_context(&line.key);
        let built_in: &(dyn Any + Send + Sync) = &**handler;
        let info = line.info_ref();
        if built_in.is::<Inline>() {
            let data = info.text("data").ok_or_else(|| lacks("data", &ctx))?;
            let mut buf = self.buffers.lend();
            decode_inline_into(&data, &mut buf, &ctx)?;
            return Ok(Held::Buffer {
                buf,
                lender: Some(&self.buffers),
            });
        }
        if built_in.is::<Shared>() {
            let (file, offset, len) = range_ref(info, &ctx)?;
            return window(&ctx, &file, offset, len);
        }
        if built_in.is::<FilePerEntry>() {
            let file = info.text("file").ok_or_else(|| lacks("file", &ctx))?;
            let len = match info.int("len") {
                Some(len) if len >= 0 => len as u64,
                _ => return Err(lacks("len", &ctx)),
            };
            return match ctx.map_alone(&file, len)? {
                Some(map) => Ok(Held::Window {
                    bytes: Arc::new(map),
                    start: 0,
                    len: len as usize,
                }),
                None => Ok(Held::Buffer {
                    buf: ctx.read_range(&file, 0, len)?,
                    lender: None,
                }),
            };
        }
        Ok(Held::Buffer {
            buf: handler.load_ref(info, &ctx)?,
            lender: None,
        })
    }
}

/// `len` bytes at `offset` of data file `file`: viewed in its map where
/// the store has maps, else read into a buffer of their own.
fn window(
    ctx: &LoadContext<'_>,
    file: &str,
    offset: u64,
    len: u64,
) -> Result<Held<'static>, StoreError> {
    if ctx.backend.maps().is_none() {
        return Ok(Held::Buffer {
            buf: ctx.read_range(file, offset, len)?,
            lender: None,
        });
    }
    let end = offset
        .checked_add(len)
        .ok_or_else(|| ctx.corrupt(format!("bytes {offset}.. (+{len}) of {file} end past 2^64")))?;
    let window = ctx.window(file, offset..end)?;
    // The map holds the file's first `end` bytes at least.
    Ok(Held::Window {
        bytes: window.bytes,
        start: (offset - window.origin) as usize,
        len: len as usize,
    })
}
