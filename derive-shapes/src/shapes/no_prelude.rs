//! Types in a module without the standard prelude: generated code names
//! every item by its full path.

#![no_implicit_prelude]

/// A struct of named fields.
#[derive(::codec::Codec, ::core::fmt::Debug, ::core::cmp::PartialEq)]
pub struct Named {
    text: ::std::string::String,
    list: ::std::vec::Vec<::core::option::Option<i64>>,
    #[codec(default)]
    extra: u8,
}

/// A tagged union of every variant style, with string tags.
#[derive(::codec::Codec, ::core::fmt::Debug, ::core::cmp::PartialEq)]
#[allow(missing_docs)] // fields of variants
pub enum Tagged {
    /// A struct variant.
    Named { x: i64 },
    /// A newtype variant holding a struct, merged after the tag.
    Merged(Named),
    /// A newtype variant.
    Newtype(::std::string::String),
    /// A tuple variant.
    Tuple(u8, u8),
    /// A unit variant.
    Unit,
}

/// A unit-only enum with integer tags, usable as a map key.
#[derive(
    ::codec::Codec,
    ::core::fmt::Debug,
    ::core::cmp::PartialEq,
    ::core::cmp::Eq,
    ::core::cmp::PartialOrd,
    ::core::cmp::Ord,
    ::core::clone::Clone,
    ::core::marker::Copy,
)]
pub enum IntTags {
    /// The first.
    #[codec(tag = 1)]
    One,
    /// The second.
    #[codec(tag = 2)]
    Two,
}

/// A unit-only enum with string tags.
#[derive(::codec::Codec, ::core::fmt::Debug, ::core::cmp::PartialEq)]
pub enum StrTags {
    /// The first.
    A,
    /// The second.
    B,
}

/// An untagged union.
#[derive(::codec::Codec, ::core::fmt::Debug, ::core::cmp::PartialEq)]
#[codec(untagged)]
#[allow(missing_docs)] // fields of variants
pub enum Untagged {
    /// An integer.
    Int(i64),
    /// A string.
    Text(::std::string::String),
    /// A map.
    Map { key: bool },
}

/// A union written as arrays.
#[derive(::codec::Codec, ::core::fmt::Debug, ::core::cmp::PartialEq)]
#[codec(array_like)]
#[allow(missing_docs)] // fields of variants
pub enum Arrays {
    /// A struct variant.
    A {
        x: i8,
        #[codec(default)]
        y: i8,
    },
    /// A unit variant.
    B,
}

/// A generic newtype holding a map keyed by an enum.
#[derive(::codec::Codec, ::core::fmt::Debug, ::core::cmp::PartialEq)]
pub struct Keyed<T>(::std::collections::BTreeMap<IntTags, T>);

/// A struct taking missing fields from its `Default`, with a tuple and unit struct inside.
#[derive(::codec::Codec, ::core::fmt::Debug, ::core::cmp::PartialEq, ::core::default::Default)]
#[codec(default)]
pub struct Defaults {
    pair: Pair,
    unit: Unit,
}

/// A tuple struct.
#[derive(::codec::Codec, ::core::fmt::Debug, ::core::cmp::PartialEq, ::core::default::Default)]
pub struct Pair(u8, ::std::string::String);

/// A unit struct.
#[derive(::codec::Codec, ::core::fmt::Debug, ::core::cmp::PartialEq, ::core::default::Default)]
pub struct Unit;

/// A named, versioned type: it registers itself for the drift check.
#[derive(::codec::Codec, ::core::fmt::Debug, ::core::cmp::PartialEq)]
#[codec(name = "no_prelude.Registered", version = 1)]
pub struct Registered {
    value: ::std::option::Option<u8>,
}

#[cfg(test)]
mod tests {
    use ::std::prelude::rust_2021::*;

    use super::*;
    use crate::shapes::roundtrip;

    #[test]
    fn every_shape_round_trips_without_the_prelude() {
        let named = Named {
            text: "t".into(),
            list: vec![None, Some(1)],
            extra: 0,
        };
        let _ = roundtrip(&named);
        for t in [
            Tagged::Named { x: 1 },
            Tagged::Merged(Named {
                text: "m".into(),
                list: vec![],
                extra: 2,
            }),
            Tagged::Newtype("n".into()),
            Tagged::Tuple(1, 2),
            Tagged::Unit,
        ] {
            let _ = roundtrip(&t);
        }
        assert_eq!(roundtrip(&IntTags::Two), "2");
        assert_eq!(roundtrip(&StrTags::B), r#""B""#);
        for u in [
            Untagged::Int(3),
            Untagged::Text("x".into()),
            Untagged::Map { key: true },
        ] {
            let _ = roundtrip(&u);
        }
        assert_eq!(roundtrip(&Arrays::A { x: 1, y: 2 }), r#"["A",1,2]"#);
        let _ = roundtrip(&Arrays::B);
        let keyed = Keyed(::std::collections::BTreeMap::from([(
            IntTags::One,
            "a".to_string(),
        )]));
        assert_eq!(roundtrip(&keyed), r#"{"1":"a"}"#);
        let _ = roundtrip(&Defaults {
            pair: Pair(1, "p".into()),
            unit: Unit,
        });
    }

    #[test]
    fn errors_are_built_without_the_prelude() {
        let unknown = ::codec::from_json::<StrTags>(r#""C""#).unwrap_err();
        assert!(unknown.to_string().contains('C'), "{}", unknown);
        let unknown = ::codec::from_json::<IntTags>("3").unwrap_err();
        assert!(unknown.to_string().contains('3'), "{}", unknown);
        let schema = ::codec::schema_of::<Tagged>();
        assert!(schema.to_string().contains("Merged"), "{}", schema);
    }
}
