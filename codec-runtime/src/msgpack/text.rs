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
