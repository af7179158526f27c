//! Values of a type known by its schema alone: a class another language's
//! program declares (the msgspec classes `codec python` generates), which
//! has a wire name and a schema but no Rust type. The store reads and
//! writes them as it does a Rust type's values: the same envelope of name
//! and fingerprint on each entry, the writer's schema kept beside them, and
//! the same readability check on a read.

use codec_runtime::__store::schema::{self, SchemaInfo};
use codec_runtime::{Fingerprint, Value};

use super::keys;
use super::memo::MemoRead;
use super::write::Payload;
use super::Cache;
use crate::error::StoreError;
use crate::index::records::Mode;
use crate::index::view;
use crate::layout;
use crate::options::PutOptions;

/// A type declared by its wire name and JSON Schema rather than by a Rust
/// type: what a program in another language stores its values as.
///
/// Its values are MessagePack bytes in codec's encoding (msgspec's, for
/// the classes `codec python` generates).
/// [`Cache::put_declared`] stores them under the type's name and
/// fingerprint, as [`Cache::put`] stores a Rust value, and
/// [`Cache::get_declared`] reads back what [`Cache::get`] would read as a
/// Rust type of that schema: the same fingerprint, or another whose every
/// change is compatible.
///
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// #[derive(codec::Codec, Debug, PartialEq)]
/// struct Chunk { text: String, start: u32 }
///
/// let schema = codec::schema_of::<Chunk>().to_string();
/// let declared = codec::store::DeclaredType::new("Chunk", &[], &schema)?;
/// assert_eq!(declared.fingerprint(), codec::fingerprint_of::<Chunk>().to_string());
///
/// let dir = tempfile::tempdir()?;
/// let cache = codec::Cache::open(dir.path())?;
/// let bytes = codec::to_msgpack(&Chunk { text: "hi".into(), start: 3 })?;
/// cache.put_declared("c", &declared, &bytes, &Default::default())?;
/// assert_eq!(cache.get::<Chunk>("c")?, Some(Chunk { text: "hi".into(), start: 3 }));
/// let got = cache.get_declared("c", &declared)?.unwrap();
/// assert_eq!((got.mode, got.bytes), (codec::store::Mode::MsgPack, bytes));
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, Copy)]
pub struct DeclaredType {
    info: &'static SchemaInfo,
}

/// The schema given to [`DeclaredType::new`] is not a JSON Schema codec
/// reads: not JSON, or not an object.
#[derive(Debug, Clone, thiserror::Error)]
#[error("the schema of declared type `{name}` is not a JSON Schema object: {message}")]
pub struct DeclaredSchemaError {
    name: String,
    message: String,
}

impl DeclaredType {
    /// The type whose wire name is `name`, which also reads values stored
    /// under `aliases`, and whose schema is `schema` (JSON text, as
    /// [`codec::schema_of`](codec_runtime::schema_of) gives it, or as a
    /// store keeps it: without descriptions).
    ///
    /// Its facts live as long as the program, as a Rust type's do:
    /// declare each type once.
    pub fn new(name: &str, aliases: &[&str], schema: &str) -> Result<Self, DeclaredSchemaError> {
        let refused = |message: String| DeclaredSchemaError {
            name: name.to_owned(),
            message,
        };
        let schema: serde_json::Value =
            serde_json::from_str(schema).map_err(|e| refused(e.to_string()))?;
        if !schema.is_object() {
            return Err(refused("a JSON object is expected".to_owned()));
        }
        let fingerprint = Fingerprint::of_schema(&schema);
        let aliases: Vec<&'static str> = aliases
            .iter()
            .map(|a| &*Box::leak(a.to_string().into_boxed_str()))
            .collect();
        let name = name.to_owned();
        let info = SchemaInfo {
            legacy_fingerprint: None,
            aliases: Box::leak(aliases.into_boxed_slice()),
            stored_schema: schema::stored_schema(&schema),
            fingerprint_hex: fingerprint.to_string(),
            fingerprint,
            legacy_name: Box::leak(name.clone().into_boxed_str()),
            nominal: true,
            name,
            schema,
        };
        Ok(DeclaredType {
            info: Box::leak(Box::new(info)),
        })
    }

    /// Any value, whatever type wrote it: the type of an untyped read and
    /// write, [`codec::Value`](Value)'s.
    pub fn any() -> Self {
        DeclaredType {
            info: schema::info::<Value>(),
        }
    }

    /// The wire name.
    pub fn name(&self) -> &str {
        &self.info.name
    }

    /// The schema's fingerprint, in hex, as entries carry it.
    pub fn fingerprint(&self) -> &str {
        &self.info.fingerprint_hex
    }
}

impl Cache {
    /// Stores `msgpack`, a value of `declared` in codec's MessagePack
    /// encoding, under `key`, with the type's name and fingerprint and its
    /// schema kept beside it, as [`Cache::put_with`] stores a Rust value.
    ///
    /// The bytes are checked to be one MessagePack value, not against the
    /// schema: a value that does not match it is refused by its readers.
    pub fn put_declared(
        &self,
        key: &str,
        declared: &DeclaredType,
        msgpack: &[u8],
        options: &PutOptions,
    ) -> Result<(), StoreError> {
        keys::check_key(key)?;
        let mut reader = codec_runtime::MsgpackReader::new(msgpack);
        reader
            .skip_value()
            .and_then(|()| reader.finish())
            .map_err(|e| not_one_value(key, reader.locate(e)))?;
        let expires = options.expires_at(super::now_nanos());
        let info = declared.info;
        self.write_schema(info)?;
        let (mode, json);
        let payload = match options.mode {
            Mode::Json => {
                let value: Value =
                    codec_runtime::from_msgpack(msgpack).map_err(|e| not_one_value(key, e))?;
                json = codec_runtime::to_json_vec(&value)?;
                mode = Mode::Json;
                &json[..]
            }
            _ => {
                mode = Mode::MsgPack;
                msgpack
            }
        };
        self.write_entry(
            key,
            Some(info.name.clone()),
            Some(info.fingerprint_hex.clone()),
            mode,
            Payload::plain(payload),
            options.handler.as_deref(),
            expires,
        )
    }

    /// The value under `key`, if any, when a Rust type of `declared`'s
    /// schema would read it with [`Cache::get`]: written with the same
    /// schema, or with another whose every change is compatible (then the
    /// bytes are as it was written, for the reader to decode as the older
    /// value reads). Else [`StoreError::Schema`] lists the changes.
    ///
    /// The bytes are codec's MessagePack encoding, or the JSON text of an
    /// entry stored in JSON mode (which the reader decodes with its type:
    /// JSON keeps bytes as base64 text, which only the type tells from a
    /// string). A plain entry's bytes are copied as they lie; one a handler
    /// stored is read whole and encoded again, as MessagePack.
    pub fn get_declared(
        &self,
        key: &str,
        declared: &DeclaredType,
    ) -> Result<Option<EncodedValue>, StoreError> {
        self.reading_moved(|| self.get_declared_once(key, declared))
    }

    fn get_declared_once(
        &self,
        key: &str,
        declared: &DeclaredType,
    ) -> Result<Option<EncodedValue>, StoreError> {
        let Some(found) = self.lookup(key)? else {
            return Ok(None);
        };
        let line = view(key, &found)?;
        let info = declared.info;
        let any = info.fingerprint == schema::info::<Value>().fingerprint;
        if line.fingerprint.as_deref() != Some(info.fingerprint_hex.as_str()) && !any {
            self.check_schema(&line, info)?;
        }
        let handler = line.handler.as_deref().unwrap_or_default();
        let plain = [Mode::MsgPack, Mode::Json].contains(&line.mode)
            && [layout::INLINE, layout::SHARED].contains(&handler)
            && !line
                .info_ref()
                .mentions(crate::content::sub_values::QUOTED_VALUES);
        if plain {
            let handler = self.handler_ref(handler);
            let held = self.held(handler.as_deref(), &line)?;
            return Ok(Some(EncodedValue {
                mode: line.mode,
                bytes: held.bytes().to_vec(),
            }));
        }
        let Some(value) = self.get_once::<Value>(key)? else {
            return Ok(None);
        };
        Ok(Some(EncodedValue {
            mode: Mode::MsgPack,
            bytes: codec_runtime::to_msgpack(&value)?,
        }))
    }
}

/// A stored value's bytes as [`Cache::get_declared`] gives them: codec's
/// MessagePack encoding, or JSON text ([`Mode::Json`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EncodedValue {
    /// [`Mode::MsgPack`] or [`Mode::Json`].
    pub mode: Mode,
    /// The encoded value.
    pub bytes: Vec<u8>,
}

impl MemoRead for DeclaredType {
    type Value = EncodedValue;

    fn read(&self, cache: &Cache, key: &str) -> Result<Option<EncodedValue>, StoreError> {
        cache.get_declared(key, self)
    }

    fn type_name(&self) -> std::borrow::Cow<'_, str> {
        std::borrow::Cow::Borrowed(self.name())
    }
}

impl Cache {
    /// The value of `declared` under `key` (as [`Cache::get_declared`]
    /// gives it), computing and storing it with `make` (MessagePack) if
    /// absent: [`Cache::get_or_try_insert_with_options`]
    /// for a declared type, with its single flight, its lock or lease
    /// across processes ([`CacheOptions::memo_lock`](crate::CacheOptions::memo_lock))
    /// and its warning for an entry the type cannot read (computed again).
    /// A Rust memo and another language's of the same key compute it once
    /// between them.
    pub fn get_or_try_insert_declared<E: From<StoreError>>(
        &self,
        key: &str,
        declared: &DeclaredType,
        options: &PutOptions,
        make: impl FnOnce() -> Result<Vec<u8>, E>,
    ) -> Result<EncodedValue, E> {
        self.memo_by(declared, key, make, |bytes| {
            self.put_declared(key, declared, &bytes, options)?;
            Ok(EncodedValue {
                mode: Mode::MsgPack,
                bytes,
            })
        })
    }
}

/// The error of [`Cache::put_declared`] given bytes that are not one
/// MessagePack value.
fn not_one_value(key: &str, e: codec_runtime::DecodeError) -> StoreError {
    StoreError::Encode(codec_runtime::EncodeError::InvalidValue {
        message: format!("the bytes to store under `{key}` are not one MessagePack value: {e}"),
    })
}
