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
/// (which always fit a `u64`) cannot be passed: their value, and how many
/// were read (0, 8 or 16). The digits after them are the caller's to read,
/// checking for overflow.
#[inline]
pub fn eight_digit_chunks(bytes: &[u8]) -> (u64, usize) {
    let mut value = 0;
    let mut len = 0;
    while len + 8 <= 19 {
        let Some(chunk) = bytes.get(len..len + 8) else {
            break;
        };
        let chunk = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
        if !eight_digits(chunk) {
            break;
        }
        value = value * 100_000_000 + parse_eight_digits(chunk);
        len += 8;
    }
    (value, len)
}

/// Whether the 8 bytes of `chunk` (loaded little-endian) are all ASCII digits.
#[inline]
pub fn eight_digits(chunk: u64) -> bool {
    const HIGH: u64 = 0xf0f0_f0f0_f0f0_f0f0;
    // A digit is 0x30..=0x39: high nibble 3, and adding 6 keeps it 3.
    (chunk & HIGH) | (((chunk.wrapping_add(0x0606_0606_0606_0606)) & HIGH) >> 4)
        == 0x3333_3333_3333_3333
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
            assert!(eight_digits(load(text.as_bytes())), "{text}");
            assert_eq!(parse_eight_digits(load(text.as_bytes())), n, "{text}");
        }
    }

    #[test]
    fn a_chunk_with_any_non_digit_is_refused() {
        for at in 0..8 {
            for b in (0u8..=255).filter(|b| !b.is_ascii_digit()) {
                let mut text = *b"12345678";
                text[at] = b;
                assert!(!eight_digits(load(&text)), "{text:?}");
            }
        }
    }
}
