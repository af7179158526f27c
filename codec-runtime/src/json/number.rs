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
