#![no_main]

#[path = "corpus.rs"]
mod corpus;

use corpus::*;
use libfuzzer_sys::fuzz_target;

macro_rules! each {
    ($data:expr, $($t:ty),*) => {$(
        check::<$t>(
            codec::from_json_slice($data),
            |v| codec::to_json_vec(v).unwrap(),
            |b| codec::from_json_slice(b),
        );
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
