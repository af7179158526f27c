//! Types declared by `macro_rules!`: names, fields, variants and attributes
//! arrive as macro fragments, whose tokens carry the macro's hygiene.

/// Fields passed as `tt`.
macro_rules! record {
    ($(#[$doc:meta])* $name:ident { $($f:tt)* }) => {
        $(#[$doc])*
        #[derive(codec::Codec, Debug, PartialEq)]
        pub struct $name { $($f)* }
    };
}

record!(
    /// Fields passed as token trees.
    FromTokenTrees { a: i64, b: Vec<String> }
);

/// Variants passed as `tt`.
macro_rules! choice {
    ($(#[$doc:meta])* $name:ident { $($v:tt)* }) => {
        $(#[$doc])*
        #[derive(codec::Codec, Debug, PartialEq)]
        #[allow(missing_docs)] // fields of variants
        pub enum $name { $($v)* }
    };
}

choice!(
    /// Variants passed as token trees, one of each style.
    VariantsFromTokenTrees {
        /// A struct variant.
        Named { x: i64, y: String },
        /// A newtype variant.
        Newtype(u32),
        /// A tuple variant.
        Tuple(u8, bool),
        /// A unit variant.
        Unit,
    }
);

/// Each field as `ident: ty`, the visibility as `vis`.
macro_rules! typed_fields {
    ($(#[$doc:meta])* $vis:vis struct $name:ident { $($(#[$fdoc:meta])* $fvis:vis $field:ident : $ty:ty),* $(,)? }) => {
        $(#[$doc])*
        #[derive(codec::Codec, Debug, PartialEq)]
        $vis struct $name { $($(#[$fdoc])* $fvis $field: $ty),* }
    };
}

typed_fields!(
    /// Fields from `ident` and `ty` fragments.
    pub struct FromIdentAndTy {
        /// A field.
        pub count: u64,
        /// A field with a generic type.
        pub names: Option<Vec<String>>,
        tags: std::collections::BTreeMap<String, i32>,
    }
);

/// A whole `#[codec(..)]` attribute as a `meta` fragment.
macro_rules! with_meta {
    (#[$m:meta] $name:ident) => {
        /// A type whose attribute came through a `meta` fragment.
        #[derive(codec::Codec, Debug, PartialEq)]
        #[$m]
        pub struct $name {
            first_name: String,
            last_seen_at: u32,
        }
    };
}

with_meta!(
    #[codec(rename_all = "camelCase")]
    FromMeta
);

/// Attribute values as `literal` fragments: a rename and an integer tag.
macro_rules! with_literals {
    ($name:ident, $key:literal, $one:literal, $two:literal) => {
        /// A type whose field and variant names came through `literal` fragments.
        #[derive(codec::Codec, Debug, PartialEq)]
        pub struct $name {
            #[codec(rename = $key)]
            value: i32,
            level: IntTagged,
        }

        /// Integer tags from `literal` fragments.
        #[derive(codec::Codec, Debug, PartialEq)]
        pub enum IntTagged {
            /// The first.
            #[codec(tag = $one)]
            One,
            /// The second.
            #[codec(tag = $two)]
            Two,
        }
    };
}

with_literals!(FromLiterals, "v", 1, 2);

/// A lifetime as a `lifetime` fragment, a field type as a `path` fragment.
macro_rules! with_lifetime_and_path {
    ($name:ident < $lt:lifetime >, $path:path) => {
        /// A borrowed field whose lifetime came through a `lifetime` fragment.
        #[derive(codec::Codec, Debug, PartialEq)]
        pub struct $name<$lt> {
            text: std::borrow::Cow<$lt, str>,
            set: $path,
        }
    };
}

with_lifetime_and_path!(FromLifetime<'a>, std::collections::BTreeSet<u16>);

/// A whole item as an `item` fragment.
macro_rules! items {
    ($($i:item)*) => { $($i)* };
}

items! {
    /// A type passed whole as an `item` fragment.
    #[derive(codec::Codec, Debug, PartialEq)]
    pub struct FromItem {
        inner: FromItemInner,
    }

    /// A second item in the same fragment list.
    #[derive(codec::Codec, Debug, PartialEq)]
    #[allow(missing_docs)] // fields of variants
    pub enum FromItemInner {
        /// A struct variant.
        A { n: i8 },
    }
}

/// Generics passed as token trees.
macro_rules! generic {
    ($name:ident < $($g:ident),* > { $($f:tt)* }) => {
        /// A generic type from a macro.
        #[derive(codec::Codec, Debug, PartialEq)]
        pub struct $name<$($g),*> { $($f)* }
    };
}

generic!(GenericFromMacro<T, U> { t: T, u: Vec<U> });

/// One record in several versions under one wire name, each in its module.
macro_rules! versions {
    ($($module:ident: $version:literal { $($f:tt)* })*) => {
        $(
            /// One version of the record.
            pub mod $module {
                /// The record as this version writes it.
                #[derive(codec::Codec, Debug, PartialEq)]
                #[codec(name = "Record", version = $version)]
                #[allow(missing_docs)] // fields from the macro's input
                pub struct Record { $($f)* }
            }
        )*
    };
}

versions! {
    v1: 1 { pub id: u64 }
    v2: 2 { pub id: u64, #[codec(default)] pub note: String }
}

/// A macro that declares a macro that declares a type.
macro_rules! declare_declarer {
    ($declarer:ident, $derive:path) => {
        macro_rules! $declarer {
            ($name:ident, $ty:ty) => {
                /// A type declared by a macro declared by a macro.
                #[derive($derive, Debug, PartialEq)]
                #[allow(missing_docs)] // fields of variants
                pub enum $name {
                    /// A newtype variant.
                    Value($ty),
                    /// A struct variant.
                    Pair { left: $ty, right: $ty },
                }
            };
        }
    };
}

declare_declarer!(declare, codec::Codec);
declare!(FromNestedMacros, i16);

/// A `with` module from a macro: the module path comes as a string literal.
macro_rules! with_module {
    ($name:ident, $module:literal) => {
        /// A field encoded by a `with` module named in a macro.
        #[derive(codec::Codec, Debug, PartialEq)]
        pub struct $name {
            #[codec(with = $module)]
            count: u32,
        }
    };
}

with_module!(FromWithModule, "as_string");

/// Encodes a `u32` as its decimal string.
mod as_string {
    use codec::{DecodeError, EncodeError, JsonReader, JsonWriter, MsgpackReader, MsgpackWriter};

    #[allow(clippy::trivially_copy_pass_by_ref)] // the signature `with` calls
    pub(super) fn encode_msgpack(value: &u32, w: &mut MsgpackWriter) -> Result<(), EncodeError> {
        codec::Encode::encode_msgpack(&value.to_string(), w)
    }

    pub(super) fn decode_msgpack(r: &mut MsgpackReader<'_>) -> Result<u32, DecodeError> {
        let text: String = codec::Decode::decode_msgpack(r)?;
        text.parse()
            .map_err(|_| DecodeError::invalid_value(format!("not a u32: {text}")))
    }

    #[allow(clippy::trivially_copy_pass_by_ref)] // the signature `with` calls
    pub(super) fn encode_json(value: &u32, w: &mut JsonWriter) -> Result<(), EncodeError> {
        codec::Encode::encode_json(&value.to_string(), w)
    }

    pub(super) fn decode_json(r: &mut JsonReader<'_>) -> Result<u32, DecodeError> {
        let text: String = codec::Decode::decode_json(r)?;
        text.parse()
            .map_err(|_| DecodeError::invalid_value(format!("not a u32: {text}")))
    }

    #[allow(clippy::extra_unused_type_parameters)] // the signature `with` calls
    pub(super) fn json_schema<T>(
        g: &mut codec::schemars::SchemaGenerator,
    ) -> codec::schemars::Schema {
        <String as codec::Schema>::json_schema(g)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shapes::roundtrip;
    use std::borrow::Cow;

    #[test]
    fn token_trees() {
        let a = FromTokenTrees {
            a: 1,
            b: vec!["x".into()],
        };
        assert_eq!(roundtrip(&a), r#"{"a":1,"b":["x"]}"#);
        for v in [
            VariantsFromTokenTrees::Named {
                x: -1,
                y: "y".into(),
            },
            VariantsFromTokenTrees::Newtype(7),
            VariantsFromTokenTrees::Tuple(1, true),
            VariantsFromTokenTrees::Unit,
        ] {
            let _ = roundtrip(&v);
        }
        assert_eq!(
            roundtrip(&VariantsFromTokenTrees::Named {
                x: 2,
                y: "z".into()
            }),
            r#"{"type":"Named","x":2,"y":"z"}"#
        );
    }

    #[test]
    fn ident_ty_vis_meta_literal_lifetime_path_item() {
        let _ = roundtrip(&FromIdentAndTy {
            count: 3,
            names: Some(vec!["n".into()]),
            tags: std::collections::BTreeMap::from([("t".to_string(), -1)]),
        });
        let meta = FromMeta {
            first_name: "Ada".into(),
            last_seen_at: 5,
        };
        assert_eq!(roundtrip(&meta), r#"{"firstName":"Ada","lastSeenAt":5}"#);
        let lit = FromLiterals {
            value: 4,
            level: IntTagged::Two,
        };
        assert_eq!(roundtrip(&lit), r#"{"v":4,"level":2}"#);
        let _ = roundtrip(&FromLifetime {
            text: Cow::Borrowed("hi"),
            set: [3, 1].into(),
        });
        let _ = roundtrip(&FromItem {
            inner: FromItemInner::A { n: -3 },
        });
        let _ = roundtrip(&GenericFromMacro {
            t: 'c',
            u: vec![(1u8, 2u8)],
        });
        assert_eq!(
            roundtrip(&FromWithModule { count: 12 }),
            r#"{"count":"12"}"#
        );
    }

    #[test]
    fn versions_declared_by_a_macro_share_a_wire_name() {
        let old = codec::to_msgpack(&v1::Record { id: 9 }).unwrap();
        let new: v2::Record = codec::from_msgpack(&old).unwrap();
        assert_eq!(
            new,
            v2::Record {
                id: 9,
                note: String::new()
            }
        );
        let _ = roundtrip(&v2::Record {
            id: 1,
            note: "n".into(),
        });
        assert_eq!(
            codec::schema::wire_name::<v1::Record>(),
            codec::schema::wire_name::<v2::Record>()
        );
    }

    #[test]
    fn nested_macros() {
        let _ = roundtrip(&FromNestedMacros::Value(-5));
        let _ = roundtrip(&FromNestedMacros::Pair { left: 1, right: 2 });
    }
}
