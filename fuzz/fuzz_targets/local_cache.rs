//! A file of the local cache of remote reads, of hostile bytes: the
//! cache returns the object's bytes, or the file's when its trailer
//! (CRC-32, length, marker) is right for them, never a damaged copy.
//!
//! Input: a byte of flags (bit 0: the file of the whole object rather
//! than of a range; bit 1: give the file a right trailer), two bytes of
//! the object's length (little-endian, cut at what is left), the object,
//! then the file.

#![no_main]

use codec_store::__fuzz;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let [flags, a, b, rest @ ..] = data else {
        return;
    };
    let len = (u16::from_le_bytes([*a, *b]) as usize).min(rest.len());
    let (object, file) = rest.split_at(len);
    let file = match flags & 2 {
        0 => file.to_vec(),
        _ => __fuzz::sealed_local_file(file),
    };
    __fuzz::local_cache_file(&file, object, flags & 1 != 0);
});
