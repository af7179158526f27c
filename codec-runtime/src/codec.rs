//! The [`Codec`] trait, and how schemars sees a `Codec` type: its wire name,
//! and `$defs` for derived types.

use crate::encode::Encode;
use crate::error::{DecodeError, EncodeError};
use crate::json::{JsonReader, JsonWriter};
use crate::kind::WireKind;
use crate::msgpack::{MsgpackReader, MsgpackWriter};
use crate::name::structural_name;

use std::borrow::Cow;
use std::marker::PhantomData;

use schemars::SchemaGenerator;
use serde_json::Value;

/// A type with a MessagePack and a JSON encoding.
///
/// Derive it with `#[derive(Codec)]`; the crate implements it for the standard
/// types. Use [`crate::to_msgpack`], [`crate::from_msgpack`], [`crate::to_json`]
/// and [`crate::from_json`] rather than calling the methods directly.
///
/// A type implemented by hand defines the two decode methods documented
/// here, its two encoders in [`Encode`] and its schema and kinds in
/// [`Schema`] (see the `by_hand` example). The hidden items whose names
/// start with `__` are hooks for generated code and the standard impls,
/// with defaults that are right for such a type: not part of the stable
/// interface.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no codec encoding",
    label = "`{Self}` does not implement `Codec`",
    note = "a type of this crate: add #[derive(codec::Codec)] to `{Self}`; of uuid, chrono, rust_decimal, ndarray, num-complex or arrow: enable codec's feature of that name (`decimal` for rust_decimal); of another crate, with serde support: `codec::Serde<{Self}>` (feature `serde`, and schemars' `JsonSchema`)",
    note = "a type that borrows from its input (`&'a str`, `&'a [u8]`, #[codec(borrow)]) is read by `from_msgpack`, `from_json` and `get_ref` only: where an owned value is needed (`get`, a memoized result, a `Vec` of it), use its owned twin or a newtype (see `codec::Decode`)"
)]
pub trait Codec: Encode + Schema + Sized {
    /// Reads one value from MessagePack.
    fn decode_msgpack(r: &mut MsgpackReader<'_>) -> Result<Self, DecodeError>;

    /// Reads one value from JSON.
    fn decode_json(r: &mut JsonReader<'_>) -> Result<Self, DecodeError>;

    // Hidden hooks, in four groups. Each has a default that is right for a
    // type implemented by hand; the derive and the standard impls override
    // them where the wire shape needs it.

    // 1. The map body: a struct of named fields, which a tagged union's
    //    newtype variant merges after its tag ([`Schema::__MAP_BODY`]; its
    //    encoders are [`Encode`]'s). A type that is its inner value on the
    //    wire forwards these, with group 2, through `forward_hooks!`.

    /// Reads `len` map entries, ignoring the entry whose key is `tag`.
    #[doc(hidden)]
    fn __decode_msgpack_body(
        r: &mut MsgpackReader<'_>,
        _len: usize,
        _tag: &[u8],
    ) -> Result<Self, DecodeError> {
        Err(r.unexpected("a struct that merges into a tagged union"))
    }

    /// Reads object entries up to and including `}`, ignoring the entry whose
    /// key is `tag`. `first` says whether no entry was read yet.
    #[doc(hidden)]
    fn __decode_json_body(
        r: &mut JsonReader<'_>,
        _first: bool,
        _tag: &str,
    ) -> Result<Self, DecodeError> {
        Err(r.unexpected("a struct that merges into a tagged union"))
    }

    // 2. JSON object keys: strings, integers and string-like types.

    /// Reads `Self` from a JSON object key.
    #[doc(hidden)]
    fn __decode_json_key(r: &mut JsonReader<'_>, _key: &str) -> Result<Self, DecodeError> {
        Err(r.error(crate::error::DecodeErrorKind::InvalidType {
            expected: std::any::type_name::<Self>().into(),
            found: "an object key (JSON keys are strings)".into(),
        }))
    }

    // 3. `Self` as a field of a derived type: its encoders and its schema,
    //    called through `Codec` so that a field whose type has no codec
    //    encoding is one error, as its decoders' is, not one for each trait.

    /// [`Encode::encode_msgpack`].
    #[doc(hidden)]
    #[inline]
    fn __field_encode_msgpack(&self, w: &mut MsgpackWriter) -> Result<(), EncodeError> {
        Encode::encode_msgpack(self, w)
    }

    /// [`Encode::encode_json`].
    #[doc(hidden)]
    #[inline]
    fn __field_encode_json(&self, w: &mut JsonWriter) -> Result<(), EncodeError> {
        Encode::encode_json(self, w)
    }

    /// [`Schema::__subschema`].
    #[doc(hidden)]
    #[inline]
    fn __field_schema(generator: &mut SchemaGenerator) -> schemars::Schema {
        Self::__subschema(generator)
    }

    // 4. Sequences of `Self`: `u8` overrides them so that `Vec<u8>`, `[u8; N]`
    //    and `Box<[u8]>` are byte buffers (and `Encode`'s, which encode them,
    //    and [`Schema::__SEQ_KIND`]). Never forwarded: a sequence of newtypes
    //    of `u8` stays an array.

    /// Decodes a sequence of `Self`.
    #[doc(hidden)]
    fn __decode_msgpack_vec(r: &mut MsgpackReader<'_>) -> Result<Vec<Self>, DecodeError> {
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
    fn __decode_json_vec(r: &mut JsonReader<'_>) -> Result<Vec<Self>, DecodeError> {
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

/// What schemas and fingerprints need of a type, and what the wire's
/// checks need of its shape: its JSON Schema, the kinds its encoding can
/// start with, and its wire name. Every [`Codec`] type has it, and so
/// does a type that borrows from its input (see [`crate::Decode`]), with
/// the schema of its owned twin: [`schema_of`], [`wire_name`] and
/// [`crate::fingerprint_of`] take both.
///
/// A type implemented by hand defines [`Schema::KIND`] and
/// [`Schema::json_schema`] (see the `by_hand` example). The hidden items
/// whose names start with `__` are hooks for generated code and the
/// standard impls, with defaults that are right for such a type.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no codec schema",
    label = "`{Self}` does not implement `codec::Schema`",
    note = "add #[derive(Codec)] to `{Self}`"
)]
pub trait Schema {
    /// The kinds this type's encoding can start with: [`WireKind::MAP`] for a
    /// struct-like type, [`WireKind::STR`] for a string-like one, ...
    const KIND: WireKind;

    /// The JSON Schema (draft 2020-12) of this type's JSON encoding. Schemas of
    /// inner values come from [`crate::schema::subschema`], so derived types
    /// land in the generator's `$defs`.
    fn json_schema(generator: &mut SchemaGenerator) -> schemars::Schema;

    // 1. Names: the wire name, set by the derive (schemas of other types
    //    are inlined), and the schema inside another schema.

    /// The schema of `Self` inside another schema: [`crate::schema::subschema`].
    /// Generated code calls it through the trait, so a field whose type lacks
    /// it is one error, on the field.
    #[doc(hidden)]
    fn __subschema(generator: &mut SchemaGenerator) -> schemars::Schema {
        generator.subschema_for::<CodecSchema<Self>>()
    }

    /// The stable wire name of a derived type (`#[codec(name = "...")]` or its
    /// Rust name); `None` for the standard types, whose schemas are inlined.
    #[doc(hidden)]
    fn __wire_name() -> Option<Cow<'static, str>> {
        None
    }

    /// Former wire names of the type (`#[codec(alias = "...")]` on the type).
    #[doc(hidden)]
    const __WIRE_ALIASES: &'static [&'static str] = &[];

    // 2. The shape: a struct of named fields, which a tagged union's
    //    newtype variant merges after its tag, and sequences of `Self`.

    /// True for types that encode as a map of named fields, which a tagged
    /// union's newtype variant merges after its tag.
    #[doc(hidden)]
    const __MAP_BODY: bool = false;

    /// The keys a map-body type accepts (wire names and aliases), so a tagged
    /// union can refuse at compile time a payload with a field named like its tag.
    #[doc(hidden)]
    const __FIELD_NAMES: &'static [&'static str] = &[];

    /// The kinds of a sequence of `Self`; [`WireKind::BYTES`] makes its schema
    /// a base64 string (`crate::schema::sequence`): `u8`'s, so that `Vec<u8>`
    /// is a byte buffer. Never forwarded.
    #[doc(hidden)]
    const __SEQ_KIND: WireKind = WireKind::ARRAY;

    // 3. The store: the handler that stores `Self` unless a handle says
    //    otherwise (`#[codec(handler = ..)]`). A property of the type, not
    //    of its wire shape: never forwarded (a `Box<Self>` is another type
    //    to the store).

    /// The default handler of `Self` in every cache store, set by
    /// `#[codec(handler = ..)]`. An associated item rather than a
    /// registration collected at start-up: the store reads it from the
    /// `put::<T>`/`get::<T>` that needs it, so a linker cannot drop it.
    #[doc(hidden)]
    const __STORE_HANDLER: Option<crate::__store::DefaultHandler> = None;
}

/// The JSON Schema of `T`'s JSON encoding, with the definitions it uses under `$defs`.
pub fn schema_of<T: Schema + ?Sized>() -> Value {
    let generator = schemars::generate::SchemaSettings::draft2020_12().into_generator();
    generator
        .into_root_schema_for::<CodecSchema<T>>()
        .to_value()
}

/// The wire name of `T`: its `#[codec(name = "...")]`, else its Rust name,
/// with a generic type's arguments by their wire names (`Page<Vec<string>>`);
/// for standard types, a name spelled from their schema (`u32`, `string`,
/// `bytes`, `Vec<f64>`... see [`crate::schema::structural_name`]), the same
/// across compiler versions.
pub fn wire_name<T: Schema + ?Sized>() -> Cow<'static, str> {
    T::__wire_name().unwrap_or_else(|| {
        let mut generator = schemars::generate::SchemaSettings::draft2020_12().into_generator();
        Cow::Owned(structural_name(T::json_schema(&mut generator).as_value()))
    })
}

/// Adapts a [`Codec`] type to `schemars::JsonSchema`, so a schemars generator
/// files derived types under `$defs` and inlines the others.
pub struct CodecSchema<T: ?Sized>(PhantomData<T>);

impl<T: Schema + ?Sized> schemars::JsonSchema for CodecSchema<T> {
    fn inline_schema() -> bool {
        T::__wire_name().is_none()
    }

    fn schema_name() -> Cow<'static, str> {
        wire_name::<T>()
    }

    fn schema_id() -> Cow<'static, str> {
        Cow::Owned(format!("codec::{}", std::any::type_name::<T>()))
    }

    fn json_schema(generator: &mut SchemaGenerator) -> schemars::Schema {
        T::json_schema(generator)
    }
}

/// The hidden hooks of groups 1 and 2 of [`Codec`] for a type that is its
/// inner value on the wire (a newtype, `Box`, `Rc`, `Arc`), forwarded to the
/// inner type. The one list of them: the derive's newtypes and the pointer
/// impls both expand it, so none can be left at its default.
/// [`__forward_encode!`] and [`__forward_shape!`] are its twins for
/// [`Encode`] and [`Schema`].
///
/// `wrap` builds `Self` from the inner value:
/// `forward_hooks!(inner: T, wrap: Box::new)`.
#[doc(hidden)]
#[macro_export]
macro_rules! __forward_hooks {
    (inner: $inner:ty, wrap: $wrap:expr $(,)?) => {
        $crate::__forward_hooks!(inner: $inner, wrap: $wrap, decode_json_key: own);

        #[inline]
        fn __decode_json_key(
            r: &mut $crate::__private::JsonReader<'_>,
            key: &str,
        ) -> ::core::result::Result<Self, $crate::__private::DecodeError> {
            <$inner as $crate::__private::Codec>::__decode_json_key(r, key).map($wrap)
        }
    };
    // All but `__decode_json_key`, which the caller writes (a newtype whose
    // field has constraints checks them on keys too).
    (inner: $inner:ty, wrap: $wrap:expr, decode_json_key: own $(,)?) => {
        #[inline]
        fn __decode_msgpack_body(
            r: &mut $crate::__private::MsgpackReader<'_>,
            len: usize,
            tag: &[u8],
        ) -> ::core::result::Result<Self, $crate::__private::DecodeError> {
            <$inner as $crate::__private::Codec>::__decode_msgpack_body(r, len, tag).map($wrap)
        }

        #[inline]
        fn __decode_json_body(
            r: &mut $crate::__private::JsonReader<'_>,
            first: bool,
            tag: &str,
        ) -> ::core::result::Result<Self, $crate::__private::DecodeError> {
            <$inner as $crate::__private::Codec>::__decode_json_body(r, first, tag).map($wrap)
        }
    };
}

/// The hidden hooks of [`Encode`] for a type that is its inner value on the
/// wire (a newtype), forwarded to the inner type: `get` borrows it,
/// `forward_encode!(inner: T, get: |v| &v.0)`.
#[doc(hidden)]
#[macro_export]
macro_rules! __forward_encode {
    (inner: $inner:ty, get: |$v:ident| $get:expr $(,)?) => {
        #[inline]
        fn __map_body_len(&self) -> usize {
            let $v = self;
            <$inner as $crate::__private::Encode>::__map_body_len($get)
        }

        #[inline]
        fn __encode_msgpack_body(
            &self,
            w: &mut $crate::__private::MsgpackWriter,
        ) -> ::core::result::Result<(), $crate::__private::EncodeError> {
            let $v = self;
            <$inner as $crate::__private::Encode>::__encode_msgpack_body($get, w)
        }

        #[inline]
        fn __encode_json_body(
            &self,
            w: &mut $crate::__private::JsonWriter,
        ) -> ::core::result::Result<(), $crate::__private::EncodeError> {
            let $v = self;
            <$inner as $crate::__private::Encode>::__encode_json_body($get, w)
        }

        #[inline]
        fn __encode_json_key(
            &self,
            w: &mut $crate::__private::JsonWriter,
        ) -> ::core::result::Result<(), $crate::__private::EncodeError> {
            let $v = self;
            <$inner as $crate::__private::Encode>::__encode_json_key($get, w)
        }
    };
}

/// The kinds and the map body's facts of [`Schema`] for a type that is its
/// inner value on the wire (a newtype, `Box`, `Rc`, `Arc`), forwarded to the
/// inner type, as [`__forward_hooks!`] forwards its `Codec` hooks.
#[doc(hidden)]
#[macro_export]
macro_rules! __forward_shape {
    (inner: $inner:ty $(,)?) => {
        const KIND: $crate::__private::WireKind = <$inner as $crate::__private::Schema>::KIND;
        const __MAP_BODY: bool = <$inner as $crate::__private::Schema>::__MAP_BODY;
        const __FIELD_NAMES: &'static [&'static str] =
            <$inner as $crate::__private::Schema>::__FIELD_NAMES;
    };
}
