//! [`Decode`]: reading a value from input living for `'de`, owned values and
//! values that hold `&'a str`, `&'a [u8]` or `Cow<'a, _>` taken from the
//! bytes they were read from alike.

use std::borrow::Cow;

use schemars::SchemaGenerator;

use crate::codec::Schema;
use crate::error::{DecodeError, DecodeErrorKind};
use crate::json::JsonReader;
use crate::kind::WireKind;
use crate::msgpack::MsgpackReader;
use crate::schema;

/// A type that can be read from input living for `'de`, as serde's
/// `Deserialize<'de>`: [`crate::from_msgpack`] and [`crate::from_json`] take
/// it, so one entry point returns owned and borrowing values alike.
///
/// Every [`crate::Codec`] type implements it, for every `'de`: an owned
/// value outlives its input. A type that borrows implements it for the
/// inputs that outlive it (`'de: 'a`): `&'a str`, `&'a [u8]`, containers
/// of them, and derived types whose fields borrow.
///
/// - `&'a str` and `&'a [u8]` fields (alone, in an `Option`, a `Vec`, a
///   tuple, or as a map's keys or values) always borrow.
/// - A field of a derived type with a lifetime (alone, in an `Option` or a
///   `Vec`, behind a `Box`, `Rc` or `Arc`) borrows with `#[codec(borrow)]`
///   (or `#[serde(borrow)]`), as in serde.
/// - A field `Cow<'a, str>` or `Cow<'a, [u8]>` borrows with
///   `#[codec(borrow)]`; in an `Option` or a `Vec` it is owned, as in serde.
///   Without it a `Cow` decodes owned, and a type whose only lifetimes are
///   such `Cow`s stays `Codec`, storable.
///
/// ```
/// use std::borrow::Cow;
///
/// #[derive(codec::Codec)]
/// struct Line<'a> {
///     service: &'a str,
///     user: Option<&'a str>,
///     #[codec(borrow)]
///     note: Cow<'a, str>,
/// }
///
/// let bytes = codec::to_msgpack(&Line { service: "api", user: None, note: "x".into() }).unwrap();
/// let line: Line<'_> = codec::from_msgpack(&bytes).unwrap();
/// assert!(bytes.as_ptr_range().contains(&line.service.as_ptr()));
/// assert!(matches!(line.note, Cow::Borrowed(_)));
/// ```
///
/// # Design
///
/// serde's shape: one trait with the input's lifetime, and
/// [`crate::Codec`], the sum of `Encode`, `Decode<'de>` for every `'de`
/// and [`Schema`], for what needs an owned value (`get::<T>`, a memoized
/// result): a type that borrows is not `Codec`, so `T: Codec` fails to
/// compile there, as serde's `DeserializeOwned` does, with "implementation
/// of `Decode` is not general enough": use its owned twin there. Its
/// encoding, schema and fingerprint are those of the owned twin with
/// `String` and `Vec<u8>` in place of `&str` and `&[u8]`.
///
/// JSON has escapes and no bytes: a `&str` borrows a string without escapes
/// and refuses one with escapes; `&[u8]` refuses JSON, whose bytes are
/// base64 text; `Cow` takes both, borrowed where it can.
///
/// A type implemented by hand defines the two methods documented here, for
/// every `'de` (`impl<'de> Decode<'de> for Semver`, see the `by_hand`
/// example). The hidden items whose names start with `__` are hooks for
/// generated code and the standard impls, with defaults that are right for
/// such a type.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be decoded",
    label = "`{Self}` does not implement `codec::Decode`",
    note = "a type of this crate: add #[derive(codec::Codec)] to `{Self}`; of uuid, chrono, rust_decimal, ndarray, num-complex or arrow: enable codec's feature of that name (`decimal` for rust_decimal)",
    note = "a field that borrows holds `&'a str`, `&'a [u8]`, a `Cow` of them or a derived type that borrows, alone or in an `Option`, `Vec`, tuple, map or `Box`"
)]
pub trait Decode<'de>: Sized {
    /// Reads one value from MessagePack.
    fn decode_msgpack(r: &mut MsgpackReader<'de>) -> Result<Self, DecodeError>;

    /// Reads one value from JSON.
    fn decode_json(r: &mut JsonReader<'de>) -> Result<Self, DecodeError>;

    // Hidden hooks, in three groups. Each has a default that is right for a
    // type implemented by hand; the derive and the standard impls override
    // them where the wire shape needs it.

    // 1. The map body: a struct of named fields, which a tagged union's
    //    newtype variant merges after its tag ([`Schema::__MAP_BODY`]; its
    //    encoders are `Encode`'s). A type that is its inner value on the
    //    wire forwards these, with group 2, through `forward_decode!`.

    /// Reads `len` map entries, ignoring the entry whose key is `tag`.
    #[doc(hidden)]
    fn __decode_msgpack_body(
        r: &mut MsgpackReader<'de>,
        _len: usize,
        _tag: &[u8],
    ) -> Result<Self, DecodeError> {
        Err(r.unexpected("a struct that merges into a tagged union"))
    }

    /// Reads object entries up to and including `}`, ignoring the entry whose
    /// key is `tag`. `first` says whether no entry was read yet.
    #[doc(hidden)]
    fn __decode_json_body(
        r: &mut JsonReader<'de>,
        _first: bool,
        _tag: &str,
    ) -> Result<Self, DecodeError> {
        Err(r.unexpected("a struct that merges into a tagged union"))
    }

    // 2. JSON object keys: strings, integers and string-like types.

    /// Reads `Self` from a JSON object key, borrowed from the input where
    /// it has no escapes.
    #[doc(hidden)]
    fn __decode_json_key(
        r: &mut JsonReader<'de>,
        _key: Cow<'de, str>,
    ) -> Result<Self, DecodeError> {
        Err(r.error(DecodeErrorKind::InvalidType {
            expected: std::any::type_name::<Self>().into(),
            found: "an object key (JSON keys are strings)".into(),
        }))
    }

    // 3. Sequences of `Self`: `u8` overrides them so that `Vec<u8>`, `[u8; N]`
    //    and `Box<[u8]>` are byte buffers (as `Encode`'s encode them, and
    //    [`Schema::__SEQ_KIND`]). Never forwarded: a sequence of newtypes of
    //    `u8` stays an array.

    /// Decodes a sequence of `Self`.
    #[doc(hidden)]
    fn __decode_msgpack_vec(r: &mut MsgpackReader<'de>) -> Result<Vec<Self>, DecodeError> {
        let len = r.read_array_len()?;
        r.nested(|r| {
            let mut out = Vec::with_capacity(r.capacity_hint(len));
            for i in 0..len {
                out.push(Self::decode_msgpack(r).map_err(|e| e.in_index(i))?);
            }
            Ok(out)
        })
    }

    /// Decodes a JSON sequence of `Self`.
    #[doc(hidden)]
    fn __decode_json_vec(r: &mut JsonReader<'de>) -> Result<Vec<Self>, DecodeError> {
        r.begin_array()?;
        let mut out = Vec::new();
        let mut first = true;
        while r.next_element(&mut first)? {
            if out.capacity() == 0 {
                out.reserve_exact(crate::json::first_capacity::<Self>());
            }
            out.push(Self::decode_json(r).map_err(|e| e.in_index(out.len()))?);
        }
        Ok(out)
    }
}

/// The error for a string with escapes met by a `&str`, which can only
/// point at the input as it is; at the string's start.
#[cold]
fn escaped_string(r: &mut JsonReader<'_>, start: usize) -> DecodeError {
    r.seek(start);
    r.error(DecodeErrorKind::InvalidType {
        expected: "a string without escapes, which a `&str` can borrow".into(),
        found: "a string with escapes; declare the field `Cow<'a, str>` to take them too".into(),
    })
}

/// The error for a JSON key with escapes in a map whose keys borrow.
#[cold]
fn escaped_key(r: &mut JsonReader<'_>) -> DecodeError {
    r.error(DecodeErrorKind::InvalidType {
        expected: "a key without escapes, which a `&str` key can borrow".into(),
        found:
            "a key with escapes; declare the map with `String` keys and owned values to take them"
                .into(),
    })
}

impl<'de: 'a, 'a> Decode<'de> for &'a str {
    #[inline]
    fn decode_msgpack(r: &mut MsgpackReader<'de>) -> Result<Self, DecodeError> {
        r.read_str()
    }

    #[inline]
    fn decode_json(r: &mut JsonReader<'de>) -> Result<Self, DecodeError> {
        let start = r.position();
        match r.read_str()? {
            Cow::Borrowed(s) => Ok(s),
            Cow::Owned(_) => Err(escaped_string(r, start)),
        }
    }

    fn __decode_json_key(r: &mut JsonReader<'de>, key: Cow<'de, str>) -> Result<Self, DecodeError> {
        match key {
            Cow::Borrowed(key) => Ok(key),
            Cow::Owned(_) => Err(escaped_key(r)),
        }
    }
}

impl<'de: 'a, 'a> Decode<'de> for &'a [u8] {
    #[inline]
    fn decode_msgpack(r: &mut MsgpackReader<'de>) -> Result<Self, DecodeError> {
        r.read_bin()
    }

    fn decode_json(r: &mut JsonReader<'de>) -> Result<Self, DecodeError> {
        Err(r.error(DecodeErrorKind::InvalidType {
            expected: "bytes a `&[u8]` can borrow".into(),
            found: "JSON, whose bytes are base64 text; declare the field `Cow<'a, [u8]>` to read JSON too".into(),
        }))
    }
}

/// The schema facts of a borrowed string or byte slice: those of `String`
/// and `Vec<u8>`, so that they read from the store in place
/// (`get_ref::<&str>`), schema-checked as their owned twins.
macro_rules! schema_of_owned_twin {
    ($($ty:ty => $owned:ty),*) => {$(
        impl<'a> Schema for $ty {
            const KIND: WireKind = <$owned as Schema>::KIND;

            fn json_schema(generator: &mut SchemaGenerator) -> schemars::Schema {
                <$owned as Schema>::json_schema(generator)
            }

            fn __subschema(generator: &mut SchemaGenerator) -> schemars::Schema {
                schema::subschema::<$owned>(generator)
            }
        }
    )*};
}

schema_of_owned_twin!(&'a str => String, &'a [u8] => Vec<u8>);

/// How a field `Cow<'a, str>` or `Cow<'a, [u8]>` with `#[codec(borrow)]`
/// decodes: borrowed from the input where it can be (a `Cow`'s own
/// `Decode` is owned, as serde's `Deserialize` is).
#[doc(hidden)]
pub trait BorrowCow<'de>: Sized {
    /// Reads the value from MessagePack, borrowed.
    fn borrow_msgpack(r: &mut MsgpackReader<'de>) -> Result<Self, DecodeError>;

    /// Reads the value from JSON, borrowed where it has no escapes.
    fn borrow_json(r: &mut JsonReader<'de>) -> Result<Self, DecodeError>;
}

impl<'de: 'a, 'a> BorrowCow<'de> for Cow<'a, str> {
    #[inline]
    fn borrow_msgpack(r: &mut MsgpackReader<'de>) -> Result<Self, DecodeError> {
        r.read_str().map(Cow::Borrowed)
    }

    #[inline]
    fn borrow_json(r: &mut JsonReader<'de>) -> Result<Self, DecodeError> {
        r.read_str()
    }
}

impl<'de: 'a, 'a> BorrowCow<'de> for Cow<'a, [u8]> {
    #[inline]
    fn borrow_msgpack(r: &mut MsgpackReader<'de>) -> Result<Self, DecodeError> {
        r.read_bin().map(Cow::Borrowed)
    }

    fn borrow_json(r: &mut JsonReader<'de>) -> Result<Self, DecodeError> {
        <Vec<u8> as Decode<'de>>::decode_json(r).map(Cow::Owned)
    }
}
