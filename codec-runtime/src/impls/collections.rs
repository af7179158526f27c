//! Sequences, arrays, tuples, maps and sets.
//!
//! Hash maps and hash sets are written in key order, so equal values give equal
//! bytes whatever their hasher's iteration order.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
use std::hash::{BuildHasher, Hash};

use crate::codec::Schema;
use crate::decode::Decode;
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

impl<'de, T: Decode<'de>> Decode<'de> for Vec<T> {
    #[inline]
    fn decode_msgpack(r: &mut MsgpackReader<'de>) -> Result<Self, DecodeError> {
        T::__decode_msgpack_vec(r)
    }

    #[inline]
    fn decode_json(r: &mut JsonReader<'de>) -> Result<Self, DecodeError> {
        T::__decode_json_vec(r)
    }
}

impl<T: Schema> Schema for Vec<T> {
    const KIND: WireKind = T::__SEQ_KIND;

    fn json_schema(g: &mut SchemaGenerator) -> schemars::Schema {
        schema::sequence::<T>(g, None)
    }
}

impl<'de, T: Decode<'de>> Decode<'de> for Box<[T]> {
    fn decode_msgpack(r: &mut MsgpackReader<'de>) -> Result<Self, DecodeError> {
        T::__decode_msgpack_vec(r).map(Vec::into_boxed_slice)
    }

    fn decode_json(r: &mut JsonReader<'de>) -> Result<Self, DecodeError> {
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

impl<'de, T: Decode<'de>, const N: usize> Decode<'de> for [T; N] {
    fn decode_msgpack(r: &mut MsgpackReader<'de>) -> Result<Self, DecodeError> {
        let start = r.position();
        let items = T::__decode_msgpack_vec(r)?;
        fixed(items).map_err(|e| e.at(crate::error::Format::MsgPack, start))
    }

    fn decode_json(r: &mut JsonReader<'de>) -> Result<Self, DecodeError> {
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

/// Shared by the collections that encode as an array of their items in
/// order: `T` bounded by each impl's trait and `$bounds` (listed with
/// commas), the other
/// parameters by `$generics`.
macro_rules! seq_impl {
    ([T: $($bounds:path),*; $($generics:tt)*] $ty:ty, $encode_iter:expr, $insert:ident, $unique:expr) => {
        impl<T: Encode $(+ $bounds)*, $($generics)*> Encode for $ty {
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

        impl<'de, T: Decode<'de> $(+ $bounds)*, $($generics)*> Decode<'de> for $ty {
            fn decode_msgpack(r: &mut MsgpackReader<'de>) -> Result<Self, DecodeError> {
                let len = r.read_array_len()?;
                r.nested(|r| {
                    let mut out = Self::default();
                    for i in 0..len {
                        out.$insert(T::decode_msgpack(r).map_err(|e| e.in_index(i))?);
                    }
                    Ok(out)
                })
            }

            fn decode_json(r: &mut JsonReader<'de>) -> Result<Self, DecodeError> {
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

        impl<T: Schema, $($generics)*> Schema for $ty {
            const KIND: WireKind = WireKind::ARRAY;

            fn json_schema(g: &mut SchemaGenerator) -> schemars::Schema {
                schema::array(schema::subschema::<T>(g), $unique, None)
            }
        }
    };
}

seq_impl!([T: ;] VecDeque<T>, VecDeque::iter, push_back, false);
seq_impl!([T: Ord;] BTreeSet<T>, BTreeSet::iter, insert, true);
seq_impl!(
    [T: Ord, Hash, Eq; S: BuildHasher + Default] HashSet<T, S>,
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

fn decode_map_msgpack<'de, K: Decode<'de>, V: Decode<'de>>(
    r: &mut MsgpackReader<'de>,
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

fn decode_map_json<'de, K: Decode<'de>, V: Decode<'de>>(
    r: &mut JsonReader<'de>,
    mut insert: impl FnMut(K, V),
) -> Result<(), DecodeError> {
    r.begin_object()?;
    let mut first = true;
    while let Some(key) = r.next_key(&mut first)? {
        let k = K::__decode_json_key(r, key.clone())?;
        let v = V::decode_json(r).map_err(|e| e.in_field(key.into_owned()))?;
        insert(k, v);
    }
    Ok(())
}

/// Entries in key order; keys borrowed (`&'a str`) encode as their owned
/// twins (`String`).
impl<K: Encode + Ord, V: Encode> Encode for BTreeMap<K, V> {
    fn encode_msgpack(&self, w: &mut MsgpackWriter) -> Result<(), EncodeError> {
        encode_map_msgpack(self.len(), self.iter(), K::encode_msgpack, w)
    }

    fn encode_json(&self, w: &mut JsonWriter) -> Result<(), EncodeError> {
        encode_map_json(self.iter(), K::__encode_json_key, w)
    }
}

impl<'de, K: Decode<'de> + Ord, V: Decode<'de>> Decode<'de> for BTreeMap<K, V> {
    fn decode_msgpack(r: &mut MsgpackReader<'de>) -> Result<Self, DecodeError> {
        let mut out = BTreeMap::new();
        decode_map_msgpack(r, |k, v| {
            out.insert(k, v);
        })?;
        Ok(out)
    }

    fn decode_json(r: &mut JsonReader<'de>) -> Result<Self, DecodeError> {
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

/// Entries in key order, whatever the hasher's iteration order.
impl<K: Encode + Ord, V: Encode, S> Encode for HashMap<K, V, S> {
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

impl<'de, K, V, S> Decode<'de> for HashMap<K, V, S>
where
    K: Decode<'de> + Ord + Hash + Eq,
    V: Decode<'de>,
    S: BuildHasher + Default,
{
    fn decode_msgpack(r: &mut MsgpackReader<'de>) -> Result<Self, DecodeError> {
        let mut out = HashMap::default();
        decode_map_msgpack(r, |k, v| {
            out.insert(k, v);
        })?;
        Ok(out)
    }

    fn decode_json(r: &mut JsonReader<'de>) -> Result<Self, DecodeError> {
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

        impl<'de, $($name: Decode<'de>),+> Decode<'de> for ($($name,)+) {
            fn decode_msgpack(r: &mut MsgpackReader<'de>) -> Result<Self, DecodeError> {
                tuple_decode!(msgpack, r, $len, Decode::decode_msgpack, $($name $idx),+)
            }

            fn decode_json(r: &mut JsonReader<'de>) -> Result<Self, DecodeError> {
                tuple_decode!(json, r, $len, Decode::decode_json, $($name $idx),+)
            }
        }

        impl<$($name: Schema),+> Schema for ($($name,)+) {
            const KIND: WireKind = WireKind::ARRAY;

            fn json_schema(g: &mut SchemaGenerator) -> schemars::Schema {
                schema::tuple(vec![$(schema::subschema::<$name>(g)),+], $len, true)
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
