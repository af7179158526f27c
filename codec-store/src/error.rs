use std::fmt;
use std::path::PathBuf;

use codec_runtime::EnvelopeError;
use codec_runtime::{DecodeError, EncodeError};

/// A cache operation failed.
///
/// Its `Debug` is its message, so `unwrap()` and `?` in `main` and tests
/// print what to do, not the enum's fields.
#[non_exhaustive]
pub enum StoreError {
    /// Reading or writing a file failed (disk full, permissions, a removed folder).
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The value could not be encoded.
    Encode(EncodeError),
    /// The entry's payload does not decode as the type asked for.
    Decode {
        /// The entry's key.
        key: String,
        /// The cause.
        source: DecodeError,
    },
    /// The entry was written by another version of the type, with breaking
    /// changes; or as another type.
    Schema {
        /// The entry's key.
        key: String,
        /// The changes and the fix.
        source: EnvelopeError,
    },
    /// The entry's data is missing or damaged (a truncated data file).
    Corrupt {
        /// The entry's key.
        key: String,
        /// What is wrong.
        message: String,
    },
    /// A handler returned info under a key the index line reserves.
    ReservedInfoKey {
        /// The handler.
        handler: String,
        /// The key (`#key` or `#type`).
        key: String,
    },
    /// An entry names a handler this cache has not registered.
    UnknownHandler {
        /// The entry's key.
        key: String,
        /// The handler's name.
        handler: String,
    },
    /// A handler could not store or load a value with its format (the
    /// error of the library it writes with).
    Handler {
        /// The entry's key.
        key: String,
        /// The handler.
        handler: String,
        /// What failed, and the fix.
        message: String,
    },
    /// Raw mode (`Mode::Raw`) was asked for a value that is not a byte
    /// buffer: raw mode stores bytes as they are.
    NotBytes {
        /// The entry's key.
        key: String,
        /// The wire name of the value's type.
        type_name: String,
    },
    /// An array was asked for with another element type than the one it
    /// was stored with ([`Cache::get_array`](super::Cache)).
    ArrayType {
        /// The entry's key.
        key: String,
        /// The stored dtype (`<f8`).
        stored: String,
        /// The dtype of the element type asked for.
        asked: String,
    },
    /// Rows past an array's end, or of an array of no dimension, were asked
    /// for ([`Cache::get_array_rows`](super::Cache)).
    RowsOutOfRange {
        /// The entry's key.
        key: String,
        /// The rows asked for.
        rows: std::ops::Range<usize>,
        /// The array's shape: its rows are the indices of its first axis.
        shape: Vec<usize>,
    },
    /// The folder was written by a newer codec, in a layout this one does not read.
    Format {
        /// The layout version found.
        found: u32,
    },
    /// The folder is open in another handle or process, so it cannot be
    /// compacted now.
    InUse {
        /// The folder.
        dir: PathBuf,
    },
    /// [`Cache::open`](super::Cache::open) was given a folder that holds
    /// other files and no cache: it writes nothing there unless asked to
    /// ([`CacheOptions::adopt_folder`](super::CacheOptions::adopt_folder)).
    NotACache {
        /// The folder.
        dir: PathBuf,
        /// One of the files or folders found there.
        found: String,
    },
    /// A location that looks like a URL but is not one (`s3:/bucket`,
    /// `s3:bucket`): taken for a path, it would become a folder of that name.
    NotAUrl {
        /// The location as given.
        location: String,
    },
    /// A key the cache does not store: empty, too long, or holding a
    /// control character (a newline, a tab, NUL...).
    InvalidKey {
        /// The key, escaped as Rust would write it in a string literal.
        key: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// A user-supplied serialization function failed.
    Custom {
        /// Its message.
        message: String,
    },
}

impl StoreError {
    /// Whether the error says that an entry cannot be read as the type asked
    /// for: its data is damaged or missing, it does not decode, or it was
    /// written by a version of the type with breaking changes (or as another
    /// type). Not for failures of the folder itself (permissions, a full disk).
    pub fn is_unreadable_entry(&self) -> bool {
        self.is_damage()
            || matches!(
                self,
                StoreError::Schema { .. } | StoreError::ArrayType { .. }
            )
    }

    /// Whether the error says that an entry's data is gone or damaged
    /// (truncated, missing, undecodable), rather than that reading failed.
    pub(crate) fn is_damage(&self) -> bool {
        match self {
            StoreError::Corrupt { .. } | StoreError::Decode { .. } => true,
            StoreError::Io { source, .. } => source.kind() == std::io::ErrorKind::NotFound,
            _ => false,
        }
    }

    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        StoreError::Io {
            path: path.into(),
            source,
        }
    }
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreError::Io { path, source } => write!(f, "cache file {}: {source}", path.display()),
            StoreError::Encode(e) => write!(f, "cannot encode the value: {e}"),
            StoreError::Decode { key, source } => write!(f, "entry `{key}`: {source}"),
            StoreError::Schema { key, source } => write!(f, "entry `{key}`: {source}"),
            StoreError::Corrupt { key, message } => write!(
                f,
                "entry `{key}` is damaged: {message}; remove it with `codec compact` or Cache::remove"
            ),
            StoreError::ReservedInfoKey { handler, key } => write!(
                f,
                "handler `{handler}` returned info key `{key}`, which the index reserves; rename that info key"
            ),
            StoreError::UnknownHandler { key, handler } => match super::layout::handler_feature(handler) {
                Some(feature) => write!(
                    f,
                    "entry `{key}` was stored by handler `{handler}`, which this build of codec lacks; enable codec's `{feature}` feature"
                ),
                None => write!(
                    f,
                    "entry `{key}` was stored by handler `{handler}`, which this cache has not registered; register it on this handle with Cache::register_handler (a handler of values wrapped in store::Typed), or list `{handler}` in the aliases of the handler that replaced it"
                ),
            },
            StoreError::Handler { key, handler, message } => {
                write!(f, "entry `{key}`, handler `{handler}`: {message}")
            }
            StoreError::NotBytes { key, type_name } => write!(
                f,
                "entry `{key}`: raw mode stores bytes as they are, and `{type_name}` is not a byte buffer; put it in MessagePack or JSON mode, or encode it yourself and use Cache::put_bytes"
            ),
            StoreError::ArrayType { key, stored, asked } => write!(
                f,
                "entry `{key}` holds an array of dtype `{stored}`, not `{asked}`; read it with the element type of dtype `{stored}`"
            ),
            StoreError::RowsOutOfRange { key, rows, shape } => match shape.first() {
                Some(n) => write!(
                    f,
                    "entry `{key}`: rows {}..{} are not rows of its array of shape {shape:?}; ask for rows within 0..{n}",
                    rows.start, rows.end
                ),
                None => write!(
                    f,
                    "entry `{key}` holds an array of no dimension, which has no rows; read it with get_array"
                ),
            },
            StoreError::Format { found } => write!(
                f,
                "the cache folder has layout version {found}, newer than the version {} this codec reads; upgrade codec",
                super::records::STORE_FORMAT
            ),
            StoreError::InUse { dir } => write!(
                f,
                "{} is open in another cache handle or process; compact it when they have closed it",
                dir.display()
            ),
            StoreError::NotACache { dir, found } => write!(
                f,
                "{} holds other files ({found}, ...) and no cache, and codec writes nothing there: \
                 open a new or empty folder (such as {}), or, to make this folder a cache beside its files \
                 on purpose, open it with CacheOptions {{ adopt_folder: true, ..Default::default() }}",
                dir.display(),
                dir.join("cache").display()
            ),
            StoreError::NotAUrl { location } => {
                let (scheme, rest) = location.split_once(':').unwrap_or((location, ""));
                write!(
                    f,
                    "{location:?} looks like a URL but is not one: write {scheme}://{}, or ./{location} for a folder of that name",
                    rest.trim_start_matches('/')
                )
            }
            StoreError::InvalidKey { key, reason } => write!(
                f,
                "key \"{key}\" is not a cache key: {reason}; keys are 1 to {} bytes of text without control characters \
                 (encode other data, such as a path with newlines, in the key: as hex, or its codec::content_hash)",
                super::keys::MAX_KEY_LEN
            ),
            StoreError::Custom { message } => f.write_str(message),
        }
    }
}

impl fmt::Debug for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl std::error::Error for StoreError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            StoreError::Io { source, .. } => Some(source),
            StoreError::Encode(e) => Some(e),
            StoreError::Decode { source, .. } => Some(source),
            StoreError::Schema { source, .. } => Some(source),
            _ => None,
        }
    }
}

impl From<super::backend::BackendError> for StoreError {
    fn from(e: super::backend::BackendError) -> Self {
        // An error of the OS says what failed on the file; any other (a
        // request's) gets its operation.
        let source = match e.address.contains("://") || e.source.raw_os_error().is_none() {
            true => std::io::Error::new(e.source.kind(), format!("{}: {}", e.op, e.source)),
            false => e.source,
        };
        StoreError::Io {
            path: e.address.into(),
            source,
        }
    }
}

impl From<EncodeError> for StoreError {
    fn from(e: EncodeError) -> Self {
        StoreError::Encode(e)
    }
}
