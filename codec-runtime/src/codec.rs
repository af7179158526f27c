//! The [`Codec`] and [`Schema`] traits, and how schemars sees a type with a
//! schema: its wire name, and `$defs` for derived types.

use crate::decode::Decode;
use crate::encode::Encode;
use crate::kind::WireKind;
use crate::name::structural_name;

use std::borrow::Cow;
use std::marker::PhantomData;

use schemars::SchemaGenerator;
use serde_json::Value;

/// A type with a MessagePack and a JSON encoding that can be kept: the sum
/// of [`Encode`], [`Decode`] for input of any lifetime (an owned value,
/// as serde's `DeserializeOwned`) and [`Schema`].
///
/// Derive it with `#[derive(Codec)]`, which writes the three; the crate
/// implements them for the standard types. A type implemented by hand
/// writes the three (see the `by_hand` example), and is `Codec` by the
/// blanket impl: no type implements `Codec` itself. Use
/// [`crate::to_msgpack`], [`crate::from_msgpack`], [`crate::to_json`] and
/// [`crate::from_json`] rather than calling the methods directly.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no codec encoding",
    label = "`{Self}` does not implement `Codec`",
    note = "a type of this crate: add #[derive(codec::Codec)] to `{Self}`; of uuid, chrono, rust_decimal, ndarray, num-complex or arrow: enable codec's feature of that name (`decimal` for rust_decimal); of another crate, with serde support: `codec::Serde<{Self}>` (feature `serde`, and schemars' `JsonSchema`)"
)]
pub trait Codec: Encode + for<'de> Decode<'de> + Schema {}

/// Every type with the three traits is `Codec`: no type implements it by
/// hand. Not looked through in diagnostics: where a `Codec` is needed
/// (`get::<T>`), a type without the three is told `Codec`'s fixes, once.
#[diagnostic::do_not_recommend]
impl<T: Encode + for<'de> Decode<'de> + Schema> Codec for T {}

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
    note = "a type of this crate: add #[derive(codec::Codec)] to `{Self}`; of uuid, chrono, rust_decimal, ndarray, num-complex or arrow: enable codec's feature of that name (`decimal` for rust_decimal)"
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

/// The hidden hooks of groups 1 and 2 of [`Decode`] for a type that is its
/// inner value on the wire (a newtype, `Box`, `Rc`, `Arc`), forwarded to the
/// inner type. The one list of them: the derive's newtypes and the pointer
/// impls both expand it, so none can be left at its default.
/// [`__forward_encode!`] and [`__forward_shape!`] are its twins for
/// [`Encode`] and [`Schema`].
///
/// `wrap` builds `Self` from the inner value, `'de` is the impl's input
/// lifetime: `forward_decode!(inner: T, wrap: Box::new, de: 'de)`.
#[doc(hidden)]
#[macro_export]
macro_rules! __forward_decode {
    (inner: $inner:ty, wrap: $wrap:expr, de: $de:lifetime $(,)?) => {
        $crate::__forward_decode!(inner: $inner, wrap: $wrap, de: $de, decode_json_key: own);

        #[inline]
        fn __decode_json_key(
            r: &mut $crate::__private::JsonReader<$de>,
            key: $crate::__private::Cow<$de, str>,
        ) -> ::core::result::Result<Self, $crate::__private::DecodeError> {
            <$inner as $crate::__private::Decode<$de>>::__decode_json_key(r, key).map($wrap)
        }
    };
    // All but `__decode_json_key`, which the caller writes (a newtype whose
    // field has constraints checks them on keys too).
    (inner: $inner:ty, wrap: $wrap:expr, de: $de:lifetime, decode_json_key: own $(,)?) => {
        #[inline]
        fn __decode_msgpack_body(
            r: &mut $crate::__private::MsgpackReader<$de>,
            len: usize,
            tag: &[u8],
        ) -> ::core::result::Result<Self, $crate::__private::DecodeError> {
            <$inner as $crate::__private::Decode<$de>>::__decode_msgpack_body(r, len, tag)
                .map($wrap)
        }

        #[inline]
        fn __decode_json_body(
            r: &mut $crate::__private::JsonReader<$de>,
            first: bool,
            tag: &str,
        ) -> ::core::result::Result<Self, $crate::__private::DecodeError> {
            <$inner as $crate::__private::Decode<$de>>::__decode_json_body(r, first, tag)
                .map($wrap)
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
/// inner type, as [`__forward_decode!`] forwards its `Decode` hooks.
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
