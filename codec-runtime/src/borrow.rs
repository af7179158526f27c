//! Decoding that borrows from the input: [`Decode`], the trait the decoding
//! entry points take, and [`BorrowCodec`], the hooks of a type that holds
//! `&'a str`, `&'a [u8]` or `Cow<'a, _>` taken from the bytes it was read from.

use std::borrow::Cow;
use std::rc::Rc;
use std::sync::Arc;

use schemars::SchemaGenerator;

use crate::codec::{Codec, Schema};
use crate::encode::Encode;
use crate::error::{DecodeError, DecodeErrorKind};
use crate::json::JsonReader;
use crate::kind::WireKind;
use crate::msgpack::MsgpackReader;
use crate::schema;

/// A type that can be read from input living for `'de`, as serde's
/// `Deserialize<'de>`: [`crate::from_msgpack`] and [`crate::from_json`] take
/// it, so one entry point returns owned and borrowing values alike.
///
/// Every [`Codec`] type implements it, for every `'de`: an owned value
/// outlives its input. A type that borrows implements it for the inputs that
/// outlive it (`'de: 'a`): `&'a str`, `&'a [u8]`, and derived types whose
/// fields borrow: `&'a str` and `&'a [u8]` (alone or in an `Option`, a
/// `Vec`, a tuple, or as a map's keys or values) always do, and `Cow<'a, str>`, `Cow<'a, [u8]>` and
/// derived types with a lifetime (also behind a `Box`, `Rc` or `Arc`) do
/// with `#[codec(borrow)]` (or `#[serde(borrow)]`), as in serde. Without
/// it a `Cow` decodes owned, and a type whose only lifetimes are such
/// `Cow`s stays `Codec`, storable.
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
/// `Codec` keeps its lifetime-free decoders, so the store, `#[codec::memoize]`
/// and every impl written by hand stay as they are, and a type that borrows
/// never implements it: where an owned value is needed (`get::<T>`, a
/// memoized result), `T: Codec` fails to compile. A borrowing type has
/// everything else `Codec` gives through the hidden [`BorrowCodec`] trait,
/// whose items mirror `Codec`'s with the reader's lifetime named, so the
/// derive generates the same code for both; schemas and fingerprints take
/// either through the hidden `HasSchema`. Its encoding, schema and
/// fingerprint are those of the owned twin with `String` and `Vec<u8>` in
/// place of `&str` and `&[u8]`.
///
/// `BorrowCodec` has no blanket impl from `Codec` (it would overlap with its
/// impls for `Option<T>` and `Vec<T>`), and `Decode` has no impl for
/// `Vec<T>` of borrowing `T` (it would overlap with the one from `Codec`):
/// a top-level array of borrowing records decodes through a newtype,
/// `struct Batch<'a>(#[codec(borrow)] Vec<Line<'a>>)`. An `Option` or a
/// `Vec` of `&str` or `&[u8]`, which no `Codec` impl can cover, has its
/// own.
///
/// JSON has escapes and no bytes: a `&str` borrows a string without escapes
/// and refuses one with escapes; `&[u8]` refuses JSON, whose bytes are
/// base64 text; `Cow` takes both, borrowed where it can.
///
/// Its methods are named apart from `Codec`'s, as [`Encode`]'s are, so a
/// module may import both traits.
pub trait Decode<'de>: Sized {
    /// Reads one value from MessagePack.
    fn read_msgpack(r: &mut MsgpackReader<'de>) -> Result<Self, DecodeError>;

    /// Reads one value from JSON.
    fn read_json(r: &mut JsonReader<'de>) -> Result<Self, DecodeError>;
}

impl<'de, T: Codec> Decode<'de> for T {
    #[inline]
    fn read_msgpack(r: &mut MsgpackReader<'de>) -> Result<Self, DecodeError> {
        <T as Codec>::decode_msgpack(r)
    }

    #[inline]
    fn read_json(r: &mut JsonReader<'de>) -> Result<Self, DecodeError> {
        <T as Codec>::decode_json(r)
    }
}

/// `Decode` by way of [`BorrowCodec`], for the borrowing types that are not
/// derived (the derive writes its own).
macro_rules! decode_by_borrow_codec {
    ($($ty:ty),*) => {$(
        impl<'de: 'a, 'a> Decode<'de> for $ty {
            #[inline]
            fn read_msgpack(r: &mut MsgpackReader<'de>) -> Result<Self, DecodeError> {
                <Self as BorrowCodec<'de>>::decode_msgpack(r)
            }

            #[inline]
            fn read_json(r: &mut JsonReader<'de>) -> Result<Self, DecodeError> {
                <Self as BorrowCodec<'de>>::decode_json(r)
            }
        }
    )*};
}

decode_by_borrow_codec!(
    &'a str,
    &'a [u8],
    Option<&'a str>,
    Option<&'a [u8]>,
    Vec<&'a str>,
    Vec<&'a [u8]>
);

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

/// What [`Codec`] gives a type that borrows from input living for `'de`:
/// the same items, with the reader's lifetime named. Generated code for a
/// derived type with a lifetime parameter calls it where it would call
/// `Codec`, on the fields whose types name a lifetime. No blanket impl from
/// `Codec`: that would overlap with the impls for `Option<T>` and `Vec<T>`.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot borrow from its input",
    label = "this field borrows from the input, but its type cannot",
    note = "a field that borrows is `&'a str`, `&'a [u8]`, `Cow<'a, str>`, `Cow<'a, [u8]>`, a derived type that borrows, an `Option`, `Vec`, `Box`, `Rc` or `Arc` of one, a tuple of them and owned values, or a `BTreeMap` or `HashMap` with `&'a str` keys; hold other values owned (`u32`, `String`, `Vec<T>`, `HashMap<String, V>`)"
)]
pub trait BorrowCodec<'de>: Encode + Schema + Sized {
    /// [`Codec::decode_msgpack`], borrowing from `r`'s input.
    fn decode_msgpack(r: &mut MsgpackReader<'de>) -> Result<Self, DecodeError>;

    /// [`Codec::decode_json`], borrowing from `r`'s input.
    fn decode_json(r: &mut JsonReader<'de>) -> Result<Self, DecodeError>;

    /// [`Codec::__decode_msgpack_body`].
    fn __decode_msgpack_body(
        r: &mut MsgpackReader<'de>,
        _len: usize,
        _tag: &[u8],
    ) -> Result<Self, DecodeError> {
        Err(r.unexpected("a struct that merges into a tagged union"))
    }

    /// [`Codec::__decode_json_body`].
    fn __decode_json_body(
        r: &mut JsonReader<'de>,
        _first: bool,
        _tag: &str,
    ) -> Result<Self, DecodeError> {
        Err(r.unexpected("a struct that merges into a tagged union"))
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

impl<'de: 'a, 'a> BorrowCodec<'de> for &'a str {
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
}

impl<'de: 'a, 'a> BorrowCodec<'de> for &'a [u8] {
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

impl<'de: 'a, 'a> BorrowCodec<'de> for Cow<'a, str> {
    #[inline]
    fn decode_msgpack(r: &mut MsgpackReader<'de>) -> Result<Self, DecodeError> {
        r.read_str().map(Cow::Borrowed)
    }

    #[inline]
    fn decode_json(r: &mut JsonReader<'de>) -> Result<Self, DecodeError> {
        r.read_str()
    }
}

impl<'de: 'a, 'a> BorrowCodec<'de> for Cow<'a, [u8]> {
    #[inline]
    fn decode_msgpack(r: &mut MsgpackReader<'de>) -> Result<Self, DecodeError> {
        r.read_bin().map(Cow::Borrowed)
    }

    fn decode_json(r: &mut JsonReader<'de>) -> Result<Self, DecodeError> {
        <Vec<u8> as Codec>::decode_json(r).map(Cow::Owned)
    }
}

impl<'de, T: BorrowCodec<'de>> BorrowCodec<'de> for Option<T> {
    #[inline]
    fn decode_msgpack(r: &mut MsgpackReader<'de>) -> Result<Self, DecodeError> {
        if r.try_read_nil() {
            Ok(None)
        } else {
            T::decode_msgpack(r).map(Some)
        }
    }

    #[inline]
    fn decode_json(r: &mut JsonReader<'de>) -> Result<Self, DecodeError> {
        if r.try_read_nil() {
            Ok(None)
        } else {
            T::decode_json(r).map(Some)
        }
    }
}

/// An array of `T`: no borrowing `T` is `u8`, so never a byte buffer.
impl<'de, T: BorrowCodec<'de>> BorrowCodec<'de> for Vec<T> {
    fn decode_msgpack(r: &mut MsgpackReader<'de>) -> Result<Self, DecodeError> {
        let len = r.read_array_len()?;
        r.nested(|r| {
            let mut out = Vec::with_capacity(r.capacity_hint(len));
            for i in 0..len {
                out.push(T::decode_msgpack(r).map_err(|e| e.in_index(i))?);
            }
            Ok(out)
        })
    }

    fn decode_json(r: &mut JsonReader<'de>) -> Result<Self, DecodeError> {
        r.begin_array()?;
        let mut out = Vec::new();
        let mut first = true;
        while r.next_element(&mut first)? {
            out.push(T::decode_json(r).map_err(|e| e.in_index(out.len()))?);
        }
        Ok(out)
    }
}

/// Pointers to a borrowing value, as [`Codec`]'s: the pointee on the wire,
/// one level of nesting counted, so that a recursive type that borrows
/// (`next: Option<Box<Node<'a>>>`) stays within the depth limit.
macro_rules! borrowing_pointer {
    ($($ptr:ident),*) => {$(
        impl<'de, T: BorrowCodec<'de>> BorrowCodec<'de> for $ptr<T> {
            #[inline]
            fn decode_msgpack(r: &mut MsgpackReader<'de>) -> Result<Self, DecodeError> {
                r.nested(T::decode_msgpack).map(Self::new)
            }

            #[inline]
            fn decode_json(r: &mut JsonReader<'de>) -> Result<Self, DecodeError> {
                r.nested(T::decode_json).map(Self::new)
            }

            fn __decode_msgpack_body(
                r: &mut MsgpackReader<'de>,
                len: usize,
                tag: &[u8],
            ) -> Result<Self, DecodeError> {
                T::__decode_msgpack_body(r, len, tag).map(Self::new)
            }

            fn __decode_json_body(
                r: &mut JsonReader<'de>,
                first: bool,
                tag: &str,
            ) -> Result<Self, DecodeError> {
                T::__decode_json_body(r, first, tag).map(Self::new)
            }
        }
    )*};
}

borrowing_pointer!(Box, Rc, Arc);

/// [`crate::__private::decode_missing`] for a borrowing type.
#[cold]
pub fn decode_missing<'de, T: BorrowCodec<'de>>() -> Option<T> {
    if !crate::__private::may_be_missing::<T>() {
        return None;
    }
    let mut r: MsgpackReader<'de> = MsgpackReader::new(&[0xc0]);
    T::decode_msgpack(&mut r).ok()
}
