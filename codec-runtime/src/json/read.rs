//! Reading JSON: the pull reader generated decoders call, the JSON
//! counterpart of the MessagePack reader with the same calls where the
//! formats agree (`begin_object`/`next_key` for a map, `read_str`, ...).
//!
//! The input is checked to be UTF-8 once; strings without escapes are then
//! borrowed from it, and the fast paths scan runs of plain bytes at a time.
//! Errors carry the byte offset; nesting is bounded like MessagePack's.

use std::borrow::Cow;

mod escape;

use super::number;
use super::scan::plain_run;
use crate::error::{DecodeError, DecodeErrorKind, Format};
use crate::wire::{Cursor, Integer, DEFAULT_DEPTH_LIMIT};

/// Reads JSON text, borrowing strings from it when they hold no escapes.
///
/// The input is checked to be UTF-8 once, up front; every string read from it
/// is then known valid. Nesting is bounded like [`crate::MsgpackReader`]'s:
/// an object or array counts one level from [`begin_object`](Self::begin_object)
/// or [`begin_array`](Self::begin_array) to the bracket that closes it, and
/// [`nested`](Self::nested) counts one around anything else.
#[derive(Debug, Clone)]
// The cursor first, at the reader's own address (`repr(C)` keeps it there):
// the decode path inlines many calls into it, and reaching it at an offset
// costs instructions there.
#[repr(C)]
pub struct JsonReader<'de> {
    cursor: Cursor<'de>,
    /// The input as text, for slicing strings out of it; the cursor holds
    /// it as bytes, for scanning.
    text: &'de str,
}

impl<'de> JsonReader<'de> {
    /// A reader over JSON text.
    pub fn new(text: &'de str) -> Self {
        Self::with_depth_limit(text, DEFAULT_DEPTH_LIMIT)
    }

    /// A reader over JSON text allowing `limit` levels of nesting.
    pub fn with_depth_limit(text: &'de str, limit: u32) -> Self {
        JsonReader {
            cursor: Cursor::new(text.as_bytes(), limit, Format::Json),
            text,
        }
    }

    /// A reader over bytes that should hold UTF-8 JSON text.
    pub fn from_slice(bytes: &'de [u8]) -> Result<Self, DecodeError> {
        match std::str::from_utf8(bytes) {
            Ok(text) => Ok(Self::new(text)),
            Err(e) => {
                Err(DecodeError::new(DecodeErrorKind::InvalidUtf8)
                    .at(Format::Json, e.valid_up_to()))
            }
        }
    }

    /// The offset of the next byte to read.
    #[inline]
    pub fn position(&self) -> usize {
        self.cursor.pos
    }

    /// Moves to an offset previously returned by [`position`](Self::position).
    #[inline]
    pub fn seek(&mut self, pos: usize) {
        self.cursor.seek(pos);
    }

    /// An error at the current offset.
    #[cold]
    pub fn error(&self, kind: DecodeErrorKind) -> DecodeError {
        self.cursor.error(kind)
    }

    /// Adds the current offset to an error built elsewhere.
    #[cold]
    pub fn locate(&self, err: DecodeError) -> DecodeError {
        self.cursor.locate(err)
    }

    /// An "expected X, found `<the next value>`" error.
    #[cold]
    pub fn unexpected(&mut self, expected: &'static str) -> DecodeError {
        match self.peek() {
            Ok(_) => {
                let found = describe_value(self.cursor.rest());
                self.cursor.invalid_type(expected, found)
            }
            Err(e) => e,
        }
    }

    /// Runs `read` one level of nesting deeper: fails past the depth limit,
    /// and gives the level back when `read` returns, with a value or an error.
    ///
    /// Objects and arrays count their level themselves, from `begin_object`
    /// or `begin_array` to their closing bracket; `nested` is for what nests
    /// without brackets of its own, such as a wrapper around another value.
    #[inline(always)]
    pub fn nested<T>(
        &mut self,
        read: impl FnOnce(&mut Self) -> Result<T, DecodeError>,
    ) -> Result<T, DecodeError> {
        self.cursor.enter()?;
        let out = read(self);
        self.cursor.leave();
        out
    }

    #[inline]
    fn skip_ws(&mut self) {
        while let Some(b) = self.cursor.peek() {
            if !matches!(b, b' ' | b'\n' | b'\r' | b'\t') {
                break;
            }
            self.cursor.pos += 1;
        }
    }

    /// The next non-whitespace byte, not consumed.
    #[inline]
    pub fn peek(&mut self) -> Result<u8, DecodeError> {
        self.skip_ws();
        match self.cursor.peek() {
            Some(b) => Ok(b),
            None => Err(self.cursor.eof("a value")),
        }
    }

    /// The kind of the next value, not consumed.
    pub fn peek_kind(&mut self) -> Result<crate::kind::WireKind, DecodeError> {
        use crate::kind::WireKind as K;
        Ok(match self.peek()? {
            b'n' => K::NIL,
            b't' | b'f' => K::BOOL,
            b'"' => K::STR,
            b'[' => K::ARRAY,
            b'{' => K::MAP,
            b'-' | b'0'..=b'9' => {
                let (_, is_float) = number::scan(self.cursor.rest(), 0);
                if is_float {
                    K::FLOAT
                } else {
                    K::INT
                }
            }
            _ => K::NONE,
        })
    }

    /// Fails unless only whitespace remains.
    pub fn finish(&mut self) -> Result<(), DecodeError> {
        self.skip_ws();
        self.cursor.finish()
    }

    fn expect_literal(
        &mut self,
        lit: &'static [u8],
        what: &'static str,
    ) -> Result<(), DecodeError> {
        if self.cursor.take_prefix(lit) {
            Ok(())
        } else {
            Err(self.unexpected(what))
        }
    }

    /// Consumes `null` (nil, in JSON) if it comes next; true if it did.
    #[inline]
    pub fn try_read_nil(&mut self) -> bool {
        self.skip_ws();
        self.cursor.take_prefix(b"null")
    }

    /// Reads `null` (nil, in JSON).
    pub fn read_nil(&mut self) -> Result<(), DecodeError> {
        if self.try_read_nil() {
            Ok(())
        } else {
            Err(self.unexpected("null"))
        }
    }

    /// Reads `true` or `false`.
    pub fn read_bool(&mut self) -> Result<bool, DecodeError> {
        match self.peek()? {
            b't' => self.expect_literal(b"true", "a boolean").map(|_| true),
            b'f' => self.expect_literal(b"false", "a boolean").map(|_| false),
            _ => Err(self.unexpected("a boolean")),
        }
    }

    /// Reads an integer; a number with a fraction or exponent is an error.
    #[inline]
    pub fn read_integer(&mut self) -> Result<Integer, DecodeError> {
        let first = self.peek()?;
        let start = self.cursor.pos;
        let negative = first == b'-';
        let mut i = start + negative as usize;
        let digits_start = i;
        let (mut value, chunked) = number::eight_digit_chunks(&self.cursor.buf[i..]);
        i += chunked;
        let mut overflow = false;
        while let Some(&d) = self.cursor.buf.get(i) {
            if !d.is_ascii_digit() {
                break;
            }
            // 19 digits always fit in a u64: check only past them.
            if i - digits_start < 19 {
                value = value * 10 + (d - b'0') as u64;
            } else {
                match value
                    .checked_mul(10)
                    .and_then(|v| v.checked_add((d - b'0') as u64))
                {
                    Some(v) => value = v,
                    None => overflow = true,
                }
            }
            i += 1;
        }
        let ndigits = i - digits_start;
        if ndigits == 0 {
            return Err(if negative {
                self.cursor.syntax("malformed number")
            } else {
                self.unexpected("an integer")
            });
        }
        if matches!(self.cursor.buf.get(i), Some(b'.' | b'e' | b'E')) {
            let (end, _) = number::scan(self.cursor.buf, start);
            number::check_syntax(self.cursor.buf, start, end)?;
            return Err(self.cursor.invalid_type("an integer", "a float"));
        }
        if ndigits > 1 && self.cursor.buf[digits_start] == b'0' {
            return Err(self.cursor.syntax("malformed number: leading zero"));
        }
        if overflow {
            return Err(self.out_of_range(start, i, "a 64-bit integer"));
        }
        self.cursor.pos = i;
        if !negative {
            Ok(Integer::Pos(value))
        } else if value <= i64::MAX as u64 + 1 {
            Ok(Integer::Neg((value as i64).wrapping_neg()).normalize())
        } else {
            Err(self.out_of_range(start, i, "a 64-bit integer"))
        }
    }

    #[cold]
    fn out_of_range(&self, start: usize, end: usize, target: &'static str) -> DecodeError {
        let value = String::from_utf8_lossy(&self.cursor.buf[start..end]).into_owned();
        self.cursor
            .error_at(DecodeErrorKind::IntOutOfRange { value, target }, start)
    }

    /// Reads an integer and converts it to `T`, failing if it does not fit.
    #[inline]
    pub fn read_int<T>(&mut self, target: &'static str) -> Result<T, DecodeError>
    where
        T: TryFrom<u64> + TryFrom<i64>,
    {
        self.skip_ws();
        let start = self.cursor.pos;
        let value = self.read_integer().map_err(|e| match e.kind() {
            DecodeErrorKind::IntOutOfRange { .. } => {
                self.out_of_range(start, number::scan(self.cursor.buf, start).0, target)
            }
            _ => e,
        })?;
        let converted = match value {
            Integer::Pos(v) => T::try_from(v).ok(),
            Integer::Neg(v) => T::try_from(v).ok(),
        };
        converted.ok_or_else(|| self.out_of_range(start, self.cursor.pos, target))
    }

    /// Reads the text of a number without converting it (for 128-bit integers).
    pub fn read_number_text(&mut self) -> Result<&'de str, DecodeError> {
        let first = self.peek()?;
        if !(first == b'-' || first.is_ascii_digit()) {
            return Err(self.unexpected("a number"));
        }
        let start = self.cursor.pos;
        let (end, _) = number::scan(self.cursor.buf, start);
        number::check_syntax(self.cursor.buf, start, end)?;
        self.cursor.pos = end;
        // The input was checked to be UTF-8, and a number is ASCII.
        Ok(self.text.get(start..end).unwrap_or_default())
    }

    /// Reads a number as a float; integers are accepted.
    #[inline]
    pub fn read_f64(&mut self) -> Result<f64, DecodeError> {
        let first = self.peek()?;
        if !(first == b'-' || first.is_ascii_digit()) {
            return Err(self.unexpected("a float"));
        }
        let start = self.cursor.pos;
        let text = self.read_number_text()?;
        text.parse::<f64>().map_err(|_| {
            let message = "malformed number".into();
            self.cursor
                .error_at(DecodeErrorKind::Syntax { message }, start)
        })
    }

    /// Reads a string, borrowed from the input when it holds no escapes.
    #[inline]
    pub fn read_str(&mut self) -> Result<Cow<'de, str>, DecodeError> {
        if self.peek()? != b'"' {
            return Err(self.unexpected("a string"));
        }
        self.cursor.pos += 1;
        let start = self.cursor.pos;
        let buf = self.cursor.buf;
        let mut i = start + plain_run(&buf[start..]);
        while i < buf.len() {
            match buf[i] {
                b'"' => {
                    self.cursor.pos = i + 1;
                    return Ok(Cow::Borrowed(self.text(start, i)));
                }
                b'\\' => return self.read_escaped(start, i).map(Cow::Owned),
                0..=0x1f => {
                    self.cursor.pos = i;
                    return Err(self
                        .cursor
                        .syntax("control character inside a string; escape it"));
                }
                _ => i += 1,
            }
        }
        self.cursor.pos = buf.len();
        Err(self.cursor.eof("a string"))
    }

    #[inline]
    fn text(&self, start: usize, end: usize) -> &'de str {
        // `start` and `end` sit next to ASCII quote, escape or number bytes:
        // char boundaries, so this slicing never fails.
        self.text.get(start..end).unwrap_or_default()
    }

    /// Consumes `{` and enters a level of nesting.
    #[inline]
    pub fn begin_object(&mut self) -> Result<(), DecodeError> {
        if self.peek()? != b'{' {
            return Err(self.unexpected("an object"));
        }
        self.cursor.enter()?;
        self.cursor.pos += 1;
        Ok(())
    }

    /// The next key of an object, with its colon consumed; `None` (and the
    /// level left) at `}`. `first` tracks whether a comma is due.
    #[inline]
    pub fn next_key(&mut self, first: &mut bool) -> Result<Option<Cow<'de, str>>, DecodeError> {
        let b = self.peek()?;
        if b == b'}' {
            self.cursor.pos += 1;
            self.cursor.leave();
            return Ok(None);
        }
        if !*first {
            if b != b',' {
                return Err(self
                    .cursor
                    .syntax("expected `,` or `}` after an object entry"));
            }
            self.cursor.pos += 1;
            if self.peek()? != b'"' {
                return Err(self.cursor.syntax("expected a string key after `,`"));
            }
        } else if b != b'"' {
            return Err(self.cursor.syntax("expected a string key or `}`"));
        }
        *first = false;
        let key = self.read_str()?;
        if self.peek()? != b':' {
            return Err(self.cursor.syntax("expected `:` after an object key"));
        }
        self.cursor.pos += 1;
        Ok(Some(key))
    }

    /// Consumes the next object key and its colon (and the comma before it,
    /// unless `first`) if the key is exactly `quoted` (a key as the derive
    /// quotes it at compile time); true if it did. Otherwise nothing moves and
    /// [`next_key`](Self::next_key) reads the key, whatever its spelling.
    #[inline(always)]
    pub fn next_key_is(&mut self, first: &mut bool, quoted: &[u8]) -> bool {
        let start = self.cursor.pos;
        self.skip_ws();
        if !*first {
            if self.cursor.peek() != Some(b',') {
                self.cursor.pos = start;
                return false;
            }
            self.cursor.pos += 1;
            self.skip_ws();
        }
        if self.cursor.take_prefix(quoted) {
            self.skip_ws();
            if self.cursor.peek() == Some(b':') {
                self.cursor.pos += 1;
                *first = false;
                return true;
            }
        }
        self.cursor.pos = start;
        false
    }

    /// Consumes `[` and enters a level of nesting.
    #[inline]
    pub fn begin_array(&mut self) -> Result<(), DecodeError> {
        if self.peek()? != b'[' {
            return Err(self.unexpected("an array"));
        }
        self.cursor.enter()?;
        self.cursor.pos += 1;
        Ok(())
    }

    /// Whether another array element follows (its comma consumed); at `]`,
    /// false and the level left.
    #[inline]
    pub fn next_element(&mut self, first: &mut bool) -> Result<bool, DecodeError> {
        let b = self.peek()?;
        if b == b']' {
            self.cursor.pos += 1;
            self.cursor.leave();
            return Ok(false);
        }
        if !*first {
            if b != b',' {
                return Err(self
                    .cursor
                    .syntax("expected `,` or `]` after an array element"));
            }
            self.cursor.pos += 1;
            if self.peek()? == b']' {
                return Err(self.cursor.syntax("trailing comma in an array"));
            }
        }
        *first = false;
        Ok(true)
    }

    /// Skips one complete value.
    pub fn skip_value(&mut self) -> Result<(), DecodeError> {
        match self.peek()? {
            b'{' => {
                self.begin_object()?;
                let mut first = true;
                while self.next_key(&mut first)?.is_some() {
                    self.skip_value()?;
                }
                Ok(())
            }
            b'[' => {
                self.begin_array()?;
                let mut first = true;
                while self.next_element(&mut first)? {
                    self.skip_value()?;
                }
                Ok(())
            }
            b'"' => self.read_str().map(drop),
            b'n' => self.read_nil(),
            b't' | b'f' => self.read_bool().map(drop),
            b'-' | b'0'..=b'9' => self.read_number_text().map(drop),
            _ => Err(self.cursor.syntax("expected a JSON value")),
        }
    }

    /// Returns the text of the next complete value and moves past it.
    pub fn read_raw_value(&mut self) -> Result<&'de str, DecodeError> {
        self.skip_ws();
        let start = self.cursor.pos;
        self.skip_value()?;
        Ok(self.text(start, self.cursor.pos))
    }
}

/// What the JSON value at the start of `rest` is, for an error that names it.
fn describe_value(rest: &[u8]) -> &'static str {
    match rest[0] {
        b'-' | b'0'..=b'9' if number::scan(rest, 0).1 => "a float",
        b'-' | b'0'..=b'9' => "an integer",
        b'n' => "null",
        b't' | b'f' => "a boolean",
        b'"' => "a string",
        b'[' => "an array",
        b'{' => "an object",
        _ => "invalid JSON",
    }
}
