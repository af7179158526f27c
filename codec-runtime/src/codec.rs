//! The [`Codec`] trait and the wire kinds of values.

use crate::error::{DecodeError, EncodeError};
use crate::json::{JsonReader, JsonWriter};
use crate::msgpack::{MsgpackReader, MsgpackWriter};

/// A set of wire kinds: what a type's encoding can start with.
///
/// Untagged unions use it to tell their variants apart, and tagged unions to
/// decide whether a newtype variant's payload merges into the tagged map.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct WireKind(u16);

impl WireKind {
    /// No kind (the reserved MessagePack marker, invalid JSON).
    pub const NONE: WireKind = WireKind(0);
    /// `nil` / `null`.
    pub const NIL: WireKind = WireKind(1);
    /// `true` / `false`.
    pub const BOOL: WireKind = WireKind(1 << 1);
    /// An integer.
    pub const INT: WireKind = WireKind(1 << 2);
    /// A float.
    pub const FLOAT: WireKind = WireKind(1 << 3);
    /// A string (and string-like values: chars, unit enums, uuids, durations).
    pub const STR: WireKind = WireKind(1 << 4);
    /// A byte buffer (MessagePack `bin`, a base64 string in JSON).
    pub const BYTES: WireKind = WireKind(1 << 5);
    /// An array (sequences, tuples, sets, tuple structs, `array_like` structs).
    pub const ARRAY: WireKind = WireKind(1 << 6);
    /// A map (structs, maps, tagged unions).
    pub const MAP: WireKind = WireKind(1 << 7);
    /// A MessagePack extension (timestamps).
    pub const EXT: WireKind = WireKind(1 << 8);
    /// Any kind: a foreign type whose encoding codec cannot see.
    pub const ANY: WireKind = WireKind(0x1ff);

    /// Both sets.
    pub const fn union(self, other: WireKind) -> WireKind {
        WireKind(self.0 | other.0)
    }

    /// Whether the two sets share a kind.
    pub const fn overlaps(self, other: WireKind) -> bool {
        self.0 & other.0 != 0
    }

    /// Whether every kind of `other` is in `self`.
    pub const fn contains(self, other: WireKind) -> bool {
        self.0 & other.0 == other.0
    }

    /// Whether the set is exactly `other`.
    pub const fn is(self, other: WireKind) -> bool {
        self.0 == other.0
    }

    /// The kinds in both sets.
    pub const fn intersection(self, other: WireKind) -> WireKind {
        WireKind(self.0 & other.0)
    }

    /// The kinds as they appear in JSON, where bytes (base64) and timestamps
    /// (RFC 3339) are strings: the set untagged unions must keep apart.
    pub const fn in_json(self) -> WireKind {
        if self.overlaps(WireKind(WireKind::BYTES.0 | WireKind::EXT.0)) {
            WireKind(self.0 | WireKind::STR.0)
        } else {
            self
        }
    }

    const NAMES: [(WireKind, &'static str); 9] = [
        (WireKind::NIL, "nil"),
        (WireKind::BOOL, "bool"),
        (WireKind::INT, "int"),
        (WireKind::FLOAT, "float"),
        (WireKind::STR, "string-like"),
        (WireKind::BYTES, "bytes"),
        (WireKind::ARRAY, "array-like"),
        (WireKind::MAP, "map-like"),
        (WireKind::EXT, "extension"),
    ];
}

impl std::fmt::Display for WireKind {
    /// The kinds in words: `int or float`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.is(WireKind::ANY) {
            return f.write_str("any kind");
        }
        let mut first = true;
        for (kind, name) in WireKind::NAMES {
            if self.overlaps(kind) {
                if !first {
                    f.write_str(" or ")?;
                }
                f.write_str(name)?;
                first = false;
            }
        }
        if first {
            f.write_str("no kind")?;
        }
        Ok(())
    }
}

/// A type with a MessagePack and a JSON encoding.
///
/// Derive it with `#[derive(Codec)]`; the crate implements it for the standard
/// types. Use [`crate::to_msgpack`], [`crate::from_msgpack`], [`crate::to_json`]
/// and [`crate::from_json`] rather than calling the methods directly.
///
/// The methods whose names start with `__` are hooks for generated code and
/// container impls: not part of the stable interface.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no codec encoding",
    label = "`{Self}` does not implement `Codec`",
    note = "add #[derive(Codec)] to `{Self}`; for a foreign type with serde support, use `codec::Serde<{Self}>` or #[codec(with = \"codec::serde_bridge\")] (feature `serde`; the type also needs `schemars::JsonSchema`, which schemars' features give common crates: `url2`, `uuid1`, `chrono04`, `bytes1`, `indexmap2`, ...)"
)]
pub trait Codec: Sized {
    /// The kinds this type's encoding can start with.
    const KIND: WireKind;

    /// Appends the MessagePack encoding of `self`.
    fn encode_msgpack(&self, w: &mut MsgpackWriter) -> Result<(), EncodeError>;

    /// Reads one value from MessagePack.
    fn decode_msgpack(r: &mut MsgpackReader<'_>) -> Result<Self, DecodeError>;

    /// Appends the JSON encoding of `self`.
    fn encode_json(&self, w: &mut JsonWriter) -> Result<(), EncodeError>;

    /// Reads one value from JSON.
    fn decode_json(r: &mut JsonReader<'_>) -> Result<Self, DecodeError>;

    /// The JSON Schema (draft 2020-12) of this type's JSON encoding. Schemas of
    /// inner values come from [`crate::schema::subschema`], so derived types
    /// land in the generator's `$defs`.
    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema;

    /// The schema of `Self` inside another schema: [`crate::schema::subschema`].
    #[doc(hidden)]
    fn __subschema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        crate::schema::subschema::<Self>(generator)
    }

    /// The stable wire name of a derived type (`#[codec(name = "...")]` or its
    /// Rust name); `None` for the standard types, whose schemas are inlined.
    #[doc(hidden)]
    fn __wire_name() -> Option<std::borrow::Cow<'static, str>> {
        None
    }

    /// Former wire names of the type (`#[codec(alias = "...")]` on the type).
    #[doc(hidden)]
    const __WIRE_ALIASES: &'static [&'static str] = &[];

    /// True for types that encode as a map of named fields, which a tagged
    /// union's newtype variant merges after its tag.
    #[doc(hidden)]
    const __MAP_BODY: bool = false;

    /// The keys a map-body type accepts (wire names and aliases), so a tagged
    /// union can refuse at compile time a payload with a field named like its tag.
    #[doc(hidden)]
    const __FIELD_NAMES: &'static [&'static str] = &[];

    /// The number of map entries [`Self::__encode_msgpack_body`] writes.
    #[doc(hidden)]
    fn __map_body_len(&self) -> usize {
        0
    }

    /// Writes the map entries of `self` without the map header.
    #[doc(hidden)]
    fn __encode_msgpack_body(&self, _w: &mut MsgpackWriter) -> Result<(), EncodeError> {
        Ok(())
    }

    /// Reads `len` map entries, ignoring the entry whose key is `tag`.
    #[doc(hidden)]
    fn __decode_msgpack_body(
        r: &mut MsgpackReader<'_>,
        _len: usize,
        _tag: &[u8],
    ) -> Result<Self, DecodeError> {
        Err(r.unexpected("a struct that merges into a tagged union"))
    }

    /// Writes `,"key":value` for each entry of `self`.
    #[doc(hidden)]
    fn __encode_json_body(&self, _w: &mut JsonWriter) -> Result<(), EncodeError> {
        Ok(())
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

    /// Encodes a slice of `Self` (bytes override this to write `bin`).
    #[doc(hidden)]
    fn __encode_msgpack_slice(items: &[Self], w: &mut MsgpackWriter) -> Result<(), EncodeError> {
        w.write_array_len(items.len())?;
        for item in items {
            item.encode_msgpack(w)?;
        }
        Ok(())
    }

    /// Decodes a sequence of `Self` (bytes override this to read `bin`).
    #[doc(hidden)]
    fn __decode_msgpack_vec(r: &mut MsgpackReader<'_>) -> Result<Vec<Self>, DecodeError> {
        let len = r.read_array_len()?;
        r.enter()?;
        let mut out = Vec::with_capacity(r.capacity_hint(len));
        for i in 0..len {
            out.push(Self::decode_msgpack(r).map_err(|e| e.in_index(i))?);
        }
        r.leave();
        Ok(out)
    }

    /// Encodes a slice of `Self` as JSON (bytes override this to write base64).
    #[doc(hidden)]
    fn __encode_json_slice(items: &[Self], w: &mut JsonWriter) -> Result<(), EncodeError> {
        w.write_byte(b'[');
        for (i, item) in items.iter().enumerate() {
            if i > 0 {
                w.write_byte(b',');
            }
            item.encode_json(w)?;
        }
        w.write_byte(b']');
        Ok(())
    }

    /// Decodes a JSON sequence of `Self` (bytes override this to read base64).
    #[doc(hidden)]
    fn __decode_json_vec(r: &mut JsonReader<'_>) -> Result<Vec<Self>, DecodeError> {
        r.begin_array()?;
        let mut out = Vec::new();
        let mut first = true;
        while r.next_element(&mut first)? {
            out.push(Self::decode_json(r).map_err(|e| e.in_index(out.len()))?);
        }
        Ok(out)
    }

    /// The schema of a sequence of `Self` (bytes override this: a base64 string).
    #[doc(hidden)]
    fn __seq_schema(
        generator: &mut schemars::SchemaGenerator,
        len: Option<usize>,
    ) -> schemars::Schema {
        crate::schema::array(crate::schema::subschema::<Self>(generator), false, len)
    }

    /// The kinds of a sequence of `Self` (bytes override this).
    #[doc(hidden)]
    const __SEQ_KIND: WireKind = WireKind::ARRAY;

    /// Writes `self` as a JSON object key, quoted. Only strings, integers and
    /// string-like types can be keys.
    #[doc(hidden)]
    fn __encode_json_key(&self, _w: &mut JsonWriter) -> Result<(), EncodeError> {
        Err(EncodeError::UnsupportedKey {
            type_name: std::any::type_name::<Self>(),
        })
    }

    /// Reads `Self` from a JSON object key.
    #[doc(hidden)]
    fn __decode_json_key(r: &mut JsonReader<'_>, _key: &str) -> Result<Self, DecodeError> {
        Err(r.error(crate::DecodeErrorKind::InvalidType {
            expected: std::any::type_name::<Self>().into(),
            found: "an object key (JSON keys are strings)".into(),
        }))
    }
}
