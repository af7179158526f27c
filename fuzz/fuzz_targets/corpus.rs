//! The types the fuzz targets decode into, and the round-trip property.

#![allow(dead_code)] // each target uses a part

use std::collections::{BTreeMap, HashMap, HashSet};

use codec::Codec;

#[derive(Codec, Debug, PartialEq)]
pub struct Item {
    pub id: u32,
    pub name: String,
    pub tags: Vec<String>,
    pub score: Option<f64>,
    pub blob: Vec<u8>,
}

#[derive(Codec, Debug, PartialEq)]
pub enum Event {
    Click { x: i64, y: i64 },
    Key(String),
    Moved(Item),
    Pair(u8, i16),
    Idle,
}

#[derive(Codec, Debug, PartialEq)]
#[codec(untagged)]
pub enum Tree {
    Leaf(i64),
    Text(String),
    Node(Vec<Tree>),
    Map(BTreeMap<String, Tree>),
}

#[derive(Codec, Debug, PartialEq)]
#[codec(array_like)]
pub enum Op {
    Add { a: i32, b: i32 },
    Neg(i32),
}

#[derive(Codec, Debug, PartialEq)]
pub struct Chain(pub Option<Box<Chain>>);

pub type Collections = (
    HashMap<u32, String>,
    HashSet<i64>,
    Vec<Option<bool>>,
    std::time::SystemTime,
);

/// Whatever decodes re-encodes, decodes to an equal value, and encodes to the same bytes.
pub fn check<T: Codec + PartialEq + std::fmt::Debug>(
    decoded: Result<T, codec::DecodeError>,
    encode: fn(&T) -> Vec<u8>,
    decode: fn(&[u8]) -> Result<T, codec::DecodeError>,
) {
    let Ok(value) = decoded else { return };
    let bytes = encode(&value);
    let again = decode(&bytes).expect("an encoding codec wrote must decode");
    #[allow(clippy::eq_op)] // NaN is not equal to itself: compare bytes only then
    if value == value {
        assert_eq!(again, value);
    }
    assert_eq!(encode(&again), bytes, "encoding is deterministic");
}

/// Decodes `data` into every corpus type with `$decode`, checking each that decodes.
#[macro_export]
macro_rules! check_every_type {
    ($data:expr, $encode:expr, $decode:expr) => {
        $crate::check_every_type!(@each $data, $encode, $decode;
            Item, Event, Tree, Op, Chain, Collections, String, Vec<u8>);
    };
    (@each $data:expr, $encode:expr, $decode:expr; $($t:ty),*) => {$(
        corpus::check::<$t>($decode($data), |v| $encode(v).unwrap(), |b| $decode(b));
    )*};
}
