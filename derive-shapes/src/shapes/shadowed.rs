//! Types in a module that shadows the prelude's names and `std`/`core`:
//! generated code must not pick up the user's items.

#![allow(non_camel_case_types, missing_debug_implementations)]

/// Shadows `Result`.
pub struct Result;
/// Shadows `Option`.
pub struct Option;
/// Shadows `Vec`.
pub struct Vec;
/// Shadows `String`.
pub struct String;
/// Shadows `Box`.
pub struct Box;
/// Shadows `Default`.
pub trait Default {}
/// Shadows `Sized`.
pub trait Sized {}
/// Shadows `From`.
pub trait From {}
/// Shadows `Into`.
pub trait Into {}
/// Shadows `ToString`.
pub trait ToString {}
/// Shadows `Clone`.
pub trait Clone {}

/// Shadows `Some`, `None`, `Ok` and `Err`.
pub enum Shadows {
    /// Shadows `Some`.
    Some,
    /// Shadows `None`.
    None,
    /// Shadows `Ok`.
    Ok,
    /// Shadows `Err`.
    Err,
}
pub use Shadows::{Err, None, Ok, Some};

/// Shadows the `std` crate.
pub mod std {}
/// Shadows the `core` crate.
pub mod core {}
/// Shadows the `alloc` crate.
pub mod alloc {}

/// A struct of named fields.
#[derive(codec::Codec, ::core::fmt::Debug, ::core::cmp::PartialEq)]
pub struct Named {
    text: ::std::string::String,
    list: ::std::vec::Vec<::core::option::Option<i64>>,
    boxed: ::std::boxed::Box<u8>,
    #[codec(default)]
    missing: ::std::vec::Vec<u8>,
}

/// A tagged union of every variant style.
#[derive(codec::Codec, ::core::fmt::Debug, ::core::cmp::PartialEq)]
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

/// Integer tags, where decoding errors format the tag.
#[derive(codec::Codec, ::core::fmt::Debug, ::core::cmp::PartialEq)]
pub enum IntTags {
    /// The first.
    #[codec(tag = 1)]
    One,
}

/// An untagged union and a generic parameter.
#[derive(codec::Codec, ::core::fmt::Debug, ::core::cmp::PartialEq)]
#[codec(untagged)]
pub enum Untagged<T> {
    /// A list.
    List(::std::vec::Vec<T>),
    /// Nothing.
    Nil,
}

#[cfg(test)]
mod tests {
    use super::{IntTags, Named, Tagged, Untagged};
    use crate::shapes::roundtrip;

    #[test]
    fn shadowed_names_do_not_reach_generated_code() {
        let named = Named {
            text: "t".into(),
            list: vec![None, Some(2)],
            boxed: Box::new(1),
            missing: vec![],
        };
        let _ = roundtrip(&named);
        let _ = roundtrip(&Tagged::Merged(named));
        let _ = roundtrip(&Tagged::Named { x: 1 });
        let _ = roundtrip(&Tagged::Newtype("n".into()));
        let _ = roundtrip(&Tagged::Tuple(1, 2));
        let _ = roundtrip(&Tagged::Unit);
        let _ = roundtrip(&IntTags::One);
        assert!(codec::from_json::<IntTags>("9").is_err());
        let _ = roundtrip(&Untagged::List(vec![1u8]));
        let _ = roundtrip(&Untagged::<u8>::Nil);
    }
}
