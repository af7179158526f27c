#![no_main]

#[path = "corpus.rs"]
mod corpus;

use corpus::*;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    check_every_type!(data, codec::to_json_vec, codec::from_json_slice);
});
