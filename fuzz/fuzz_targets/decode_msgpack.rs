#![no_main]

#[path = "corpus.rs"]
mod corpus;

use corpus::*;
use libfuzzer_sys::fuzz_target;

macro_rules! each {
    ($data:expr, $($t:ty),*) => {$(
        check::<$t>(codec::from_msgpack($data), |v| codec::to_msgpack(v).unwrap(), |b| codec::from_msgpack(b));
    )*};
}

fuzz_target!(|data: &[u8]| {
    each!(
        data,
        Item,
        Event,
        Tree,
        Op,
        Chain,
        Collections,
        String,
        Vec<u8>
    );
});
