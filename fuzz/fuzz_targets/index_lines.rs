//! A writer's index log of hostile bytes, in a store otherwise whole: the
//! line reader (checksum, the canonical fast path and the full parser,
//! the info), the refresh that reads the logs, lookups, verify, a
//! checkpoint built from the lines, and writes after them.
//!
//! Input: a byte of flags (bit 0: make each line's checksum right; bit 1:
//! a folder rather than memory), then the log.

#![no_main]

#[path = "store.rs"]
mod store;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&flags, log)) = data.split_first() else {
        return;
    };
    let log = match flags & 1 {
        1 => codec_store::__fuzz::seal_lines(log),
        _ => log.to_vec(),
    };
    let files = vec![
        ("codec-store.json".to_owned(), br#"{"format":1}"#.to_vec()),
        ("w-info.jsonl".to_owned(), log),
    ];
    if flags & 2 == 0 {
        store::open_and_exercise(store::memory(&files));
    } else {
        store::in_folder(&files, store::open_folder_and_exercise);
    }
});
