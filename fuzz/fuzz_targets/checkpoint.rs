//! A store of hostile files, its checkpoint foremost: the manifest
//! (`checkpoint.json`), the tables it names (`index/*.idx`: header,
//! fences, blocks, the lines they hold or point at in the logs), the
//! logs, data files and writer schemas. In memory the tables hold their
//! lines; in a folder they are mapped and point into the mapped logs.
//!
//! Input: a byte of flags (bit 0: make the lines' checksums right; bit 1:
//! the manifest's; bit 2: the tables'; bit 3: a folder rather than
//! memory), then the store's files (`store::files`).

#![no_main]

#[path = "store.rs"]
mod store;

use codec_store::__fuzz;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&flags, image)) = data.split_first() else {
        return;
    };
    let mut files = store::files(image);
    for (name, bytes) in &mut files {
        if flags & 1 != 0 && name.ends_with("-info.jsonl") {
            *bytes = __fuzz::seal_lines(bytes);
        }
        if flags & 2 != 0 && name == "checkpoint.json" {
            *bytes = __fuzz::seal_manifest(bytes);
        }
        if flags & 4 != 0 && name.ends_with(".idx") {
            __fuzz::seal_table(bytes);
        }
    }
    if flags & 8 == 0 {
        store::open_and_exercise(store::memory(&files));
    } else {
        store::in_folder(&files, store::open_folder_and_exercise);
    }
});
