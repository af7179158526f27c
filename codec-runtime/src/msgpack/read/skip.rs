//! Skipping values: unknown fields, and values kept as their raw bytes.

use super::MsgpackReader;
use crate::error::DecodeError;

impl<'de> MsgpackReader<'de> {
    /// Skips one complete value of any type, without recursion.
    ///
    /// Each collection it opens counts one level against the depth limit, as
    /// decoding it would: an unknown field cannot hide a value nested deeper
    /// than the reader accepts.
    pub fn skip_value(&mut self) -> Result<(), DecodeError> {
        // Items left to skip in each enclosing collection, innermost last.
        let mut outer: Vec<u64> = Vec::new();
        // Items left at the current level, and in all levels together.
        let mut left: u64 = 1;
        let mut pending: u64 = 1;
        loop {
            while left == 0 {
                match outer.pop() {
                    Some(items) => left = items,
                    None => return Ok(()),
                }
            }
            left -= 1;
            pending -= 1;
            if let Some(items) = self.skip_one()? {
                if outer.len() as u64 >= self.cursor.depth_left() as u64 {
                    return Err(self.cursor.too_deep());
                }
                outer.push(left);
                left = items;
                pending += items;
            }
            if self.cursor.pos > self.cursor.buf.len() {
                self.cursor.pos = self.cursor.buf.len();
                return Err(self.cursor.eof("a value"));
            }
            if pending > self.remaining() as u64 {
                return Err(self.cursor.eof("the elements of a collection"));
            }
        }
    }

    /// Moves past the next value if it is a scalar, or past the header of a
    /// collection, returning how many values its elements and entries are.
    /// May move past the end of the input: the caller checks.
    fn skip_one(&mut self) -> Result<Option<u64>, DecodeError> {
        let m = self.peek()?;
        self.cursor.pos += 1;
        let items = match m {
            0x80..=0x8f => 2 * (m & 0x0f) as u64,
            0x90..=0x9f => (m & 0x0f) as u64,
            0xdc | 0xdd => self.read_len(if m == 0xdc { 2 } else { 4 }, "an array")? as u64,
            0xde | 0xdf => 2 * self.read_len(if m == 0xde { 2 } else { 4 }, "a map")? as u64,
            _ => {
                self.cursor.pos -= 1;
                self.skip_scalar(m)?;
                return Ok(None);
            }
        };
        Ok(Some(items))
    }

    /// Moves past the scalar whose marker is `m`.
    fn skip_scalar(&mut self, m: u8) -> Result<(), DecodeError> {
        match m {
            0xa0..=0xbf => {
                self.cursor.pos += 1;
                self.cursor.take((m & 0x1f) as usize, "a string")?;
            }
            0xc1 => {
                return Err(self
                    .cursor
                    .syntax("the reserved marker 0xc1 is never valid MessagePack"))
            }
            0xc4..=0xc6 | 0xd9..=0xdb => {
                self.cursor.pos += 1;
                let width = if m <= 0xc6 {
                    1 << (m - 0xc4)
                } else {
                    1 << (m - 0xd9)
                };
                let len = self.read_len(width, "a string")?;
                self.cursor.take(len, "a string")?;
            }
            0xc7..=0xc9 | 0xd4..=0xd8 => {
                self.read_ext()?;
            }
            0xca => self.cursor.pos += 5,
            0xcb | 0xcf | 0xd3 => self.cursor.pos += 9,
            0xcc | 0xd0 => self.cursor.pos += 2,
            0xcd | 0xd1 => self.cursor.pos += 3,
            0xce | 0xd2 => self.cursor.pos += 5,
            // fixint, negative fixint, nil, false, true (collections are the caller's)
            _ => self.cursor.pos += 1,
        }
        Ok(())
    }

    /// Returns the bytes of the next complete value and moves past it.
    pub fn read_raw_value(&mut self) -> Result<&'de [u8], DecodeError> {
        let start = self.cursor.pos;
        self.skip_value()?;
        Ok(&self.cursor.buf[start..self.cursor.pos])
    }
}
