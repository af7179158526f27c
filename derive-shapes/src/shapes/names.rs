//! Names that could collide with what the derive generates: raw identifiers,
//! fields named like its locals, types named like the trait, the crate or
//! the runtime's items, and derives inside function bodies.

/// Raw identifiers as fields: the wire name has no `r#`.
#[derive(codec::Codec, Debug, PartialEq)]
pub struct RawFields {
    r#type: String,
    r#match: u8,
    r#fn: bool,
}

/// Raw identifiers as variants and as their fields.
#[allow(non_camel_case_types)]
#[derive(codec::Codec, Debug, PartialEq)]
#[codec(tag = "kind")]
#[allow(missing_docs)] // fields of variants
pub enum RawVariants {
    /// A variant named by a keyword.
    r#enum { r#type: u8 },
    /// Another.
    r#loop(i8),
    /// A unit variant.
    r#struct,
}

/// Fields named like every local the generated code binds, and its hooks.
#[allow(clippy::struct_field_names)]
#[derive(codec::Codec, Debug, PartialEq)]
pub struct FieldsNamedLikeLocals {
    __w: u8,
    __r: u8,
    __g: u8,
    __e: u8,
    __t: u8,
    __k: u8,
    __v: u8,
    __v0: u8,
    __f0: u8,
    __len: u8,
    __tag: u8,
    __key: u8,
    __first: u8,
    __start: u8,
    __value: u8,
    __other: u8,
    __done: u8,
    __found: u8,
    __index: u8,
    __variant: u8,
    __body: u8,
    __map_len: u8,
    __payload: u8,
    __schema: u8,
    __kinds: u8,
    __named: u8,
    __ordered: u8,
    __variant_index: u8,
    __self: u8,
    __open: u8,
    __private: u8,
    __map_body_len: u8,
    __subschema: u8,
    __wire_name: u8,
}

/// Variants whose fields are named like the bindings of generated matches.
#[derive(codec::Codec, Debug, PartialEq)]
#[allow(missing_docs)] // fields of variants
pub enum VariantFieldsNamedLikeLocals {
    /// Fields named like the pattern bindings, in another order.
    Swapped { __f1: u8, __f0: u8, __w: u8 },
    /// Fields named like the decoder's locals.
    Decoder {
        __r: u8,
        __len: u8,
        __tag: u8,
        __first: u8,
    },
}

/// A type named like the trait it derives.
#[derive(codec::Codec, Debug, PartialEq)]
pub struct Codec {
    codec: u8,
}

/// Types named like the crate and the runtime's items, in their own module.
pub mod crate_like {
    /// A type named like the crate: the derive is named by its full path.
    #[allow(non_camel_case_types)]
    #[derive(::codec::Codec, Debug, PartialEq)]
    pub struct codec {
        /// A field.
        pub value: u8,
    }

    /// Named like the writer.
    #[derive(::codec::Codec, Debug, PartialEq)]
    pub struct MsgpackWriter(pub u8);
    /// Named like the reader.
    #[derive(::codec::Codec, Debug, PartialEq)]
    pub struct JsonReader(pub u8);
    /// Named like the error.
    #[derive(::codec::Codec, Debug, PartialEq)]
    pub struct DecodeError {
        /// A field named like the type.
        pub decode_error: u8,
    }
    /// Named like the kind of a wire value, holding the others.
    #[derive(::codec::Codec, Debug, PartialEq)]
    pub enum WireKind {
        /// Holds a writer.
        W(MsgpackWriter),
        /// Holds a reader.
        R(JsonReader),
        /// Holds an error.
        E(DecodeError),
        /// Holds the type named like the crate.
        C(codec),
    }
}

/// Non-ASCII identifiers: the wire names keep them.
#[derive(codec::Codec, Debug, PartialEq)]
pub struct Größe {
    länge: u32,
    breite: u32,
}

/// Returns a value's JSON through a type declared inside the function body.
///
/// # Panics
///
/// If the value does not round-trip.
#[must_use]
pub fn declared_in_a_function(n: i64) -> String {
    #[derive(codec::Codec, Debug, PartialEq)]
    struct Local {
        n: i64,
        inner: Inner,
    }

    #[derive(codec::Codec, Debug, PartialEq)]
    enum Inner {
        A,
        B(String),
    }

    let local = Local {
        n,
        inner: Inner::B("b".into()),
    };
    let text = codec::to_json(&local).expect("encodes");
    let back: Local = codec::from_json(&text).expect("decodes");
    assert_eq!(back, local);
    assert_eq!(
        codec::from_json::<Inner>(r#"{"type":"A"}"#).ok(),
        Some(Inner::A)
    );
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shapes::roundtrip;

    #[test]
    fn raw_identifiers_lose_their_prefix_on_the_wire() {
        let raw = RawFields {
            r#type: "t".into(),
            r#match: 1,
            r#fn: true,
        };
        assert_eq!(roundtrip(&raw), r#"{"type":"t","match":1,"fn":true}"#);
        assert_eq!(
            roundtrip(&RawVariants::r#enum { r#type: 2 }),
            r#"{"kind":"enum","type":2}"#
        );
        assert_eq!(
            roundtrip(&RawVariants::r#loop(-1)),
            r#"{"kind":"loop","value":-1}"#
        );
        assert_eq!(roundtrip(&RawVariants::r#struct), r#"{"kind":"struct"}"#);
    }

    #[test]
    fn fields_named_like_locals() {
        let f = FieldsNamedLikeLocals {
            __w: 1,
            __r: 2,
            __g: 3,
            __e: 4,
            __t: 5,
            __k: 6,
            __v: 7,
            __v0: 8,
            __f0: 9,
            __len: 10,
            __tag: 11,
            __key: 12,
            __first: 13,
            __start: 14,
            __value: 15,
            __other: 16,
            __done: 17,
            __found: 18,
            __index: 19,
            __variant: 20,
            __body: 21,
            __map_len: 22,
            __payload: 23,
            __schema: 24,
            __kinds: 25,
            __named: 26,
            __ordered: 27,
            __variant_index: 28,
            __self: 29,
            __open: 30,
            __private: 31,
            __map_body_len: 32,
            __subschema: 33,
            __wire_name: 34,
        };
        let text = roundtrip(&f);
        assert!(text.starts_with(r#"{"__w":1,"__r":2,"#), "{}", text);
        let swapped = VariantFieldsNamedLikeLocals::Swapped {
            __f1: 1,
            __f0: 2,
            __w: 3,
        };
        assert_eq!(
            roundtrip(&swapped),
            r#"{"type":"Swapped","__f1":1,"__f0":2,"__w":3}"#
        );
        let decoder = VariantFieldsNamedLikeLocals::Decoder {
            __r: 1,
            __len: 2,
            __tag: 3,
            __first: 4,
        };
        let _ = roundtrip(&decoder);
    }

    #[test]
    fn types_named_like_the_trait_the_crate_and_the_runtime() {
        use crate_like::codec;
        use crate_like::{DecodeError, JsonReader, MsgpackWriter, WireKind};
        let _ = roundtrip(&Codec { codec: 1 });
        for w in [
            WireKind::W(MsgpackWriter(1)),
            WireKind::R(JsonReader(2)),
            WireKind::E(DecodeError { decode_error: 3 }),
            WireKind::C(codec { value: 4 }),
        ] {
            let _ = roundtrip(&w);
        }
    }

    #[test]
    fn non_ascii_and_function_local_types() {
        assert_eq!(
            roundtrip(&Größe {
                länge: 1,
                breite: 2
            }),
            r#"{"länge":1,"breite":2}"#
        );
        assert_eq!(
            declared_in_a_function(3),
            r#"{"n":3,"inner":{"type":"B","value":"b"}}"#
        );
    }
}
