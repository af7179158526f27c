//! Values kept with their type: a checked envelope carrying the type's wire
//! name, schema fingerprint and schema before the MessagePack payload, so a
//! value written by another version of the type is recognised when it is
//! read back.
//!
//! Layout: the 4 magic bytes `c1 43 44 43` (`0xc1` is never valid
//! MessagePack, so an envelope is never mistaken for a bare value), a format
//! version byte, then in MessagePack: the wire name (str), the fingerprint
//! (bin, 16 bytes), the writer's canonical schema (bin, JSON text), and the
//! payload.
//!
//! ```
//! #[derive(codec::Codec, Debug, PartialEq)]
//! struct Settings { port: u16 }
//!
//! let bytes = codec::to_stored(&Settings { port: 80 }).unwrap();
//! let back: Settings = codec::from_stored(&bytes).unwrap();
//! assert_eq!(back, Settings { port: 80 });
//! ```

use std::fmt;

use crate::codec::Codec;
use crate::error::{DecodeError, EncodeError};
use crate::msgpack::{MsgpackReader, MsgpackWriter};
use crate::schema::{self, Changes, Fingerprint};

const MAGIC: [u8; 4] = [0xc1, b'C', b'D', b'C'];
/// The envelope format this version of codec writes and reads.
const FORMAT_VERSION: u8 = 1;

/// A stored value could not be read back.
///
/// Its message says what failed; the error behind it, if any, is its
/// `source()`. Its `Debug` is the message followed by each cause, so
/// `unwrap()` prints the whole story.
#[derive(Clone, PartialEq)]
#[non_exhaustive]
pub enum EnvelopeError {
    /// The bytes are not an envelope this codec reads: wrong magic, an
    /// unknown format version, or a truncated header.
    Malformed {
        /// What is wrong.
        message: String,
    },
    /// The envelope holds a value of another type.
    WrongType {
        /// The wire name in the envelope.
        found: String,
        /// The wire name of the type asked for.
        expected: String,
        /// Whether the type asked for is a derived type, which an alias
        /// can rename (a standard type cannot be renamed).
        renamable: bool,
    },
    /// The value was written with a schema whose changes to the reader's are
    /// not all compatible.
    Incompatible {
        /// The type's wire name.
        type_name: String,
        /// The fingerprint the value was written with.
        writer: Fingerprint,
        /// The reader's fingerprint.
        reader: Fingerprint,
        /// Every change from the writer's schema to the reader's: the
        /// error's `source()`.
        changes: Changes,
    },
    /// The payload does not decode.
    Decode(DecodeError),
}

impl fmt::Display for EnvelopeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EnvelopeError::Malformed { message } => {
                write!(f, "not a readable stored value: {message}")
            }
            EnvelopeError::WrongType {
                found,
                expected,
                renamable,
            } => {
                write!(
                    f,
                    "stored value is a `{found}`, not a `{expected}`; read it as `{found}`"
                )?;
                if *renamable {
                    write!(
                        f,
                        ", or add #[codec(alias = \"{found}\")] to `{expected}` if it was renamed"
                    )?;
                }
                Ok(())
            }
            EnvelopeError::Incompatible {
                type_name,
                writer,
                reader,
                changes,
            } => write!(
                f,
                "stored `{type_name}` was written with schema {writer} and cannot be read with schema {reader}: breaking change {}; fix: {}, or drop the stale value",
                changes.summary(),
                changes.fixes()
            ),
            // The cause is the `source()`, printed once (by `Debug`, or an
            // error reporter), not twice.
            EnvelopeError::Decode(_) => f.write_str("stored payload does not decode"),
        }
    }
}

impl EnvelopeError {
    /// Why the value cannot be read, in a few words, for the message of an
    /// error that has this one as its source: the first breaking change
    /// (`` breaking change `Chunk.end`: integer -> string (and 2 more) ``),
    /// the type found, or what is wrong with the bytes.
    pub fn reason(&self) -> String {
        match self {
            EnvelopeError::Malformed { .. } => "the stored bytes are damaged".to_owned(),
            EnvelopeError::WrongType { found, .. } => format!("it is a `{found}`"),
            EnvelopeError::Incompatible { changes, .. } => {
                format!("breaking change {}", changes.summary())
            }
            EnvelopeError::Decode(_) => "its payload does not decode".to_owned(),
        }
    }
}

impl fmt::Debug for EnvelopeError {
    /// The message, then each cause after a colon.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)?;
        let mut cause = std::error::Error::source(self);
        while let Some(e) = cause {
            write!(f, ": {e}")?;
            cause = e.source();
        }
        Ok(())
    }
}

impl std::error::Error for EnvelopeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            EnvelopeError::Decode(e) => Some(e),
            EnvelopeError::Incompatible { changes, .. } => Some(changes),
            _ => None,
        }
    }
}

impl From<DecodeError> for EnvelopeError {
    fn from(e: DecodeError) -> Self {
        EnvelopeError::Decode(e)
    }
}

/// Encodes `value` in a checked envelope: its wire name, schema fingerprint
/// and schema, then the MessagePack payload. [`from_stored`] reads it back,
/// through the compatible-evolution rules when the type has changed since.
pub fn to_stored<T: Codec + 'static>(value: &T) -> Result<Vec<u8>, EncodeError> {
    let info = schema::info::<T>();
    let mut w = MsgpackWriter::new(Vec::with_capacity(
        64 + info.name.len() + info.stored_schema.len(),
    ));
    w.write_raw(&MAGIC);
    w.write_raw(&[FORMAT_VERSION]);
    w.write_str(&info.name)?;
    w.write_bin(&info.fingerprint.0)?;
    w.write_bin(info.stored_schema.as_bytes())?;
    value.encode_msgpack(&mut w)?;
    Ok(w.into_inner())
}

/// What an envelope says about its value, without decoding it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[doc(hidden)]
pub struct EnvelopeHeader<'a> {
    /// The wire name of the type it was written as.
    pub type_name: &'a str,
    /// The writer's schema fingerprint.
    pub fingerprint: Fingerprint,
    /// The writer's canonical schema, as JSON text.
    pub schema: &'a str,
    /// The offset of the MessagePack payload.
    pub payload_offset: usize,
}

fn malformed(message: impl Into<String>) -> EnvelopeError {
    EnvelopeError::Malformed {
        message: message.into(),
    }
}

/// Reads the header of an envelope written by [`to_stored`], without
/// decoding the value.
#[doc(hidden)]
pub fn envelope_header(bytes: &[u8]) -> Result<EnvelopeHeader<'_>, EnvelopeError> {
    if bytes.len() < 5 {
        return Err(malformed(format!(
            "{} bytes are too short for the 5-byte envelope header; the value was truncated",
            bytes.len()
        )));
    }
    if bytes[..4] != MAGIC {
        return Err(malformed(
            "wrong magic bytes: these bytes were not written by codec::to_stored (a bare value decodes with codec::from_msgpack)",
        ));
    }
    if bytes[4] != FORMAT_VERSION {
        return Err(malformed(format!(
            "envelope format {} is not the format {FORMAT_VERSION} this codec reads; read it with the codec version that wrote it",
            bytes[4]
        )));
    }
    let mut r = MsgpackReader::new(&bytes[5..]);
    let truncated = |e: DecodeError| malformed(format!("damaged header: {e}"));
    let type_name = r.read_str().map_err(truncated)?;
    let fp = r.read_bin().map_err(truncated)?;
    let fingerprint = <[u8; 16]>::try_from(fp).map(Fingerprint).map_err(|_| {
        malformed(format!(
            "damaged header: a fingerprint has 16 bytes, found {}",
            fp.len()
        ))
    })?;
    let schema = r.read_bin().map_err(truncated)?;
    let schema = std::str::from_utf8(schema)
        .map_err(|_| malformed("damaged header: the schema is not UTF-8"))?;
    Ok(EnvelopeHeader {
        type_name,
        fingerprint,
        schema,
        payload_offset: 5 + r.position(),
    })
}

/// Decodes a value written by [`to_stored`]. With the reader's fingerprint it
/// decodes at full speed; with another, it compares the writer's schema with
/// the reader's and decodes only if every change is compatible.
pub fn from_stored<T: Codec + 'static>(bytes: &[u8]) -> Result<T, EnvelopeError> {
    let header = envelope_header(bytes)?;
    let info = schema::info::<T>();
    schema::check_readable(
        header.type_name,
        header.fingerprint,
        info,
        || {
            serde_json::from_str(header.schema).map_err(|e| {
                malformed(format!(
                    "damaged header: the writer's schema is not JSON ({e})"
                ))
            })
        },
        |e| e,
    )?;
    Ok(crate::convert::from_msgpack(
        &bytes[header.payload_offset..],
    )?)
}

#[cfg(test)]
mod tests {
    use std::error::Error;

    /// Each cause is printed once: in the message of the error whose
    /// `source()` it is, not in the message of the error above it too.
    #[test]
    fn a_payload_that_does_not_decode_prints_its_cause_once() {
        let mut bytes = super::to_stored(&(1u32, "text".to_owned())).unwrap();
        bytes.truncate(bytes.len() - 2);
        let e = super::from_stored::<(u32, String)>(&bytes).unwrap_err();
        let cause = e
            .source()
            .expect("the decode error is the source")
            .to_string();
        assert!(!e.to_string().contains(&cause), "{e}");
        assert_eq!(format!("{e:?}").matches(&cause).count(), 1, "{e:?}");
    }
}
