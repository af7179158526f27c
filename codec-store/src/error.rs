use std::error::Error as StdError;
use std::fmt;
use std::path::PathBuf;

use codec_runtime::schema::Changes;
use codec_runtime::EnvelopeError;
use codec_runtime::{DecodeError, EncodeError};

/// A cache operation failed.
///
/// Its message ([`Display`](fmt::Display)) says what failed and where; the
/// error it comes from, if any, is its [`source`](StdError::source), as
/// error reporters (`anyhow`, `eyre`) expect. Its `Debug` is the message
/// followed by each cause, so `unwrap()` and `?` in `main` and tests print
/// the whole story and what to do, not the enum's fields.
#[derive(thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// Reading or writing a file or object failed (disk full, permissions,
    /// a removed folder, a request that failed).
    #[error("reading or writing {address} failed")]
    Io {
        /// The file or object.
        address: Address,
        /// The cause: its kind tells a missing file (`NotFound`) apart.
        source: std::io::Error,
    },
    /// The value could not be encoded.
    #[error("cannot encode the value")]
    Encode(#[source] EncodeError),
    /// The entry's payload does not decode as the type asked for.
    #[error("entry `{key}` does not decode as the type asked for")]
    Decode {
        /// The entry's key.
        key: String,
        /// The cause.
        source: DecodeError,
    },
    /// The entry was written by another version of the type, with breaking
    /// changes; or as another type.
    ///
    /// Its message says why, with the first breaking change and the fix;
    /// its `source()` is every change, one a line. Each is printed once.
    #[error("entry `{key}` cannot be read as the type asked for: {refusal}")]
    Schema {
        /// The entry's key.
        key: String,
        /// Why: another type, or the fingerprints, the first breaking
        /// change and the fix.
        refusal: EnvelopeError,
        /// Every change from the writer's schema to the reader's, when
        /// they are what refuses the value.
        #[source]
        changes: Option<Box<Changes>>,
    },
    /// The entry's data is missing or damaged (a truncated data file).
    #[error(
        "entry `{key}` is damaged: {message}; remove it with `codec compact` or Cache::remove"
    )]
    Corrupt {
        /// The entry's key.
        key: String,
        /// What is wrong.
        message: String,
    },
    /// A file of the store's own is damaged: its index checkpoint, its
    /// layout file, the record of a compaction, a writer's schema. Damaged
    /// entries are [`StoreError::Corrupt`].
    #[error("{address}, a file of the store's own, is damaged: {message}")]
    DamagedFile {
        /// The file or object.
        address: Address,
        /// What is wrong, what the file is for, and the fix.
        message: String,
    },
    /// A handler returned info under a key the index line reserves.
    #[error(
        "handler `{handler}` returned info key `{key}`, which the index reserves; rename that info key"
    )]
    ReservedInfoKey {
        /// The handler.
        handler: String,
        /// The key (`#key` or `#type`).
        key: String,
    },
    /// An entry names a handler this cache has not registered.
    #[error("{}", unknown_handler(key, handler))]
    UnknownHandler {
        /// The entry's key.
        key: String,
        /// The handler's name.
        handler: String,
    },
    /// A handler could not store or load a value with its format (the
    /// error of the library it writes with).
    #[error("entry `{key}`, handler `{handler}`: {message}")]
    Handler {
        /// The entry's key.
        key: String,
        /// The handler.
        handler: String,
        /// What failed, and the fix.
        message: String,
    },
    /// The function given to
    /// [`Cache::put_with_fn`](crate::Cache::put_with_fn),
    /// [`Cache::get_with_fn`](crate::Cache::get_with_fn),
    /// [`Cache::put_converted`](crate::Cache::put_converted) or
    /// [`Cache::get_converted`](crate::Cache::get_converted) failed.
    #[error("entry `{key}`: {action} with the given function failed")]
    Function {
        /// The entry's key.
        key: String,
        /// `serializing`, `deserializing`, `converting` or `converting back`.
        action: &'static str,
        /// The function's error.
        source: Box<dyn StdError + Send + Sync>,
    },
    /// Raw mode (`Mode::Raw`) was asked for a value that is not a byte
    /// buffer: raw mode stores bytes as they are.
    #[error(
        "entry `{key}`: raw mode stores bytes as they are, and `{type_name}` is not a byte buffer; \
         put it in MessagePack or JSON mode, or encode it yourself and use Cache::put_bytes"
    )]
    NotBytes {
        /// The entry's key.
        key: String,
        /// The wire name of the value's type.
        type_name: String,
    },
    /// An array was asked for with another element type than the one it
    /// was stored with ([`Cache::get_array`](crate::cache::Cache)).
    #[error(
        "entry `{key}` holds an array of dtype `{stored}`, not `{asked}`; \
         read it with the element type of dtype `{stored}`"
    )]
    ArrayType {
        /// The entry's key.
        key: String,
        /// The stored dtype (`<f8`).
        stored: String,
        /// The dtype of the element type asked for.
        asked: String,
    },
    /// Rows past an array's end, or of an array of no dimension, were asked
    /// for ([`Cache::get_array_rows`](crate::cache::Cache)).
    #[error("{}", rows_out_of_range(key, rows, shape))]
    RowsOutOfRange {
        /// The entry's key.
        key: String,
        /// The rows asked for.
        rows: std::ops::Range<usize>,
        /// The array's shape: its rows are the indices of its first axis.
        shape: Vec<usize>,
    },
    /// The folder was written by a newer codec, in a layout this one does not read.
    #[error(
        "the cache folder has layout version {found}, newer than the version {} this codec reads; upgrade codec",
        crate::layout::STORE_FORMAT
    )]
    Format {
        /// The layout version found.
        found: u32,
    },
    /// The folder is open in another handle or process, so it cannot be
    /// compacted now.
    #[error(
        "{} is open in another cache handle or process; compact it when they have closed it",
        dir.display()
    )]
    InUse {
        /// The folder.
        dir: PathBuf,
    },
    /// [`Cache::open`](crate::cache::Cache::open) was given a folder that holds
    /// other files and no cache: it writes nothing there unless asked to
    /// ([`CacheOptions::adopt_folder`](crate::CacheOptions::adopt_folder)).
    #[error(
        "{} holds other files ({found}, ...) and no cache, and codec writes nothing there: \
         open a new or empty folder (such as {}), or, to make this folder a cache beside its files \
         on purpose, open it with CacheOptions::default().adopt_folder(true)",
        dir.display(),
        dir.join("cache").display()
    )]
    NotACache {
        /// The folder.
        dir: PathBuf,
        /// One of the files or folders found there.
        found: String,
    },
    /// A location that looks like a URL but is not one (`s3:/bucket`,
    /// `s3:bucket`): taken for a path, it would become a folder of that name.
    #[error("{}", not_a_url(location))]
    NotAUrl {
        /// The location as given.
        location: String,
    },
    /// A location that cannot be opened as a cache: a URL this build of
    /// codec has no backend for, a malformed URL, a folder or bucket that
    /// holds no cache where one was required.
    #[error("cannot open the cache at {location}: {reason}")]
    Open {
        /// The location as given (a path, a URL).
        location: String,
        /// What is wrong, and the fix.
        reason: String,
        /// The error behind it, if any (a URL's parse error, the object
        /// store's).
        source: Option<Box<dyn StdError + Send + Sync>>,
    },
    /// What was asked cannot be done on this store now, or at all (memory
    /// maps or files on a backend without them, a folder's compaction
    /// from an open handle, a compaction or checkpoint another handle's
    /// commits kept overtaking).
    #[error("{location}: {message}")]
    Unsupported {
        /// Where the store is.
        location: String,
        /// What could not be done, and the fix.
        message: String,
    },
    /// A key the cache does not store: empty, too long, or holding a
    /// control character (a newline, a tab, NUL...).
    #[error(
        "key \"{key}\" is not a cache key: {reason}; keys are 1 to {} bytes of text without control characters \
         (encode other data, such as a path with newlines, in the key: as hex, or its codec::content_hash)",
        crate::layout::MAX_KEY_LEN
    )]
    InvalidKey {
        /// The key, escaped as Rust would write it in a string literal.
        key: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// An error of your own, where a `StoreError` is expected (the
    /// computation of [`Cache::get_or_try_insert_with`](crate::Cache::get_or_try_insert_with)).
    #[error("{message}")]
    Custom {
        /// Its message.
        message: String,
    },
}

/// Where a file or object of a store is: a path on this machine, or a URL
/// of object storage (`s3://bucket/prefix/data/...`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Address {
    /// A file or folder.
    Path(PathBuf),
    /// An object (or the store) on object storage, or in memory
    /// (`memory://...`).
    Url(String),
}

impl Address {
    /// The path, for a file or folder.
    pub fn as_path(&self) -> Option<&std::path::Path> {
        match self {
            Address::Path(path) => Some(path),
            Address::Url(_) => None,
        }
    }
}

impl fmt::Display for Address {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Address::Path(path) => path.display().fmt(f),
            Address::Url(url) => f.write_str(url),
        }
    }
}

impl From<PathBuf> for Address {
    fn from(path: PathBuf) -> Self {
        Address::Path(path)
    }
}

impl From<&std::path::Path> for Address {
    fn from(path: &std::path::Path) -> Self {
        Address::Path(path.to_owned())
    }
}

impl From<String> for Address {
    /// A URL (`scheme://...`), else a path.
    fn from(address: String) -> Self {
        match address.contains("://") {
            true => Address::Url(address),
            false => Address::Path(address.into()),
        }
    }
}

fn unknown_handler(key: &str, handler: &str) -> String {
    match crate::layout::handler_feature(handler) {
        Some(feature) => format!(
            "entry `{key}` was stored by handler `{handler}`, which this build of codec lacks; \
             enable codec's `{feature}` feature"
        ),
        None => format!(
            "entry `{key}` was stored by handler `{handler}`, which this cache has not registered; \
             register it on this handle with Cache::register_handler (a handler of values wrapped in \
             store::Typed), or list `{handler}` in the aliases of the handler that replaced it"
        ),
    }
}

fn rows_out_of_range(key: &str, rows: &std::ops::Range<usize>, shape: &[usize]) -> String {
    match shape.first() {
        Some(n) => format!(
            "entry `{key}`: rows {}..{} are not rows of its array of shape {shape:?}; ask for rows within 0..{n}",
            rows.start, rows.end
        ),
        None => format!(
            "entry `{key}` holds an array of no dimension, which has no rows; read it with get_array"
        ),
    }
}

fn not_a_url(location: &str) -> String {
    let (scheme, rest) = location.split_once(':').unwrap_or((location, ""));
    format!(
        "{location:?} looks like a URL but is not one: write {scheme}://{}, or ./{location} for a folder of that name",
        rest.trim_start_matches('/')
    )
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

    /// A file or object read was not there.
    pub(crate) fn is_missing(&self) -> bool {
        matches!(self, StoreError::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound)
    }

    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        StoreError::Io {
            address: Address::Path(path.into()),
            source,
        }
    }

    /// A [`StoreError::DamagedFile`]: the file `name` of the store
    /// `backend` holds.
    pub(crate) fn damaged_file(
        backend: &dyn crate::backend::Backend,
        name: &str,
        message: impl Into<String>,
    ) -> Self {
        StoreError::DamagedFile {
            address: backend.address(name).into(),
            message: message.into(),
        }
    }

    /// An [`StoreError::Unsupported`] of the store at `location`.
    pub(crate) fn unsupported(location: impl Into<String>, message: impl Into<String>) -> Self {
        StoreError::Unsupported {
            location: location.into(),
            message: message.into(),
        }
    }

    /// An [`StoreError::Open`] of `location` with no error behind it.
    pub(crate) fn open(location: impl Into<String>, reason: impl Into<String>) -> Self {
        StoreError::Open {
            location: location.into(),
            reason: reason.into(),
            source: None,
        }
    }
}

impl StoreError {
    /// [`StoreError::Schema`] of the entry `key`, refused for `refusal`.
    pub(crate) fn schema(key: String, refusal: EnvelopeError) -> StoreError {
        let changes = match &refusal {
            EnvelopeError::Incompatible { changes, .. } => Some(Box::new(changes.clone())),
            _ => None,
        };
        StoreError::Schema {
            key,
            refusal,
            changes,
        }
    }
}

impl fmt::Debug for StoreError {
    /// The message, then each cause after a colon.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)?;
        let mut cause = self.source();
        while let Some(e) = cause {
            write!(f, ": {e}")?;
            cause = e.source();
        }
        Ok(())
    }
}

impl From<crate::backend::BackendError> for StoreError {
    fn from(e: crate::backend::BackendError) -> Self {
        // An error of the OS says what failed on the file; any other (a
        // request's) gets its operation.
        let source = match e.address.contains("://") || e.source.raw_os_error().is_none() {
            true => std::io::Error::new(e.source.kind(), format!("{}: {}", e.op, e.source)),
            false => e.source,
        };
        StoreError::Io {
            address: e.address.into(),
            source,
        }
    }
}

impl From<EncodeError> for StoreError {
    fn from(e: EncodeError) -> Self {
        StoreError::Encode(e)
    }
}
