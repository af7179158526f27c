//! The grammar of JSON numbers.

use crate::error::{DecodeError, DecodeErrorKind, Format};

/// Scans a number starting at `start`: its end, and whether it has a fraction or exponent.
pub fn scan(b: &[u8], start: usize) -> (usize, bool) {
    let mut i = start;
    if b.get(i) == Some(&b'-') {
        i += 1;
    }
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    let mut is_float = false;
    if b.get(i) == Some(&b'.') {
        is_float = true;
        i += 1;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        is_float = true;
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
    }
    (i, is_float)
}

/// Checks that `buf[start..end]`, which [`scan`] took for a number, is
/// one by JSON's grammar.
pub fn check_syntax(buf: &[u8], start: usize, end: usize) -> Result<(), DecodeError> {
    let text = &buf[start..end];
    let digits = text.strip_prefix(b"-").unwrap_or(text);
    let int_part_len = digits.iter().take_while(|b| b.is_ascii_digit()).count();
    let valid = int_part_len > 0
        && (int_part_len == 1 || digits[0] != b'0')
        && !text.ends_with(b".")
        && !text.ends_with(b"e")
        && !text.ends_with(b"E")
        && !text.ends_with(b"+")
        && !text.ends_with(b"-")
        && !text.windows(2).any(|w| w == b".e" || w == b".E");
    if valid {
        Ok(())
    } else {
        Err(DecodeError::new(DecodeErrorKind::Syntax {
            message: "malformed number".into(),
        })
        .at(Format::Json, start))
    }
}

/// The leading digits of `bytes` read eight at a time, while 19 digits
/// (which always fit a `u64`) cannot be passed, then the last run of fewer
/// than eight where eight bytes can be loaded: their value, and how many
/// were read. The digits after them (at most the ones past the 19th, or a
/// short run at the end of the input) are the caller's to read, checking
/// for overflow.
#[inline]
pub fn eight_digit_chunks(bytes: &[u8]) -> (u64, usize) {
    let mut value = 0;
    let mut len = 0;
    while len + 8 <= 19 {
        let Some(chunk) = bytes.get(len..len + 8) else {
            break;
        };
        let chunk = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
        let digits = leading_digits(chunk);
        if digits < 8 {
            // Most numbers end here: 1 to 7 digits, then `,` `]` `}` or a
            // space, read in one step from the same 8 bytes.
            if digits > 0 && len + digits <= 19 {
                value = value * POWERS_OF_TEN[digits] + parse_leading_digits(chunk, digits);
                len += digits;
            }
            break;
        }
        value = value * 100_000_000 + parse_eight_digits(chunk);
        len += 8;
    }
    (value, len)
}

/// 10 to the power of the index, for up to 8 digits.
const POWERS_OF_TEN: [u64; 9] = [
    1,
    10,
    100,
    1_000,
    10_000,
    100_000,
    1_000_000,
    10_000_000,
    100_000_000,
];

/// How many of the 8 bytes of `chunk` (loaded little-endian, first byte
/// lowest) are ASCII digits before the first that is not: 0 to 8.
#[inline]
pub fn leading_digits(chunk: u64) -> usize {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // A digit's byte XOR `0` is 0 to 9: adding 0x76 to its low 7 bits stays
    // below 0x80 (no carry leaves a byte), and its own high bit is clear.
    let x = chunk ^ 0x3030_3030_3030_3030;
    let not_digit = (((x & LOW7) + 0x7676_7676_7676_7676) | x) & HIGH;
    (not_digit.trailing_zeros() / 8) as usize
}

/// The value of the first `digits` bytes of `chunk` (1 to 7, all ASCII
/// digits): moved to the top of the word, with `0`s below them, and read as
/// 8 digits.
#[inline]
pub fn parse_leading_digits(chunk: u64, digits: usize) -> u64 {
    debug_assert!((1..8).contains(&digits));
    let shift = 8 * (8 - digits) as u32;
    parse_eight_digits((chunk << shift) | (0x3030_3030_3030_3030 >> (64 - shift)))
}

/// The value of 8 ASCII digits (loaded little-endian, first digit lowest),
/// combined pairwise: 2, 4, then 8 digits per lane.
#[inline]
pub fn parse_eight_digits(chunk: u64) -> u64 {
    let v = chunk - 0x3030_3030_3030_3030;
    let v = (v * 10 + (v >> 8)) & 0x00ff_00ff_00ff_00ff;
    let v = (v * 100 + (v >> 16)) & 0x0000_ffff_0000_ffff;
    (v * 10_000 + (v >> 32)) & 0xffff_ffff
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(text: &[u8]) -> u64 {
        u64::from_le_bytes(text.try_into().unwrap())
    }

    #[test]
    fn eight_digits_are_recognised_and_parsed() {
        for n in [
            0u64, 1, 9, 10, 12_345_678, 99_999_999, 10_000_000, 70_000_007,
        ] {
            let text = format!("{n:08}");
            assert_eq!(leading_digits(load(text.as_bytes())), 8, "{text}");
            assert_eq!(parse_eight_digits(load(text.as_bytes())), n, "{text}");
        }
    }

    #[test]
    fn leading_digits_are_counted_and_parsed_before_any_other_byte() {
        for digits in 0..=8 {
            for stop in (0u8..=255).filter(|b| !b.is_ascii_digit()) {
                let mut text = *b"98765432";
                if digits < 8 {
                    text[digits] = stop;
                    // What follows the stop never counts, digits or not.
                    text[7] = if digits < 7 { b'1' } else { stop };
                }
                let chunk = load(&text);
                assert_eq!(leading_digits(chunk), digits, "{text:?}");
                if (1..8).contains(&digits) {
                    let expected: u64 = std::str::from_utf8(&text[..digits])
                        .unwrap()
                        .parse()
                        .unwrap();
                    assert_eq!(parse_leading_digits(chunk, digits), expected, "{text:?}");
                }
            }
        }
    }

    #[test]
    fn digit_runs_of_every_length_read_as_the_standard_library_reads_them() {
        for len in 1..=19 {
            let digits: String = (0..len).map(|i| char::from(b'1' + (i % 9) as u8)).collect();
            for tail in ["", ",", "]  ", "}, 12345678"] {
                let text = format!("{digits}{tail}");
                let (mut value, read) = eight_digit_chunks(text.as_bytes());
                assert!(read <= len, "{text}: read {read} of {len} digits");
                // The caller reads the rest one by one, as `read_integer` does.
                for d in &text.as_bytes()[read..len] {
                    value = value * 10 + (d - b'0') as u64;
                }
                assert_eq!(value, digits.parse::<u64>().unwrap(), "{text}: read {read}");
                // One by one only at the end of the input, or past 16 digits.
                assert!(
                    read == len || text.len() - read < 8 || read == 16,
                    "{text}: read {read}"
                );
            }
        }
    }

    #[test]
    fn a_chunk_with_any_non_digit_is_refused() {
        for at in 0..8 {
            for b in (0u8..=255).filter(|b| !b.is_ascii_digit()) {
                let mut text = *b"12345678";
                text[at] = b;
                assert!(leading_digits(load(&text)) < 8, "{text:?}");
            }
        }
    }
}
