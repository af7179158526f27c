//! Text checks of the MessagePack reader.

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
///
/// Up to 32 ASCII bytes are checked and copied with the same two
/// overlapping loads: no call to `memcpy` for the short strings that
/// dominate records (measured on the log workload's decode).
#[inline]
pub(crate) fn owned_utf8(bytes: &[u8]) -> Option<String> {
    let n = bytes.len();
    if (17..=32).contains(&n) {
        let head = u128::from_ne_bytes(bytes[..16].try_into().expect("16 bytes"));
        let tail = u128::from_ne_bytes(bytes[n - 16..].try_into().expect("16 bytes"));
        if (head | tail) & 0x8080_8080_8080_8080_8080_8080_8080_8080 == 0 {
            let mut v = Vec::<u8>::with_capacity(n);
            // SAFETY: as below, with 16-byte writes covering 0..n for 16 < n <= 32.
            unsafe {
                let p = v.as_mut_ptr();
                std::ptr::write_unaligned(p.cast::<u128>(), head);
                std::ptr::write_unaligned(p.add(n - 16).cast::<u128>(), tail);
                v.set_len(n);
            }
            // SAFETY: every byte is below 0x80 (checked above): valid UTF-8.
            return Some(unsafe { String::from_utf8_unchecked(v) });
        }
    } else if (8..=16).contains(&n) {
        let head = u64::from_ne_bytes(bytes[..8].try_into().expect("8 bytes"));
        let tail = u64::from_ne_bytes(bytes[n - 8..].try_into().expect("8 bytes"));
        if (head | tail) & 0x8080_8080_8080_8080 == 0 {
            let mut v = Vec::<u8>::with_capacity(n);
            // SAFETY: the capacity is n >= 8, so both 8-byte writes, at 0 and
            // at n - 8, are inside it; together they cover 0..n (n <= 16), so
            // all n bytes are initialised before `set_len(n)`.
            unsafe {
                let p = v.as_mut_ptr();
                std::ptr::write_unaligned(p.cast::<u64>(), head);
                std::ptr::write_unaligned(p.add(n - 8).cast::<u64>(), tail);
                v.set_len(n);
            }
            // SAFETY: every byte is below 0x80 (checked above): valid UTF-8.
            return Some(unsafe { String::from_utf8_unchecked(v) });
        }
    } else if (4..8).contains(&n) {
        let head = u32::from_ne_bytes(bytes[..4].try_into().expect("4 bytes"));
        let tail = u32::from_ne_bytes(bytes[n - 4..].try_into().expect("4 bytes"));
        if (head | tail) & 0x8080_8080 == 0 {
            let mut v = Vec::<u8>::with_capacity(n);
            // SAFETY: as above, with 4-byte writes covering 0..n for 4 <= n < 8.
            unsafe {
                let p = v.as_mut_ptr();
                std::ptr::write_unaligned(p.cast::<u32>(), head);
                std::ptr::write_unaligned(p.add(n - 4).cast::<u32>(), tail);
                v.set_len(n);
            }
            // SAFETY: every byte is below 0x80 (checked above): valid UTF-8.
            return Some(unsafe { String::from_utf8_unchecked(v) });
        }
    }
    utf8(bytes).map(String::from)
}

/// `<[u8]>::is_ascii` without its byte-by-byte loop over the tail of short
/// slices: up to 16 bytes take two overlapping loads.
#[inline]
fn is_ascii(b: &[u8]) -> bool {
    let n = b.len();
    if (8..=16).contains(&n) {
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
    fn owned_utf8_copies_every_length_and_refuses_what_utf8_refuses() {
        for len in 0..40 {
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
        for len in 0..40 {
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
