//! A stored value (`codec::to_stored`) of hostile bytes: the envelope's
//! header (magic, version, wire name, fingerprint, the writer's schema)
//! and the schema comparison behind `from_stored`.

#![no_main]

#[path = "corpus.rs"]
mod corpus;

use corpus::*;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(header) = codec::envelope_header(data) {
        assert!(header.payload_offset <= data.len());
    }
    let _ = codec::from_stored::<Item>(data);
    let _ = codec::from_stored::<Event>(data);
    let _ = codec::from_stored::<Tree>(data);
    let _ = codec::from_stored::<Op>(data);
    let _ = codec::from_stored::<Vec<String>>(data);
    let _ = codec::from_stored::<codec::Value>(data);
});
