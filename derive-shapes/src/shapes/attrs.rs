//! Attributes around the derive: docs, `cfg`, `cfg_attr`, `deprecated`,
//! `non_exhaustive`, `repr`, other derives, visibilities, and the derive's
//! own attributes in their less common forms.

/// Docs on the type, fields and variants are attributes the derive ignores.
#[derive(codec::Codec, Debug, PartialEq)]
pub struct Documented {
    /// A documented field.
    #[doc = "with a second doc attribute"]
    pub field: u8,
}

/// Fields and attributes behind `cfg` and `cfg_attr`.
#[derive(codec::Codec, Debug, PartialEq)]
#[cfg_attr(all(), codec(rename_all = "SCREAMING_SNAKE_CASE"))]
pub struct Configured {
    #[cfg(any())]
    compiled_out: NoSuchType,
    #[cfg_attr(all(), codec(rename = "kept"))]
    kept_field: u8,
    #[cfg_attr(any(), codec(rename = "never"))]
    other_field: u8,
}

/// A deprecated type with deprecated fields and variants.
#[deprecated = "shapes must compile even so"]
#[derive(codec::Codec, Debug, PartialEq)]
pub struct Deprecated {
    #[deprecated]
    /// A deprecated field.
    pub old: u8,
}

/// A union with a deprecated variant and field.
#[derive(codec::Codec, Debug, PartialEq)]
pub enum WithDeprecatedVariant {
    /// A deprecated variant.
    #[deprecated]
    Old {
        /// A deprecated field.
        #[deprecated]
        field: u8,
    },
    /// A current variant.
    New,
}

/// A `non_exhaustive` struct and enum.
#[non_exhaustive]
#[derive(codec::Codec, Debug, PartialEq)]
pub struct NonExhaustive {
    /// A field.
    pub a: u8,
}

/// A `non_exhaustive` enum with a `non_exhaustive` variant.
#[non_exhaustive]
#[derive(codec::Codec, Debug, PartialEq)]
pub enum NonExhaustiveEnum {
    /// A variant.
    #[non_exhaustive]
    A {
        /// A field.
        a: u8,
    },
}

/// Explicit discriminants and a `repr`: the wire has the names.
#[repr(u8)]
#[derive(codec::Codec, Debug, PartialEq, Clone, Copy)]
pub enum Discriminants {
    /// One.
    A = 1,
    /// Ten.
    B = 10,
}

/// Many derives around this one, in any order.
#[derive(Clone, Default, codec::Codec, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ManyDerives {
    pub(crate) a: u8,
    pub(super) b: String,
    pub(in crate::shapes) c: Vec<u8>,
}

/// An empty struct with braces, and one with parentheses.
#[derive(codec::Codec, Debug, PartialEq)]
pub struct EmptyBraces {}

/// An empty tuple struct.
#[derive(codec::Codec, Debug, PartialEq)]
pub struct EmptyParens();

/// A single-variant enum.
#[derive(codec::Codec, Debug, PartialEq)]
pub enum Single {
    /// The only variant.
    Only(u8),
}

/// Every field and variant attribute, at once.
#[derive(codec::Codec, Debug, PartialEq)]
#[codec(
    name = "attrs.Everything",
    alias = "Everything",
    version = 2,
    deny_unknown_fields
)]
pub struct Everything {
    #[codec(rename = "n", alias = "number", alias = "num")]
    number: i32,
    #[codec(default = "default_label")]
    label: String,
    #[codec(skip)]
    cache: Option<u8>,
    #[codec(default)]
    list: Vec<u16>,
    mode: Mode,
}

fn default_label() -> String {
    "none".into()
}

/// Variant renames, aliases, `rename_all` and a custom tag and content.
#[derive(codec::Codec, Debug, PartialEq)]
#[codec(tag = "t", content = "c", rename_all = "kebab-case")]
#[allow(missing_docs)] // fields of variants
pub enum Mode {
    /// Renamed fields inside.
    #[codec(rename_all = "camelCase", alias = "fast")]
    FastMode { max_speed: u8 },
    /// A newtype with content.
    SlowMode(u8),
    /// A renamed variant.
    #[codec(rename = "other")]
    Other,
}

/// Array-like structs with trailing defaults.
#[derive(codec::Codec, Debug, PartialEq)]
#[codec(array_like)]
pub struct ArrayLike {
    a: u8,
    #[codec(default)]
    b: u8,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shapes::roundtrip;

    #[test]
    fn attributes_around_the_derive() {
        let _ = roundtrip(&Documented { field: 1 });
        assert_eq!(
            roundtrip(&Configured {
                kept_field: 1,
                other_field: 2
            }),
            r#"{"kept":1,"OTHER_FIELD":2}"#
        );
        #[allow(deprecated)]
        let _ = roundtrip(&Deprecated { old: 1 });
        #[allow(deprecated)]
        let _ = roundtrip(&WithDeprecatedVariant::Old { field: 1 });
        let _ = roundtrip(&WithDeprecatedVariant::New);
        let _ = roundtrip(&NonExhaustive { a: 1 });
        let _ = roundtrip(&NonExhaustiveEnum::A { a: 1 });
        assert_eq!(roundtrip(&Discriminants::B), r#""B""#);
        let _ = roundtrip(&ManyDerives {
            a: 1,
            b: "b".into(),
            c: vec![1],
        });
        assert_eq!(roundtrip(&EmptyBraces {}), "{}");
        assert_eq!(roundtrip(&EmptyParens()), "[]");
        let _ = roundtrip(&Single::Only(1));
    }

    #[test]
    fn the_derive_attributes_in_their_less_common_forms() {
        let e = Everything {
            number: 1,
            label: "l".into(),
            cache: None,
            list: vec![],
            mode: Mode::FastMode { max_speed: 3 },
        };
        assert_eq!(
            roundtrip(&e),
            r#"{"n":1,"label":"l","list":[],"mode":{"t":"fast-mode","maxSpeed":3}}"#
        );
        let old: Everything =
            codec::from_json(r#"{"num":2,"mode":{"t":"fast","maxSpeed":1}}"#).unwrap();
        assert_eq!(old.label, "none");
        assert_eq!(roundtrip(&Mode::SlowMode(2)), r#"{"t":"slow-mode","c":2}"#);
        assert_eq!(roundtrip(&Mode::Other), r#"{"t":"other"}"#);
        assert_eq!(roundtrip(&ArrayLike { a: 1, b: 2 }), "[1,2]");
        assert_eq!(
            codec::from_json::<ArrayLike>("[1]").unwrap(),
            ArrayLike { a: 1, b: 0 }
        );
    }
}
