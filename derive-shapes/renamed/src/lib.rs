//! A crate that depends on codec under another name (`kodec`), so `::codec`
//! does not exist here: generated code must reach the runtime only through
//! `#[codec(crate = "...")]`.

#![deny(warnings, missing_docs, unused_qualifications, unreachable_pub)]
#![deny(clippy::all, clippy::pedantic)]
#![forbid(unsafe_code)]

/// The runtime re-exported under a path of this crate, as a library that
/// wraps codec would.
pub mod vendor {
    pub use kodec as codec;
}

/// A struct naming the renamed crate.
#[derive(kodec::Codec, Debug, PartialEq)]
#[codec(crate = "kodec")]
pub struct Renamed {
    text: String,
    #[codec(default)]
    count: u32,
}

/// A tagged union whose newtype variant merges a struct: its const checks
/// name the crate too.
#[allow(missing_docs)] // fields of variants
#[derive(kodec::Codec, Debug, PartialEq)]
#[codec(crate = "::kodec")]
pub enum Tagged {
    /// Merges `Renamed` after the tag.
    Merged(Renamed),
    /// A struct variant.
    Named { n: i8 },
}

/// A generic untagged union, checked where it is used.
#[derive(kodec::Codec, Debug, PartialEq)]
#[codec(crate = "crate::vendor::codec", untagged)]
pub enum Untagged<T> {
    /// A list.
    List(Vec<T>),
    /// A number.
    Number(f64),
}

/// A unit-only enum through the re-exported path.
#[derive(vendor::codec::Codec, Debug, PartialEq)]
#[codec(crate = "self::vendor::codec")]
pub enum Unit {
    /// One.
    A,
}

/// A memoized function naming the renamed crate.
///
/// # Errors
/// The cache's.
#[kodec::memoize(cache = cache, ignore(cache), crate = "kodec")]
pub fn shout(cache: &kodec::Cache, text: &str) -> Result<String, kodec::StoreError> {
    Ok(text.to_uppercase())
}

#[cfg(test)]
mod tests {
    use super::{shout, Renamed, Tagged, Unit, Untagged};

    #[test]
    fn a_memoized_function_finds_the_renamed_crate() {
        let dir = std::env::temp_dir().join(format!("codec-shapes-renamed-{}", std::process::id()));
        let cache = kodec::Cache::open(&dir).unwrap();
        assert_eq!(shout(&cache, "hi").unwrap(), "HI");
        assert_eq!(shout(&cache, "hi").unwrap(), "HI");
        assert_eq!(cache.len().unwrap(), 1);
        drop(cache);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[track_caller]
    fn roundtrip<T: kodec::Codec + PartialEq + std::fmt::Debug>(value: &T) -> String {
        let bytes = kodec::to_msgpack(value).unwrap();
        assert_eq!(&kodec::from_msgpack::<T>(&bytes).unwrap(), value);
        let text = kodec::to_json(value).unwrap();
        assert_eq!(&kodec::from_json::<T>(&text).unwrap(), value);
        text
    }

    #[test]
    fn the_renamed_crate_is_used_everywhere() {
        let r = Renamed {
            text: "t".into(),
            count: 1,
        };
        assert_eq!(roundtrip(&r), r#"{"text":"t","count":1}"#);
        assert_eq!(
            roundtrip(&Tagged::Merged(r)),
            r#"{"type":"Merged","text":"t","count":1}"#
        );
        let _ = roundtrip(&Tagged::Named { n: 1 });
        let _ = roundtrip(&Untagged::List(vec![1u8]));
        let _ = roundtrip(&Untagged::<u8>::Number(1.5));
        assert_eq!(roundtrip(&Unit::A), r#""A""#);
        assert!(kodec::schema_of::<Tagged>().to_string().contains("Merged"));
    }
}
