//! The two error types of the codec boundary: [`DecodeError`] and [`EncodeError`].
//!
//! A decode error carries the path of the value that failed (`$.events[1].code`),
//! built on the way out of the decoder: the success path pays nothing for it.

use std::borrow::Cow;
use std::fmt;

/// The wire format an error came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// MessagePack.
    MsgPack,
    /// JSON.
    Json,
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Format::MsgPack => "MessagePack",
            Format::Json => "JSON",
        })
    }
}

/// One step of the path to a value inside a decoded document.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PathSegment {
    /// A struct field or map entry, by wire name.
    Field(Cow<'static, str>),
    /// An element of an array, by position.
    Index(usize),
    /// A variant of a union, by wire name.
    Variant(Cow<'static, str>),
}

/// What went wrong while decoding.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum DecodeErrorKind {
    /// The input ended inside a value.
    UnexpectedEof {
        /// What the decoder was reading.
        expected: Cow<'static, str>,
    },
    /// A value of another type was found.
    InvalidType {
        /// What the target type accepts.
        expected: Cow<'static, str>,
        /// What the input holds.
        found: String,
    },
    /// An integer does not fit the target type.
    IntOutOfRange {
        /// The integer, as written in the input.
        value: String,
        /// The target type.
        target: &'static str,
    },
    /// A value has the right type but an invalid content (a malformed date, a zero `NonZero`).
    InvalidValue {
        /// What is wrong with it.
        message: String,
    },
    /// A string or field name is not valid UTF-8.
    InvalidUtf8,
    /// A required field is absent.
    MissingField {
        /// Its wire name.
        field: &'static str,
    },
    /// A field the type does not know, on a type with `deny_unknown_fields`.
    UnknownField {
        /// Its wire name, as found.
        field: String,
        /// The fields the type knows.
        known: &'static [&'static str],
    },
    /// A field appears twice in one map.
    DuplicateField {
        /// Its wire name.
        field: &'static str,
    },
    /// The tag of a union names no variant.
    UnknownTag {
        /// The tag, as found.
        tag: String,
        /// The tags the union knows.
        known: &'static [&'static str],
    },
    /// A tagged union's map has no tag field.
    MissingTag {
        /// The name of the tag field.
        field: &'static str,
    },
    /// An array has the wrong number of elements for a fixed-size target.
    InvalidLength {
        /// What the target accepts.
        expected: Cow<'static, str>,
        /// How many elements the input holds.
        found: usize,
    },
    /// Bytes remain after the value.
    TrailingBytes {
        /// How many.
        count: usize,
    },
    /// Values are nested deeper than the reader's limit.
    DepthLimitExceeded {
        /// The limit.
        limit: u32,
    },
    /// The input is not well-formed in its format (JSON syntax, a reserved MessagePack marker).
    Syntax {
        /// What is wrong.
        message: Cow<'static, str>,
    },
    /// The input is larger than the decoder's limit.
    InputTooLarge {
        /// The input's size in bytes.
        len: usize,
        /// The limit.
        limit: usize,
    },
    /// A value outside a constraint of its field (`#[codec(ge = 0)]`,
    /// `max_length`, `pattern`, ...).
    Constraint {
        /// The constraint as written: `ge = 0`, `max_length = 3`.
        constraint: String,
        /// What it requires, in words: `a value >= 0`.
        expected: String,
        /// What the input held: `-1`, `a length of 5`.
        found: String,
    },
    /// Any other failure, from a foreign type's decoder.
    Custom {
        /// The message.
        message: String,
    },
}

/// A value could not be decoded: what was expected, what was found, and where.
///
/// ```
/// #[derive(codec::Codec, Debug)]
/// struct Key { code: String }
/// let err = codec::from_json::<Key>(r#"{"code": 5}"#).unwrap_err();
/// assert_eq!(err.path(), "$.code");
/// assert!(err.to_string().contains("expected a string, found an integer"));
/// ```
#[derive(Clone, PartialEq)]
pub struct DecodeError {
    inner: Box<Inner>,
}

#[derive(Clone, Debug, PartialEq)]
struct Inner {
    kind: DecodeErrorKind,
    /// Innermost segment first: pushed while the error travels outwards.
    path: Vec<PathSegment>,
    format: Option<Format>,
    offset: Option<usize>,
}

impl DecodeError {
    /// An error of the given kind, at the root, with no position yet.
    #[cold]
    pub fn new(kind: DecodeErrorKind) -> Self {
        DecodeError {
            inner: Box::new(Inner {
                kind,
                path: Vec::new(),
                format: None,
                offset: None,
            }),
        }
    }

    /// `expected` something, found `found`.
    #[cold]
    pub fn invalid_type(expected: impl Into<Cow<'static, str>>, found: impl Into<String>) -> Self {
        Self::new(DecodeErrorKind::InvalidType {
            expected: expected.into(),
            found: found.into(),
        })
    }

    /// A value of the right type with invalid content.
    #[cold]
    pub fn invalid_value(message: impl Into<String>) -> Self {
        Self::new(DecodeErrorKind::InvalidValue {
            message: message.into(),
        })
    }

    /// A failure reported by a foreign decoder.
    #[cold]
    pub fn custom(message: impl fmt::Display) -> Self {
        Self::new(DecodeErrorKind::Custom {
            message: message.to_string(),
        })
    }

    /// A required field is absent.
    #[cold]
    pub fn missing_field(field: &'static str) -> Self {
        Self::new(DecodeErrorKind::MissingField { field })
    }

    /// A field appears twice.
    #[cold]
    pub fn duplicate_field(field: &'static str) -> Self {
        Self::new(DecodeErrorKind::DuplicateField { field })
    }

    /// A field not known to a type that denies unknown fields.
    #[cold]
    pub fn unknown_field(field: &[u8], known: &'static [&'static str]) -> Self {
        Self::new(DecodeErrorKind::UnknownField {
            field: String::from_utf8_lossy(field).into_owned(),
            known,
        })
    }

    /// A union tag naming no variant.
    #[cold]
    pub fn unknown_tag(tag: impl Into<String>, known: &'static [&'static str]) -> Self {
        Self::new(DecodeErrorKind::UnknownTag {
            tag: tag.into(),
            known,
        })
    }

    /// A union map without its tag field.
    #[cold]
    pub fn missing_tag(field: &'static str) -> Self {
        Self::new(DecodeErrorKind::MissingTag { field })
    }

    /// An array of the wrong length.
    #[cold]
    pub fn invalid_length(expected: impl Into<Cow<'static, str>>, found: usize) -> Self {
        Self::new(DecodeErrorKind::InvalidLength {
            expected: expected.into(),
            found,
        })
    }

    /// What went wrong.
    pub fn kind(&self) -> &DecodeErrorKind {
        &self.inner.kind
    }

    /// The format being decoded, when known.
    pub fn format(&self) -> Option<Format> {
        self.inner.format
    }

    /// The byte offset in the input where the error was found, when known.
    pub fn offset(&self) -> Option<usize> {
        self.inner.offset
    }

    /// The path of the failing value, as `$.field[index].field`.
    pub fn path(&self) -> String {
        let mut out = String::from("$");
        for segment in self.inner.path.iter().rev() {
            match segment {
                PathSegment::Field(name) => {
                    out.push('.');
                    out.push_str(name);
                }
                PathSegment::Index(i) => {
                    out.push('[');
                    out.push_str(itoa::Buffer::new().format(*i));
                    out.push(']');
                }
                PathSegment::Variant(name) => {
                    out.push('<');
                    out.push_str(name);
                    out.push('>');
                }
            }
        }
        out
    }

    /// The path segments, outermost first.
    pub fn path_segments(&self) -> impl Iterator<Item = &PathSegment> {
        self.inner.path.iter().rev()
    }

    /// Marks the error as coming from inside field `name`.
    #[cold]
    pub fn in_field(mut self, name: impl Into<Cow<'static, str>>) -> Self {
        self.inner.path.push(PathSegment::Field(name.into()));
        self
    }

    /// Marks the error as coming from inside element `index`.
    #[cold]
    pub fn in_index(mut self, index: usize) -> Self {
        self.inner.path.push(PathSegment::Index(index));
        self
    }

    /// Marks the error as coming from inside variant `name` of a union.
    #[cold]
    pub fn in_variant(mut self, name: impl Into<Cow<'static, str>>) -> Self {
        self.inner.path.push(PathSegment::Variant(name.into()));
        self
    }

    /// Records the format and input offset, unless already recorded deeper in.
    #[cold]
    pub fn at(mut self, format: Format, offset: usize) -> Self {
        if self.inner.format.is_none() {
            self.inner.format = Some(format);
            self.inner.offset = Some(offset);
        }
        self
    }

    fn hint(&self) -> Option<&'static str> {
        Some(match &self.inner.kind {
            DecodeErrorKind::MissingField { .. } => {
                "give the field a #[codec(default)] if older data may lack it"
            }
            DecodeErrorKind::UnknownField { .. } => {
                "remove the field from the input, or drop #[codec(deny_unknown_fields)]"
            }
            DecodeErrorKind::UnknownTag { .. } => {
                "add the variant, or a #[codec(alias = \"..\")] naming this tag"
            }
            DecodeErrorKind::TrailingBytes { .. } => {
                "the input holds more than one value, or was appended to"
            }
            DecodeErrorKind::DepthLimitExceeded { .. } => {
                "raise the reader's depth limit if such deep input is legitimate"
            }
            _ => return None,
        })
    }
}

impl fmt::Display for DecodeErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodeErrorKind::UnexpectedEof { expected } => {
                write!(f, "input ended while reading {expected}")
            }
            DecodeErrorKind::InvalidType { expected, found } => {
                write!(f, "expected {expected}, found {found}")
            }
            DecodeErrorKind::IntOutOfRange { value, target } => {
                write!(f, "integer {value} is out of range for {target}")
            }
            DecodeErrorKind::InvalidValue { message } => f.write_str(message),
            DecodeErrorKind::InvalidUtf8 => f.write_str("string is not valid UTF-8"),
            DecodeErrorKind::MissingField { field } => write!(f, "missing field `{field}`"),
            DecodeErrorKind::UnknownField { field, known } => {
                write!(f, "unknown field `{field}`, expected one of ")?;
                write_list(f, known)
            }
            DecodeErrorKind::DuplicateField { field } => write!(f, "duplicate field `{field}`"),
            DecodeErrorKind::UnknownTag { tag, known } => {
                write!(f, "unknown tag `{tag}`, expected one of ")?;
                write_list(f, known)
            }
            DecodeErrorKind::MissingTag { field } => {
                write!(f, "missing tag field `{field}` of a tagged union")
            }
            DecodeErrorKind::InvalidLength { expected, found } => {
                write!(f, "expected {expected}, found {found} elements")
            }
            DecodeErrorKind::TrailingBytes { count } => {
                write!(f, "{count} trailing bytes after the value")
            }
            DecodeErrorKind::DepthLimitExceeded { limit } => {
                write!(f, "values nested deeper than the limit of {limit}")
            }
            DecodeErrorKind::Syntax { message } => f.write_str(message),
            DecodeErrorKind::InputTooLarge { len, limit } => {
                write!(
                    f,
                    "input of {len} bytes is larger than the limit of {limit} bytes"
                )
            }
            DecodeErrorKind::Constraint {
                constraint,
                expected,
                found,
            } => write!(
                f,
                "expected {expected} (#[codec({constraint})]), found {found}"
            ),
            DecodeErrorKind::Custom { message } => f.write_str(message),
        }
    }
}

fn write_list(f: &mut fmt::Formatter<'_>, items: &[&str]) -> fmt::Result {
    if items.is_empty() {
        return f.write_str("nothing");
    }
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "`{item}`")?;
    }
    Ok(())
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(format) = self.inner.format {
            write!(f, "invalid {format} ")?;
        } else {
            f.write_str("invalid input ")?;
        }
        write!(f, "at {}: {}", self.path(), self.inner.kind)?;
        if let Some(offset) = self.inner.offset {
            write!(f, " (byte {offset})")?;
        }
        if let Some(hint) = self.hint() {
            write!(f, "; {hint}")?;
        }
        Ok(())
    }
}

/// The message, as `Display` gives it, so that `unwrap()` prints what to
/// do; `{:#?}` gives the fields.
impl fmt::Debug for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !f.alternate() {
            return fmt::Display::fmt(self, f);
        }
        f.debug_struct("DecodeError")
            .field("kind", &self.inner.kind)
            .field("path", &self.path())
            .field("format", &self.inner.format)
            .field("offset", &self.inner.offset)
            .finish()
    }
}

impl std::error::Error for DecodeError {}

/// A value could not be encoded.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum EncodeError {
    /// A map key that the format cannot carry (JSON keys must be strings or integers).
    UnsupportedKey {
        /// The key's type.
        type_name: &'static str,
    },
    /// A string, byte buffer or collection longer than MessagePack's 2^32-1 limit.
    TooLong {
        /// Its length.
        len: usize,
    },
    /// A value that has no encoding (a path that is not UTF-8, a time before the epoch range).
    InvalidValue {
        /// What is wrong.
        message: String,
    },
    /// A failure reported by a foreign encoder.
    Custom {
        /// The message.
        message: String,
    },
}

impl EncodeError {
    /// A failure reported by a foreign encoder.
    #[cold]
    pub fn custom(message: impl fmt::Display) -> Self {
        EncodeError::Custom {
            message: message.to_string(),
        }
    }
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EncodeError::UnsupportedKey { type_name } => write!(
                f,
                "map key of type `{type_name}` cannot be a JSON object key; \
                 use string or integer keys, or encode as MessagePack"
            ),
            EncodeError::TooLong { len } => write!(
                f,
                "length {len} exceeds MessagePack's limit of 4294967295; split the value"
            ),
            EncodeError::InvalidValue { message } => f.write_str(message),
            EncodeError::Custom { message } => f.write_str(message),
        }
    }
}

impl std::error::Error for EncodeError {}
