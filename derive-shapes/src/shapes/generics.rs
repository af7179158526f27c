//! Generic types: bounds, where clauses, defaults, lifetimes, const
//! generics, associated types, `Self`, `PhantomData` and recursion.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt::Debug;
use std::marker::PhantomData;

/// Bounds on the parameters, beside the ones the derive adds.
#[derive(codec::Codec, Debug, PartialEq)]
pub struct Bounded<T: Clone + Debug, U: Ord> {
    item: T,
    keys: std::collections::BTreeSet<U>,
}

/// A where clause.
#[derive(codec::Codec, Debug, PartialEq)]
pub struct WhereClause<T>
where
    T: Clone,
    Vec<T>: Debug,
{
    items: Vec<T>,
}

/// A parameter with a default.
#[derive(codec::Codec, Debug, PartialEq)]
pub struct DefaultParam<T = u8> {
    value: T,
}

/// A lifetime, and a type borrowed for it.
#[derive(codec::Codec, Debug, PartialEq)]
pub struct Borrowed<'a, T: Clone> {
    text: Cow<'a, str>,
    items: Cow<'a, [T]>,
}

/// A const generic.
#[derive(codec::Codec, Debug, PartialEq)]
pub struct ConstGeneric<T, const N: usize> {
    items: [T; N],
}

/// An associated type of a parameter: the item type needs `Codec`, the
/// iterator does not.
#[derive(codec::Codec, Debug)]
pub struct Associated<I: Iterator> {
    first: Option<I::Item>,
}

impl<I: Iterator> PartialEq for Associated<I>
where
    I::Item: PartialEq,
{
    fn eq(&self, other: &Self) -> bool {
        self.first == other.first
    }
}

/// A qualified associated type.
#[derive(codec::Codec, Debug, PartialEq)]
pub struct QualifiedAssociated<I: IntoIterator>
where
    <I as IntoIterator>::Item: Debug + PartialEq,
{
    items: Vec<<I as IntoIterator>::Item>,
}

/// `Self` in a field's type: a list through `Box`.
#[derive(codec::Codec, Debug, PartialEq)]
pub struct SelfList {
    value: i32,
    next: Option<Box<Self>>,
}

/// A tree through `Vec` and `Box`.
#[derive(codec::Codec, Debug, PartialEq)]
#[allow(missing_docs)] // fields of variants
pub enum Tree {
    /// A leaf.
    Leaf(i64),
    /// A node with children.
    Node(Vec<Tree>),
    /// A node with two children.
    Pair { left: Box<Tree>, right: Box<Tree> },
}

/// A recursive newtype through `Option<Box<_>>`. (`Some(None)` is written as
/// `None` is: nil.)
#[derive(codec::Codec, Debug, PartialEq)]
pub struct Chain(Option<Box<Chain>>);

/// A recursive newtype through `Vec`.
#[derive(codec::Codec, Debug, PartialEq)]
pub struct Nest(Vec<Nest>);

/// `PhantomData` of a type that has no encoding.
#[derive(codec::Codec, Debug, PartialEq)]
pub struct Phantom<T> {
    id: u32,
    marker: PhantomData<T>,
}

/// A parameter used only in a skipped field needs `Default`, not `Codec`.
#[derive(codec::Codec, Debug, PartialEq)]
pub struct SkippedParam<T: Default> {
    kept: u8,
    #[codec(skip)]
    cache: Option<T>,
}

/// A generic tagged union.
#[derive(codec::Codec, Debug, PartialEq)]
#[allow(missing_docs)] // fields of variants
pub enum GenericEnum<T, E> {
    /// A value.
    Ok(T),
    /// An error.
    Err { error: E },
    /// Nothing.
    Empty,
}

/// A generic untagged union whose payload kinds stay apart.
#[derive(codec::Codec, Debug, PartialEq)]
#[codec(untagged)]
pub enum GenericUntagged<T> {
    /// A list of `T`.
    Many(Vec<T>),
    /// A string.
    Text(String),
}

/// Generics nested in containers, and a map keyed by a generic.
#[derive(codec::Codec, Debug, PartialEq)]
pub struct Nested<K: Ord, V> {
    map: BTreeMap<K, Vec<Option<Box<V>>>>,
}

/// A type with no encoding, for `Phantom` and `Associated`.
#[derive(Debug, PartialEq)]
pub struct NotCodec;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shapes::roundtrip;

    #[test]
    fn bounds_where_clauses_and_defaults() {
        let _ = roundtrip(&Bounded {
            item: 1u8,
            keys: [1u8, 2].into(),
        });
        let _ = roundtrip(&WhereClause {
            items: vec!["a".to_string()],
        });
        let _ = roundtrip(&DefaultParam::<u8> { value: 4 });
        let _ = roundtrip(&DefaultParam {
            value: "s".to_string(),
        });
    }

    #[test]
    fn lifetimes_and_const_generics() {
        let b = Borrowed {
            text: Cow::Borrowed("t"),
            items: Cow::Owned(vec![1u16, 2]),
        };
        let _ = roundtrip(&b);
        let _ = roundtrip(&ConstGeneric { items: [1u8, 2, 3] });
        let _ = roundtrip(&ConstGeneric::<String, 0> { items: [] });
    }

    #[test]
    fn associated_types() {
        let a: Associated<std::vec::IntoIter<u32>> = Associated { first: Some(3) };
        let _ = roundtrip(&a);
        let q: QualifiedAssociated<Vec<String>> = QualifiedAssociated {
            items: vec!["q".into()],
        };
        let _ = roundtrip(&q);
    }

    #[test]
    fn recursive_types() {
        let list = SelfList {
            value: 1,
            next: Some(Box::new(SelfList {
                value: 2,
                next: None,
            })),
        };
        let _ = roundtrip(&list);
        let tree = Tree::Pair {
            left: Box::new(Tree::Leaf(1)),
            right: Box::new(Tree::Node(vec![Tree::Leaf(2), Tree::Node(vec![])])),
        };
        let _ = roundtrip(&tree);
        assert_eq!(roundtrip(&Chain(None)), "null");
        assert_eq!(
            roundtrip(&Nest(vec![Nest(vec![]), Nest(vec![Nest(vec![])])])),
            "[[],[[]]]"
        );
    }

    #[test]
    fn phantoms_skips_and_generic_enums() {
        let _ = roundtrip(&Phantom::<NotCodec> {
            id: 1,
            marker: PhantomData,
        });
        let s: SkippedParam<NotCodecDefault> = SkippedParam {
            kept: 1,
            cache: None,
        };
        let _ = roundtrip(&s);
        for e in [
            GenericEnum::Ok(1u8),
            GenericEnum::Err {
                error: "e".to_string(),
            },
            GenericEnum::Empty,
        ] {
            let _ = roundtrip(&e);
        }
        let _ = roundtrip(&GenericUntagged::Many(vec![1u16]));
        let _ = roundtrip(&GenericUntagged::<u16>::Text("t".into()));
        let map = BTreeMap::from([("k".to_string(), vec![None, Some(Box::new(1i8))])]);
        let _ = roundtrip(&Nested { map });
    }

    /// A type with `Default` and no encoding.
    #[derive(Debug, PartialEq, Default)]
    struct NotCodecDefault;
}
