//! Text checks and copies of the readers.

/// `bytes` as text, if it is UTF-8.
///
/// Short ASCII strings (names, paths, identifiers) dominate stored records,
/// and `str::from_utf8` spends most of its time on them in setup: checking
/// for ASCII first is cheaper.
#[inline]
pub(crate) fn utf8(bytes: &[u8]) -> Option<&str> {
    if is_ascii(bytes) {
        // SAFETY: every byte is below 0x80, so the slice is valid UTF-8.
        Some(unsafe { std::str::from_utf8_unchecked(bytes) })
    } else {
        std::str::from_utf8(bytes).ok()
    }
}

/// `bytes` as an owned `String`, if it is UTF-8.
#[inline]
pub(crate) fn owned_utf8(bytes: &[u8]) -> Option<String> {
    if is_ascii(bytes) {
        // SAFETY: every byte is below 0x80, so the bytes are valid UTF-8.
        Some(unsafe { String::from_utf8_unchecked(copy_short(bytes)) })
    } else {
        std::str::from_utf8(bytes).ok().map(String::from)
    }
}

/// `s` as an owned `String`: `String::from`, without its call to `memcpy`
/// for up to 32 bytes.
#[inline]
pub(crate) fn owned_str(s: &str) -> String {
    // SAFETY: the bytes are copied whole from a `str`: valid UTF-8.
    unsafe { String::from_utf8_unchecked(copy_short(s.as_bytes())) }
}

/// `bytes.to_vec()`, copying 4 to 32 bytes with two overlapping loads and
/// stores instead of a call to `memcpy`: short strings (names, paths,
/// identifiers) dominate records, and the call was 5% of the log
/// workload's decode.
#[inline]
fn copy_short(bytes: &[u8]) -> Vec<u8> {
    let n = bytes.len();
    let mut v = Vec::<u8>::with_capacity(n);
    let p = v.as_mut_ptr();
    // SAFETY: each arm writes two loads of width w (w <= n <= 2w, checked
    // by its condition) at 0 and at n - w: both inside the capacity n, and
    // together they cover 0..n, so all n bytes are initialised before
    // `set_len(n)`.
    unsafe {
        if (17..=32).contains(&n) {
            let head = u128::from_ne_bytes(bytes[..16].try_into().expect("16 bytes"));
            let tail = u128::from_ne_bytes(bytes[n - 16..].try_into().expect("16 bytes"));
            std::ptr::write_unaligned(p.cast::<u128>(), head);
            std::ptr::write_unaligned(p.add(n - 16).cast::<u128>(), tail);
        } else if (8..=16).contains(&n) {
            let head = u64::from_ne_bytes(bytes[..8].try_into().expect("8 bytes"));
            let tail = u64::from_ne_bytes(bytes[n - 8..].try_into().expect("8 bytes"));
            std::ptr::write_unaligned(p.cast::<u64>(), head);
            std::ptr::write_unaligned(p.add(n - 8).cast::<u64>(), tail);
        } else if (4..8).contains(&n) {
            let head = u32::from_ne_bytes(bytes[..4].try_into().expect("4 bytes"));
            let tail = u32::from_ne_bytes(bytes[n - 4..].try_into().expect("4 bytes"));
            std::ptr::write_unaligned(p.cast::<u32>(), head);
            std::ptr::write_unaligned(p.add(n - 4).cast::<u32>(), tail);
        } else {
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), p, n);
        }
        v.set_len(n);
    }
    v
}

/// `<[u8]>::is_ascii` without its byte-by-byte loop over the tail of short
/// slices: up to 32 bytes take two overlapping loads.
#[inline]
fn is_ascii(b: &[u8]) -> bool {
    let n = b.len();
    if (17..=32).contains(&n) {
        let head = u128::from_le_bytes(b[..16].try_into().expect("16 bytes"));
        let tail = u128::from_le_bytes(b[n - 16..].try_into().expect("16 bytes"));
        (head | tail) & 0x8080_8080_8080_8080_8080_8080_8080_8080 == 0
    } else if (8..=16).contains(&n) {
        let head = u64::from_le_bytes(b[..8].try_into().expect("8 bytes"));
        let tail = u64::from_le_bytes(b[n - 8..].try_into().expect("8 bytes"));
        (head | tail) & 0x8080_8080_8080_8080 == 0
    } else if (4..8).contains(&n) {
        let head = u32::from_le_bytes(b[..4].try_into().expect("4 bytes"));
        let tail = u32::from_le_bytes(b[n - 4..].try_into().expect("4 bytes"));
        (head | tail) & 0x8080_8080 == 0
    } else if n < 4 {
        // 1 to 3 bytes: the first, middle and last cover them all.
        n == 0 || (b[0] | b[n / 2] | b[n - 1]) < 0x80
    } else {
        b.is_ascii()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owned_str_copies_every_length() {
        for len in 0..70 {
            let text: String = (0..len).map(|i| (b'a' + (i % 26) as u8) as char).collect();
            let copy = owned_str(&text);
            assert_eq!(copy, text, "{len}");
            assert_eq!(copy.capacity(), len, "{len}");
        }
        assert_eq!(owned_str("日本語の"), "日本語の");
    }

    #[test]
    fn owned_utf8_copies_every_length_and_refuses_what_utf8_refuses() {
        for len in 0..70 {
            let ascii: Vec<u8> = (0..len).map(|i| b'a' + (i % 26) as u8).collect();
            let s = owned_utf8(&ascii).unwrap();
            assert_eq!(s.as_bytes(), &ascii[..], "{len}");
            assert_eq!(s.capacity(), len, "{len}");
            for at in 0..len {
                let mut b = ascii.clone();
                b[at] = 0xc3;
                assert_eq!(owned_utf8(&b), None, "len {len}, a lone lead byte at {at}");
            }
        }
        for text in ["é", "aé", "日本語の", "ascii then é", "0123456789abcde日"] {
            assert_eq!(owned_utf8(text.as_bytes()).as_deref(), Some(text));
        }
    }

    #[test]
    fn is_ascii_agrees_with_std_at_every_length_and_position() {
        for len in 0..70 {
            let ascii = vec![b'a'; len];
            assert!(is_ascii(&ascii), "{len}");
            for at in 0..len {
                let mut b = ascii.clone();
                b[at] = 0xc3;
                assert!(!is_ascii(&b), "len {len}, non-ASCII at {at}");
            }
        }
    }
}
