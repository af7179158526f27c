//! Word-at-a-time scanning of JSON string text.

/// How many bytes at the start of `bytes` need no attention inside a string:
/// none is a quote, a backslash or a control character. Scans 8 bytes at a
/// time; the byte loop after it finds the same answer, only slower.
#[inline]
pub(super) fn plain_run(bytes: &[u8]) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // The high bit of each byte of `below(x, n)` is set where a byte of `x`
    // is below `n` (n <= 0x80); a borrow can set it above a true hit, never
    // below one, so the lowest set bit is exact.
    let below = |x: u64, n: u8| x.wrapping_sub(ONES * n as u64) & !x & HIGH;
    let mut i = 0;
    while let Some(chunk) = bytes.get(i..i + 8) {
        let x = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
        let hits = below(x ^ (ONES * b'"' as u64), 1)
            | below(x ^ (ONES * b'\\' as u64), 1)
            | below(x, 0x20);
        if hits != 0 {
            return i + (hits.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_run_stops_at_the_first_byte_that_needs_attention() {
        for len in 0..24 {
            for stop in [b'"', b'\\', 0x00, 0x1f, b'\n'] {
                for at in 0..len {
                    let mut b: Vec<u8> = (0..len)
                        .map(|i| [b'a', 0x7f, 0xc3, 0xa9, b' '][i % 5])
                        .collect();
                    b[at] = stop;
                    // Bytes after the stop that also need attention must not move it.
                    if at + 1 < len {
                        b[len - 1] = b'"';
                    }
                    // Whole words only: a stop in the tail is left to the byte loop.
                    assert_eq!(plain_run(&b), at.min(len / 8 * 8), "{len} {at} {stop}");
                }
                let plain: Vec<u8> = vec![0xe2; len];
                assert_eq!(plain_run(&plain), len / 8 * 8);
            }
        }
    }
}
