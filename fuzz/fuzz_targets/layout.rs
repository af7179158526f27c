//! The layout file (`codec-store.json`) of hostile bytes, in a store
//! that holds an entry: opening refuses it or reads the store.

#![no_main]

#[path = "store.rs"]
mod store;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let files = vec![("codec-store.json".to_owned(), data.to_vec())];
    store::open_and_exercise(store::memory(&files));
});
