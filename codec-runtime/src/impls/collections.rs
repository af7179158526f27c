//! Sequences, arrays, tuples, maps and sets.
//!
//! Hash maps and hash sets are written in key order, so equal values give equal
//! bytes whatever their hasher's iteration order.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
use std::hash::{BuildHasher, Hash};

use crate::borrow::{BorrowCodec, Decode};
use crate::codec::{Codec, Schema};
use crate::encode::Encode;
use crate::error::{DecodeError, EncodeError};
use crate::json::{JsonReader, JsonWriter};
use crate::kind::WireKind;
use crate::msgpack::{MsgpackReader, MsgpackWriter};
use crate::schema;
use schemars::SchemaGenerator;

/// As the slice it holds.
impl<T: Encode> Encode for Vec<T> {
    #[inline]
    fn encode_msgpack(&self, w: &mut MsgpackWriter) -> Result<(), EncodeError> {
        T::__encode_msgpack_slice(self, w)
    }

    #[inline]
    fn encode_json(&self, w: &mut JsonWriter) -> Result<(), EncodeError> {
        T::__encode_json_slice(self, w)
    }
}

impl<T: Codec> Codec for Vec<T> {
    #[inline]
    fn decode_msgpack(r: &mut MsgpackReader<'_>) -> Result<Self, DecodeError> {
        T::__decode_msgpack_vec(r)
    }

    #[inline]
    fn decode_json(r: &mut JsonReader<'_>) -> Result<Self, DecodeError> {
        T::__decode_json_vec(r)
    }
}

impl<T: Schema> Schema for Vec<T> {
    const KIND: WireKind = T::__SEQ_KIND;

    fn json_schema(g: &mut SchemaGenerator) -> schemars::Schema {
        schema::sequence::<T>(g, None)
    }
}

impl<T: Codec> Codec for Box<[T]> {
    fn decode_msgpack(r: &mut MsgpackReader<'_>) -> Result<Self, DecodeError> {
        T::__decode_msgpack_vec(r).map(Vec::into_boxed_slice)
    }

    fn decode_json(r: &mut JsonReader<'_>) -> Result<Self, DecodeError> {
        T::__decode_json_vec(r).map(Vec::into_boxed_slice)
    }
}

impl<T: Schema> Schema for Box<[T]> {
    const KIND: WireKind = T::__SEQ_KIND;

    fn json_schema(g: &mut SchemaGenerator) -> schemars::Schema {
        schema::sequence::<T>(g, None)
    }
}

/// As the slice it holds.
impl<T: Encode, const N: usize> Encode for [T; N] {
    fn encode_msgpack(&self, w: &mut MsgpackWriter) -> Result<(), EncodeError> {
        T::__encode_msgpack_slice(self, w)
    }

    fn encode_json(&self, w: &mut JsonWriter) -> Result<(), EncodeError> {
        T::__encode_json_slice(self, w)
    }
}

impl<T: Codec, const N: usize> Codec for [T; N] {
    fn decode_msgpack(r: &mut MsgpackReader<'_>) -> Result<Self, DecodeError> {
        let start = r.position();
        let items = T::__decode_msgpack_vec(r)?;
        fixed(items).map_err(|e| e.at(crate::error::Format::MsgPack, start))
    }

    fn decode_json(r: &mut JsonReader<'_>) -> Result<Self, DecodeError> {
        let start = r.position();
        let items = T::__decode_json_vec(r)?;
        fixed(items).map_err(|e| e.at(crate::error::Format::Json, start))
    }
}

impl<T: Schema, const N: usize> Schema for [T; N] {
    const KIND: WireKind = T::__SEQ_KIND;

    fn json_schema(g: &mut SchemaGenerator) -> schemars::Schema {
        schema::sequence::<T>(g, Some(N))
    }
}

fn fixed<T, const N: usize>(items: Vec<T>) -> Result<[T; N], DecodeError> {
    let found = items.len();
    items
        .try_into()
        .map_err(|_| DecodeError::invalid_length(format!("exactly {N} elements"), found))
}

/// Shared by the collections that encode as an array of their items in order.
macro_rules! seq_impl {
    ([$($generics:tt)*] $ty:ty, $encode_iter:expr, $insert:ident, $unique:expr) => {

        impl<$($generics)*> Encode for $ty {
            fn encode_msgpack(&self, w: &mut MsgpackWriter) -> Result<(), EncodeError> {
                w.write_array_len(self.len())?;
                for item in $encode_iter(self) {
                    item.encode_msgpack(w)?;
                }
                Ok(())
            }

            fn encode_json(&self, w: &mut JsonWriter) -> Result<(), EncodeError> {
                w.write_byte(b'[');
                for (i, item) in $encode_iter(self).into_iter().enumerate() {
                    if i > 0 {
                        w.write_byte(b',');
                    }
                    item.encode_json(w)?;
                }
                w.write_byte(b']');
                Ok(())
            }
        }

        impl<$($generics)*> Codec for $ty {
            fn decode_msgpack(r: &mut MsgpackReader<'_>) -> Result<Self, DecodeError> {
                let len = r.read_array_len()?;
                r.nested(|r| {
                    let mut out = Self::default();
                    for i in 0..len {
                        out.$insert(T::decode_msgpack(r).map_err(|e| e.in_index(i))?);
                    }
                    Ok(out)
                })
            }

            fn decode_json(r: &mut JsonReader<'_>) -> Result<Self, DecodeError> {
                r.begin_array()?;
                let mut out = Self::default();
                let mut first = true;
                let mut i = 0;
                while r.next_element(&mut first)? {
                    out.$insert(T::decode_json(r).map_err(|e| e.in_index(i))?);
                    i += 1;
                }
                Ok(out)
            }
        }

        impl<$($generics)*> Schema for $ty {
            const KIND: WireKind = WireKind::ARRAY;

            fn json_schema(g: &mut SchemaGenerator) -> schemars::Schema {
                schema::array(schema::subschema::<T>(g), $unique, None)
            }
        }
    };
}

seq_impl!([T: Codec] VecDeque<T>, VecDeque::iter, push_back, false);
seq_impl!([T: Codec + Ord] BTreeSet<T>, BTreeSet::iter, insert, true);
seq_impl!(
    [T: Codec + Ord + Hash + Eq, S: BuildHasher + Default] HashSet<T, S>,
    sorted_set::<T, S>,
    insert,
    true
);

fn sorted_set<T: Ord, S>(set: &HashSet<T, S>) -> Vec<&T> {
    let mut items: Vec<&T> = set.iter().collect();
    items.sort_unstable();
    items
}

/// A map's entries in MessagePack, each key written by `key`.
fn encode_map_msgpack<'a, K, V: Encode + 'a>(
    len: usize,
    entries: impl Iterator<Item = (K, &'a V)>,
    key: impl Fn(K, &mut MsgpackWriter) -> Result<(), EncodeError>,
    w: &mut MsgpackWriter,
) -> Result<(), EncodeError> {
    w.write_map_len(len)?;
    for (k, v) in entries {
        key(k, w)?;
        v.encode_msgpack(w)?;
    }
    Ok(())
}

/// A map's entries as a JSON object, each key written by `key` (a
/// quoted string).
fn encode_map_json<'a, K, V: Encode + 'a>(
    entries: impl Iterator<Item = (K, &'a V)>,
    key: impl Fn(K, &mut JsonWriter) -> Result<(), EncodeError>,
    w: &mut JsonWriter,
) -> Result<(), EncodeError> {
    w.write_byte(b'{');
    for (i, (k, v)) in entries.enumerate() {
        if i > 0 {
            w.write_byte(b',');
        }
        key(k, w)?;
        w.write_byte(b':');
        v.encode_json(w)?;
    }
    w.write_byte(b'}');
    Ok(())
}

fn decode_map_msgpack<K: Codec, V: Codec>(
    r: &mut MsgpackReader<'_>,
    mut insert: impl FnMut(K, V),
) -> Result<(), DecodeError> {
    let len = r.read_map_len()?;
    r.nested(|r| {
        for i in 0..len {
            let k = K::decode_msgpack(r).map_err(|e| e.in_index(i))?;
            let v = V::decode_msgpack(r).map_err(|e| e.in_index(i))?;
            insert(k, v);
        }
        Ok(())
    })
}

fn decode_map_json<K: Codec, V: Codec>(
    r: &mut JsonReader<'_>,
    mut insert: impl FnMut(K, V),
) -> Result<(), DecodeError> {
    r.begin_object()?;
    let mut first = true;
    while let Some(key) = r.next_key(&mut first)? {
        let k = K::__decode_json_key(r, &key)?;
        let v = V::decode_json(r).map_err(|e| e.in_field(key.into_owned()))?;
        insert(k, v);
    }
    Ok(())
}

impl<K: Codec + Ord, V: Codec> Encode for BTreeMap<K, V> {
    fn encode_msgpack(&self, w: &mut MsgpackWriter) -> Result<(), EncodeError> {
        encode_map_msgpack(self.len(), self.iter(), K::encode_msgpack, w)
    }

    fn encode_json(&self, w: &mut JsonWriter) -> Result<(), EncodeError> {
        encode_map_json(self.iter(), K::__encode_json_key, w)
    }
}

impl<K: Codec + Ord, V: Codec> Codec for BTreeMap<K, V> {
    fn decode_msgpack(r: &mut MsgpackReader<'_>) -> Result<Self, DecodeError> {
        let mut out = BTreeMap::new();
        decode_map_msgpack(r, |k, v| {
            out.insert(k, v);
        })?;
        Ok(out)
    }

    fn decode_json(r: &mut JsonReader<'_>) -> Result<Self, DecodeError> {
        let mut out = BTreeMap::new();
        decode_map_json(r, |k, v| {
            out.insert(k, v);
        })?;
        Ok(out)
    }
}

impl<K: Schema, V: Schema> Schema for BTreeMap<K, V> {
    const KIND: WireKind = WireKind::MAP;

    fn json_schema(g: &mut SchemaGenerator) -> schemars::Schema {
        schema::map(schema::subschema::<V>(g), K::KIND.is(WireKind::INT))
    }
}

fn sorted_entries<K: Ord, V, S>(map: &HashMap<K, V, S>) -> Vec<(&K, &V)> {
    let mut entries: Vec<(&K, &V)> = map.iter().collect();
    entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
    entries
}

impl<K, V, S> Encode for HashMap<K, V, S>
where
    K: Codec + Ord + Hash + Eq,
    V: Codec,
    S: BuildHasher + Default,
{
    fn encode_msgpack(&self, w: &mut MsgpackWriter) -> Result<(), EncodeError> {
        encode_map_msgpack(
            self.len(),
            sorted_entries(self).into_iter(),
            K::encode_msgpack,
            w,
        )
    }

    fn encode_json(&self, w: &mut JsonWriter) -> Result<(), EncodeError> {
        encode_map_json(sorted_entries(self).into_iter(), K::__encode_json_key, w)
    }
}

impl<K, V, S> Codec for HashMap<K, V, S>
where
    K: Codec + Ord + Hash + Eq,
    V: Codec,
    S: BuildHasher + Default,
{
    fn decode_msgpack(r: &mut MsgpackReader<'_>) -> Result<Self, DecodeError> {
        let mut out = HashMap::default();
        decode_map_msgpack(r, |k, v| {
            out.insert(k, v);
        })?;
        Ok(out)
    }

    fn decode_json(r: &mut JsonReader<'_>) -> Result<Self, DecodeError> {
        let mut out = HashMap::default();
        decode_map_json(r, |k, v| {
            out.insert(k, v);
        })?;
        Ok(out)
    }
}

impl<K: Schema, V: Schema, S> Schema for HashMap<K, V, S> {
    const KIND: WireKind = WireKind::MAP;

    fn json_schema(g: &mut SchemaGenerator) -> schemars::Schema {
        schema::map(schema::subschema::<V>(g), K::KIND.is(WireKind::INT))
    }
}

/// Maps keyed by borrowed strings (`BTreeMap<&'a str, V>`, a `HashMap`
/// too), as their owned twins with `String` keys: entries in key order.
/// A value may borrow as well (`&'a str`, a derived type that borrows) or
/// be owned; a JSON key with escapes cannot be borrowed, and is an error
/// at the map's path, as a `&str` value's is.
macro_rules! str_key_map {
    ($([$($generics:tt)*] $map:ty, $entries:expr;)*) => {$(
        impl<'a, V: Encode, $($generics)*> Encode for $map {
            fn encode_msgpack(&self, w: &mut MsgpackWriter) -> Result<(), EncodeError> {
                let entries = $entries(self).into_iter();
                encode_map_msgpack(self.len(), entries, |k, w| w.write_str(k), w)
            }

            fn encode_json(&self, w: &mut JsonWriter) -> Result<(), EncodeError> {
                encode_map_json($entries(self).into_iter(), |k, w| w.write_str(k), w)
            }
        }

        impl<'de: 'a, 'a, V: Decode<'de> + Encode + Schema, $($generics)*> BorrowCodec<'de>
            for $map
        {
            fn decode_msgpack(r: &mut MsgpackReader<'de>) -> Result<Self, DecodeError> {
                let len = r.read_map_len()?;
                r.nested(|r| {
                    let mut out = Self::default();
                    for i in 0..len {
                        let k = <&str as BorrowCodec<'de>>::decode_msgpack(r)
                            .map_err(|e| e.in_index(i))?;
                        let v = V::read_msgpack(r).map_err(|e| e.in_field(k.to_owned()))?;
                        out.insert(k, v);
                    }
                    Ok(out)
                })
            }

            fn decode_json(r: &mut JsonReader<'de>) -> Result<Self, DecodeError> {
                r.begin_object()?;
                let mut out = Self::default();
                let mut first = true;
                loop {
                    let start = r.position();
                    let k = match r.next_key(&mut first)? {
                        None => return Ok(out),
                        Some(std::borrow::Cow::Borrowed(k)) => k,
                        Some(std::borrow::Cow::Owned(_)) => {
                            r.seek(start);
                            return Err(escaped_key(r));
                        }
                    };
                    let v = V::read_json(r).map_err(|e| e.in_field(k.to_owned()))?;
                    out.insert(k, v);
                }
            }
        }
    )*};
}

str_key_map! {
    [] BTreeMap<&'a str, V>, str_entries;
    [S: BuildHasher + Default] HashMap<&'a str, V, S>, sorted_str_entries;
}

fn str_entries<'m, 'a, V>(map: &'m BTreeMap<&'a str, V>) -> impl Iterator<Item = (&'a str, &'m V)> {
    map.iter().map(|(k, v)| (*k, v))
}

fn sorted_str_entries<'m, 'a, V, S>(map: &'m HashMap<&'a str, V, S>) -> Vec<(&'a str, &'m V)> {
    let mut entries: Vec<(&str, &V)> = map.iter().map(|(k, v)| (*k, v)).collect();
    entries.sort_unstable_by_key(|e| e.0);
    entries
}

/// The error for a JSON key with escapes in a map whose keys borrow.
#[cold]
fn escaped_key(r: &mut JsonReader<'_>) -> DecodeError {
    r.error(crate::error::DecodeErrorKind::InvalidType {
        expected: "a key without escapes, which a `&str` key can borrow".into(),
        found:
            "a key with escapes; declare the map with `String` keys and owned values to take them"
                .into(),
    })
}

/// The body of a tuple's decoder: its elements in order, each read by
/// `$trait::$read`, and exactly `$len` of them.
macro_rules! tuple_decode {
    (msgpack, $r:ident, $len:literal, $trait:ident::$read:ident, $($name:ident $idx:tt),+) => {{
        let start = $r.position();
        let len = $r.read_array_len()?;
        if len != $len {
            $r.seek(start);
            return Err($r.error(crate::error::DecodeErrorKind::InvalidLength {
                expected: concat!("a tuple of ", $len, " elements").into(),
                found: len,
            }));
        }
        $r.nested(|r| Ok(($(<$name as $trait>::$read(r).map_err(|e| e.in_index($idx))?,)+)))
    }};
    (json, $r:ident, $len:literal, $trait:ident::$read:ident, $($name:ident $idx:tt),+) => {{
        $r.begin_array()?;
        let mut first = true;
        let out = ($(
            if $r.next_element(&mut first)? {
                <$name as $trait>::$read($r).map_err(|e| e.in_index($idx))?
            } else {
                return Err($r.error(crate::error::DecodeErrorKind::InvalidLength {
                    expected: concat!("a tuple of ", $len, " elements").into(),
                    found: $idx,
                }));
            },
        )+);
        if $r.next_element(&mut first)? {
            return Err($r.error(crate::error::DecodeErrorKind::InvalidLength {
                expected: concat!("a tuple of ", $len, " elements").into(),
                found: $len + 1,
            }));
        }
        Ok(out)
    }};
}

macro_rules! tuple_impl {
    ($($len:literal => ($($name:ident $idx:tt),+);)*) => {$(
        /// An array of the elements, each as it encodes (borrowed ones too).
        impl<$($name: Encode),+> Encode for ($($name,)+) {
            fn encode_msgpack(&self, w: &mut MsgpackWriter) -> Result<(), EncodeError> {
                w.write_array_len($len)?;
                $(self.$idx.encode_msgpack(w)?;)+
                Ok(())
            }

            fn encode_json(&self, w: &mut JsonWriter) -> Result<(), EncodeError> {
                w.write_byte(b'[');
                $(
                    if $idx > 0 {
                        w.write_byte(b',');
                    }
                    self.$idx.encode_json(w)?;
                )+
                w.write_byte(b']');
                Ok(())
            }
        }

        impl<$($name: Codec),+> Codec for ($($name,)+) {
            fn decode_msgpack(r: &mut MsgpackReader<'_>) -> Result<Self, DecodeError> {
                tuple_decode!(msgpack, r, $len, Codec::decode_msgpack, $($name $idx),+)
            }

            fn decode_json(r: &mut JsonReader<'_>) -> Result<Self, DecodeError> {
                tuple_decode!(json, r, $len, Codec::decode_json, $($name $idx),+)
            }
        }

        impl<$($name: Schema),+> Schema for ($($name,)+) {
            const KIND: WireKind = WireKind::ARRAY;

            fn json_schema(g: &mut SchemaGenerator) -> schemars::Schema {
                schema::tuple(vec![$(schema::subschema::<$name>(g)),+], $len, true)
            }
        }

        /// A tuple that holds a value borrowing from the input (`(&'a str,
        /// u32)`): each element read as it reads alone, owned or borrowed.
        /// Not listed among the types that borrow in a diagnostic: the
        /// twelve of them would hide the others.
        #[diagnostic::do_not_recommend]
        impl<'de, $($name: Decode<'de> + Encode + Schema),+> BorrowCodec<'de> for ($($name,)+) {
            fn decode_msgpack(r: &mut MsgpackReader<'de>) -> Result<Self, DecodeError> {
                tuple_decode!(msgpack, r, $len, Decode::read_msgpack, $($name $idx),+)
            }

            fn decode_json(r: &mut JsonReader<'de>) -> Result<Self, DecodeError> {
                tuple_decode!(json, r, $len, Decode::read_json, $($name $idx),+)
            }
        }
    )*};
}

tuple_impl! {
    1 => (A 0);
    2 => (A 0, B 1);
    3 => (A 0, B 1, C 2);
    4 => (A 0, B 1, C 2, D 3);
    5 => (A 0, B 1, C 2, D 3, E 4);
    6 => (A 0, B 1, C 2, D 3, E 4, F 5);
    7 => (A 0, B 1, C 2, D 3, E 4, F 5, G 6);
    8 => (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);
    9 => (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8);
    10 => (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9);
    11 => (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10);
    12 => (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11);
}
