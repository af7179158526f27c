//! `#[codec(serde)]` (feature `serde`): serde's traits generated beside
//! `Codec`, in a module without the prelude, for generic types too.

#![no_implicit_prelude]

/// A struct with serde's traits.
#[derive(::codec::Codec, ::core::fmt::Debug, ::core::cmp::PartialEq)]
#[codec(serde)]
pub struct Plain {
    text: ::std::string::String,
    at: ::core::option::Option<u32>,
}

/// A generic tagged union with a where clause.
#[derive(::codec::Codec, ::core::fmt::Debug, ::core::cmp::PartialEq)]
#[codec(serde, tag = "kind")]
#[allow(missing_docs)] // fields of variants
pub enum Generic<T>
where
    T: ::core::clone::Clone,
{
    /// A struct variant.
    Item { value: T },
    /// A unit variant.
    Nothing,
}

#[cfg(test)]
mod tests {
    use super::{Generic, Plain};
    use ::std::assert_eq;

    #[test]
    fn serde_json_writes_codec_s_json() {
        let plain = Plain {
            text: ::std::string::ToString::to_string("x"),
            at: ::core::option::Option::None,
        };
        let text = crate::shapes::roundtrip(&plain);
        assert_eq!(::serde_json::to_string(&plain).unwrap(), text);
        let item = Generic::Item { value: 3u8 };
        let text = crate::shapes::roundtrip(&item);
        assert_eq!(::serde_json::to_string(&item).unwrap(), text);
        assert_eq!(::serde_json::from_str::<Generic<u8>>(&text).unwrap(), item);
    }
}
