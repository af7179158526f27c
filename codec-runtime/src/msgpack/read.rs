//! Reading MessagePack: the pull reader generated decoders call, one value
//! part at a time (`read_map_len`, `read_str`, `next_key_is`, ...).
//!
//! It accepts every form a MessagePack writer may choose (an integer in any
//! width, a string in any header), since msgspec and other writers do not
//! always write the shortest. Strings and buffers are borrowed from the
//! input. Bad input is an error carrying its byte offset, never a panic:
//! nesting is bounded by a depth limit, and a length read from the input
//! only preallocates what the rest of the input could hold
//! (`capacity_hint`).

use super::marker::{describe_marker, marker_kind};
use super::out_of_band::OutOfBand;
use crate::error::{DecodeError, DecodeErrorKind, Format};
use crate::text::{owned_utf8, utf8};
use crate::wire::{Cursor, Integer, DEFAULT_DEPTH_LIMIT};

/// Reads MessagePack from a byte slice, borrowing strings and buffers from it.
///
/// Every method that fails returns a [`DecodeError`] carrying the byte offset.
/// Nesting is bounded by a depth limit: generated decoders and container
/// impls read what is inside an array, a map or a wrapper through
/// [`nested`](Self::nested), which counts one level.
#[derive(Debug, Clone)]
// The cursor first, at the reader's own address (`repr(C)` keeps it there):
// the decode path inlines many calls into it, and reaching it at an offset
// costs instructions there.
#[repr(C)]
pub struct MsgpackReader<'de> {
    pub(super) cursor: Cursor<'de>,
    /// Byte buffers kept out of band: see [`with_out_of_band`](Self::with_out_of_band).
    pub(super) out_of_band: Option<&'de OutOfBand<'de>>,
}

impl<'de> MsgpackReader<'de> {
    /// A reader over `buf` with the default depth limit.
    pub fn new(buf: &'de [u8]) -> Self {
        Self::with_depth_limit(buf, DEFAULT_DEPTH_LIMIT)
    }

    /// A reader over `buf` allowing `limit` levels of nesting.
    pub fn with_depth_limit(buf: &'de [u8], limit: u32) -> Self {
        MsgpackReader {
            cursor: Cursor::new(buf, limit, Format::MsgPack),
            out_of_band: None,
        }
    }

    /// The offset of the next byte to read.
    #[inline]
    pub fn position(&self) -> usize {
        self.cursor.pos
    }

    /// Moves back (or forward) to an offset previously returned by [`position`](Self::position).
    #[inline]
    pub fn seek(&mut self, pos: usize) {
        self.cursor.seek(pos);
    }

    /// How many bytes are left.
    #[inline]
    pub fn remaining(&self) -> usize {
        self.cursor.remaining()
    }

    /// Fails unless the whole input was consumed.
    pub fn finish(&self) -> Result<(), DecodeError> {
        self.cursor.finish()
    }

    /// Runs `read` one level of nesting deeper: fails past the depth limit,
    /// and gives the level back when `read` returns, with a value or an error.
    ///
    /// Decoders of containers read their contents through it, after the
    /// header, so that input nested deeper than the limit is an error rather
    /// than a stack overflow:
    ///
    /// ```
    /// # use codec::{DecodeError, MsgpackReader};
    /// fn read_list(r: &mut MsgpackReader<'_>) -> Result<Vec<u64>, DecodeError> {
    ///     let len = r.read_array_len()?;
    ///     r.nested(|r| {
    ///         let mut items = Vec::with_capacity(r.capacity_hint(len));
    ///         for _ in 0..len {
    ///             items.push(r.read_int("u64")?);
    ///         }
    ///         Ok(items)
    ///     })
    /// }
    /// assert_eq!(read_list(&mut MsgpackReader::new(&[0x92, 1, 2]))?, [1, 2]);
    /// # Ok::<(), DecodeError>(())
    /// ```
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
    pub fn unexpected(&self, expected: &'static str) -> DecodeError {
        match self.cursor.peek() {
            Some(m) => self.cursor.invalid_type(expected, describe_marker(m)),
            None => self.cursor.eof(expected),
        }
    }

    /// The next marker byte, not consumed.
    #[inline]
    pub fn peek(&self) -> Result<u8, DecodeError> {
        match self.cursor.peek() {
            Some(b) => Ok(b),
            None => Err(self.cursor.eof("a value")),
        }
    }

    /// The kind of the next value, not consumed.
    pub fn peek_kind(&self) -> Result<crate::kind::WireKind, DecodeError> {
        let kind = marker_kind(self.peek()?);
        if kind == crate::kind::WireKind::EXT {
            if self.out_of_band.is_some() && self.out_of_band_here().is_some() {
                return Ok(crate::kind::WireKind::BYTES);
            }
            // A value kept by its handler, where the store reads it.
            if let Some(kinds) = self
                .peek_placeholder()
                .filter(|_| Self::reads_placeholders())
            {
                return Ok(kinds);
            }
        }
        Ok(kind)
    }

    #[inline]
    fn read_len(&mut self, width: u8, what: &'static str) -> Result<usize, DecodeError> {
        let c = &mut self.cursor;
        Ok(match width {
            1 => c.take_array::<1>(what)?[0] as usize,
            2 => u16::from_be_bytes(c.take_array(what)?) as usize,
            _ => u32::from_be_bytes(c.take_array(what)?) as usize,
        })
    }

    /// Consumes a `nil` if it comes next; true if it did.
    #[inline]
    pub fn try_read_nil(&mut self) -> bool {
        if self.cursor.peek() == Some(0xc0) {
            self.cursor.pos += 1;
            true
        } else {
            false
        }
    }

    /// Reads `nil`.
    pub fn read_nil(&mut self) -> Result<(), DecodeError> {
        if self.try_read_nil() {
            Ok(())
        } else {
            Err(self.unexpected("nil"))
        }
    }

    /// Reads a boolean.
    #[inline]
    pub fn read_bool(&mut self) -> Result<bool, DecodeError> {
        match self.peek()? {
            0xc2 => {
                self.cursor.pos += 1;
                Ok(false)
            }
            0xc3 => {
                self.cursor.pos += 1;
                Ok(true)
            }
            _ => Err(self.unexpected("a boolean")),
        }
    }

    /// Reads an integer of any width.
    #[inline(always)]
    pub fn read_integer(&mut self) -> Result<Integer, DecodeError> {
        let m = self.peek()?;
        if m < 0x80 {
            self.cursor.pos += 1;
            return Ok(Integer::Pos(m as u64));
        }
        if m >= 0xe0 {
            self.cursor.pos += 1;
            return Ok(Integer::Neg(m as i8 as i64));
        }
        if (0xcc..=0xd3).contains(&m) && self.remaining() > 8 {
            // One big-endian load of 8 bytes, shifted down to the width the
            // marker gives: no branch on the width, which varies value to value.
            let width = 1usize << ((m - 0xcc) & 3);
            let at = self.cursor.pos + 1;
            let raw = u64::from_be_bytes(self.cursor.buf[at..at + 8].try_into().expect("8 bytes"));
            let shift = 64 - 8 * width as u32;
            self.cursor.pos = at + width;
            return Ok(if m < 0xd0 {
                Integer::Pos(raw >> shift)
            } else {
                signed((raw as i64) >> shift)
            });
        }
        self.read_integer_slow(m)
    }

    /// [`read_integer`](Self::read_integer) near the end of the input, or on a non-integer.
    #[inline(never)]
    fn read_integer_slow(&mut self, m: u8) -> Result<Integer, DecodeError> {
        if !(0xcc..=0xd3).contains(&m) {
            return Err(self.unexpected("an integer"));
        }
        let c = &mut self.cursor;
        c.pos += 1;
        let value = match m {
            0xcc => Integer::Pos(c.take_array::<1>("an integer")?[0] as u64),
            0xcd => Integer::Pos(u16::from_be_bytes(c.take_array("an integer")?) as u64),
            0xce => Integer::Pos(u32::from_be_bytes(c.take_array("an integer")?) as u64),
            0xcf => Integer::Pos(u64::from_be_bytes(c.take_array("an integer")?)),
            0xd0 => signed(i8::from_be_bytes(c.take_array("an integer")?) as i64),
            0xd1 => signed(i16::from_be_bytes(c.take_array("an integer")?) as i64),
            0xd2 => signed(i32::from_be_bytes(c.take_array("an integer")?) as i64),
            _ => signed(i64::from_be_bytes(c.take_array("an integer")?)),
        };
        Ok(value)
    }

    /// Reads an integer and converts it to `T`, failing if it does not fit.
    #[inline(always)]
    pub fn read_int<T>(&mut self, target: &'static str) -> Result<T, DecodeError>
    where
        T: TryFrom<u64> + TryFrom<i64>,
    {
        let start = self.cursor.pos;
        let value = self.read_integer()?;
        let converted = match value {
            Integer::Pos(v) => T::try_from(v).ok(),
            Integer::Neg(v) => T::try_from(v).ok(),
        };
        match converted {
            Some(v) => Ok(v),
            None => Err(int_out_of_range(value, target, start)),
        }
    }

    /// Reads a float; integers are accepted and converted, as msgspec does.
    #[inline]
    pub fn read_f64(&mut self) -> Result<f64, DecodeError> {
        match self.peek()? {
            0xcb => {
                self.cursor.pos += 1;
                Ok(f64::from_be_bytes(self.cursor.take_array("a float")?))
            }
            0xca => {
                self.cursor.pos += 1;
                Ok(f32::from_be_bytes(self.cursor.take_array("a float")?) as f64)
            }
            m if !(0x80..0xe0).contains(&m) || (0xcc..=0xd3).contains(&m) => {
                match self.read_integer()? {
                    Integer::Pos(v) => Ok(v as f64),
                    Integer::Neg(v) => Ok(v as f64),
                }
            }
            _ => Err(self.unexpected("a float")),
        }
    }

    /// Reads a string's bytes without checking UTF-8 (for matching field names and tags).
    #[inline(always)]
    pub fn read_str_bytes(&mut self) -> Result<&'de [u8], DecodeError> {
        // Field names, tags and most values are fixstr: inline that path only.
        if let Some(m) = self.cursor.peek() {
            let len = (m & 0x1f) as usize;
            if m & 0xe0 == 0xa0 && len < self.remaining() {
                let start = self.cursor.pos + 1;
                self.cursor.pos = start + len;
                return Ok(&self.cursor.buf[start..start + len]);
            }
        }
        self.read_str_bytes_slow()
    }

    #[inline(never)]
    fn read_str_bytes_slow(&mut self) -> Result<&'de [u8], DecodeError> {
        let m = self.peek()?;
        let len = match m {
            0xa0..=0xbf => {
                self.cursor.pos += 1;
                (m & 0x1f) as usize
            }
            0xd9 => {
                self.cursor.pos += 1;
                self.read_len(1, "a string")?
            }
            0xda => {
                self.cursor.pos += 1;
                self.read_len(2, "a string")?
            }
            0xdb => {
                self.cursor.pos += 1;
                self.read_len(4, "a string")?
            }
            _ => return Err(self.unexpected("a string")),
        };
        self.cursor.take(len, "a string")
    }

    /// Consumes the next value if its bytes are exactly `encoded` (a key as
    /// the derive encodes it at compile time); true if it did.
    ///
    /// Generated decoders try each field's key in declaration order first,
    /// the order encoders write: one comparison per key, no dispatch.
    #[inline(always)]
    pub fn next_key_is(&mut self, encoded: &[u8]) -> bool {
        self.cursor.take_prefix(encoded)
    }

    /// Reads a UTF-8 string.
    #[inline]
    pub fn read_str(&mut self) -> Result<&'de str, DecodeError> {
        let start = self.cursor.pos;
        let bytes = self.read_str_bytes()?;
        utf8(bytes).ok_or_else(|| self.cursor.error_at(DecodeErrorKind::InvalidUtf8, start))
    }

    /// Reads a UTF-8 string into an owned `String`.
    #[inline]
    pub fn read_string(&mut self) -> Result<String, DecodeError> {
        let start = self.cursor.pos;
        let bytes = self.read_str_bytes()?;
        owned_utf8(bytes).ok_or_else(|| self.cursor.error_at(DecodeErrorKind::InvalidUtf8, start))
    }

    /// Reads a `bin` byte buffer.
    #[inline]
    pub fn read_bin(&mut self) -> Result<&'de [u8], DecodeError> {
        let width = match self.peek()? {
            0xc4 => 1,
            0xc5 => 2,
            0xc6 => 4,
            _ => return self.read_bin_out_of_band(),
        };
        self.cursor.pos += 1;
        let len = self.read_len(width, "bytes")?;
        self.cursor.take(len, "bytes")
    }

    /// Reads an array header: the number of elements that follow.
    #[inline]
    pub fn read_array_len(&mut self) -> Result<usize, DecodeError> {
        // The one-byte header inlines; longer ones and errors do not.
        if let Some(m) = self.cursor.peek()
            && m & 0xf0 == 0x90
        {
            self.cursor.pos += 1;
            return Ok((m & 0x0f) as usize);
        }
        self.read_array_len_slow()
    }

    #[inline(never)]
    fn read_array_len_slow(&mut self) -> Result<usize, DecodeError> {
        let m = self.peek()?;
        match m {
            0x90..=0x9f => {
                self.cursor.pos += 1;
                Ok((m & 0x0f) as usize)
            }
            0xdc => {
                self.cursor.pos += 1;
                self.read_len(2, "an array")
            }
            0xdd => {
                self.cursor.pos += 1;
                self.read_len(4, "an array")
            }
            _ => Err(self.unexpected("an array")),
        }
    }

    /// Reads a map header: the number of entries that follow.
    #[inline]
    pub fn read_map_len(&mut self) -> Result<usize, DecodeError> {
        // The one-byte header inlines; longer ones and errors do not.
        if let Some(m) = self.cursor.peek()
            && m & 0xf0 == 0x80
        {
            self.cursor.pos += 1;
            return Ok((m & 0x0f) as usize);
        }
        self.read_map_len_slow()
    }

    #[inline(never)]
    fn read_map_len_slow(&mut self) -> Result<usize, DecodeError> {
        let m = self.peek()?;
        match m {
            0x80..=0x8f => {
                self.cursor.pos += 1;
                Ok((m & 0x0f) as usize)
            }
            0xde => {
                self.cursor.pos += 1;
                self.read_len(2, "a map")
            }
            0xdf => {
                self.cursor.pos += 1;
                self.read_len(4, "a map")
            }
            _ => Err(self.unexpected("a map")),
        }
    }

    /// A capacity to preallocate for `len` elements: never more than the input could hold.
    #[inline]
    pub fn capacity_hint(&self, len: usize) -> usize {
        len.min(self.remaining())
    }

    /// Reads an extension value: its type and data.
    pub fn read_ext(&mut self) -> Result<(i8, &'de [u8]), DecodeError> {
        let m = self.peek()?;
        let len = match m {
            0xd4 => 1,
            0xd5 => 2,
            0xd6 => 4,
            0xd7 => 8,
            0xd8 => 16,
            0xc7..=0xc9 => {
                self.cursor.pos += 1;
                let len = self.read_len(1 << (m - 0xc7), "an extension")?;
                self.cursor.pos -= 1;
                len
            }
            _ => return Err(self.unexpected("an extension")),
        };
        self.cursor.pos += 1;
        let ty = self.cursor.take_array::<1>("an extension")?[0] as i8;
        Ok((ty, self.cursor.take(len, "an extension")?))
    }

    /// Reads a timestamp (extension -1): seconds and nanoseconds since the Unix epoch.
    pub fn read_timestamp(&mut self) -> Result<(i64, u32), DecodeError> {
        let start = self.cursor.pos;
        let (ty, data) = self.read_ext()?;
        let bad = |what: String| DecodeError::invalid_value(what).at(Format::MsgPack, start);
        if ty != -1 {
            return Err(bad(format!(
                "expected a timestamp (extension -1), found extension {ty}"
            )));
        }
        let (secs, nanos) = match data.len() {
            4 => (u32::from_be_bytes(data.try_into().unwrap()) as i64, 0),
            8 => {
                let v = u64::from_be_bytes(data.try_into().unwrap());
                ((v & ((1 << 34) - 1)) as i64, (v >> 34) as u32)
            }
            12 => (
                i64::from_be_bytes(data[4..].try_into().unwrap()),
                u32::from_be_bytes(data[..4].try_into().unwrap()),
            ),
            n => {
                return Err(bad(format!(
                    "timestamp extension has {n} bytes of data, expected 4, 8 or 12"
                )))
            }
        };
        if nanos >= 1_000_000_000 {
            return Err(bad(format!(
                "timestamp nanoseconds {nanos} exceed 999999999"
            )));
        }
        Ok((secs, nanos))
    }
}

/// The error of [`MsgpackReader::read_int`]: out of line, so the read inlines.
#[cold]
#[inline(never)]
fn int_out_of_range(value: Integer, target: &'static str, start: usize) -> DecodeError {
    DecodeError::new(DecodeErrorKind::IntOutOfRange {
        value: value.to_string(),
        target,
    })
    .at(Format::MsgPack, start)
}

#[inline]
fn signed(v: i64) -> Integer {
    if v >= 0 {
        Integer::Pos(v as u64)
    } else {
        Integer::Neg(v)
    }
}

mod skip;

#[cfg(test)]
mod tests;
