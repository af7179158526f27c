//! Strings with escapes: the slow path of `JsonReader::read_str`.

use super::JsonReader;
use crate::error::DecodeError;

impl<'de> JsonReader<'de> {
    pub(super) fn read_escaped(
        &mut self,
        start: usize,
        first_escape: usize,
    ) -> Result<String, DecodeError> {
        let buf = self.cursor.buf;
        let mut out = String::with_capacity(first_escape - start + 16);
        out.push_str(self.text(start, first_escape));
        let mut i = first_escape;
        let mut run = i;
        loop {
            let Some(&b) = buf.get(i) else {
                self.cursor.pos = buf.len();
                return Err(self.cursor.eof("a string"));
            };
            match b {
                b'"' => {
                    out.push_str(self.text(run, i));
                    self.cursor.pos = i + 1;
                    return Ok(out);
                }
                b'\\' => {
                    out.push_str(self.text(run, i));
                    self.cursor.pos = i;
                    let Some(&esc) = buf.get(i + 1) else {
                        return Err(self.cursor.eof("a string"));
                    };
                    i += 2;
                    match esc {
                        b'"' => out.push('"'),
                        b'\\' => out.push('\\'),
                        b'/' => out.push('/'),
                        b'b' => out.push('\u{8}'),
                        b'f' => out.push('\u{c}'),
                        b'n' => out.push('\n'),
                        b'r' => out.push('\r'),
                        b't' => out.push('\t'),
                        b'u' => {
                            let c = self.read_unicode_escape(&mut i)?;
                            out.push(c);
                        }
                        _ => return Err(self.cursor.syntax("invalid escape in a string")),
                    }
                    run = i;
                }
                0..=0x1f => {
                    self.cursor.pos = i;
                    return Err(self
                        .cursor
                        .syntax("control character inside a string; escape it"));
                }
                _ => i += 1,
            }
        }
    }

    fn hex4(&self, at: usize) -> Result<u16, DecodeError> {
        let digits = (self.cursor.buf)
            .get(at..at + 4)
            .ok_or_else(|| self.cursor.eof("a \\u escape"))?;
        let mut v = 0u16;
        for &d in digits {
            let n = match d {
                b'0'..=b'9' => d - b'0',
                b'a'..=b'f' => d - b'a' + 10,
                b'A'..=b'F' => d - b'A' + 10,
                _ => {
                    return Err(self
                        .cursor
                        .syntax("invalid \\u escape: expected 4 hex digits"))
                }
            };
            v = v << 4 | n as u16;
        }
        Ok(v)
    }

    /// Decodes `XXXX` (and a following `\uXXXX` low surrogate) at `*i`.
    fn read_unicode_escape(&mut self, i: &mut usize) -> Result<char, DecodeError> {
        let high = self.hex4(*i)?;
        *i += 4;
        let code = match high {
            0xd800..=0xdbff => {
                if self.cursor.buf.get(*i..*i + 2) != Some(b"\\u") {
                    return Err(self.cursor.syntax("lone surrogate in a \\u escape"));
                }
                let low = self.hex4(*i + 2)?;
                if !(0xdc00..=0xdfff).contains(&low) {
                    return Err(self.cursor.syntax("lone surrogate in a \\u escape"));
                }
                *i += 6;
                0x10000 + (((high as u32) - 0xd800) << 10) + ((low as u32) - 0xdc00)
            }
            0xdc00..=0xdfff => return Err(self.cursor.syntax("lone surrogate in a \\u escape")),
            _ => high as u32,
        };
        char::from_u32(code).ok_or_else(|| self.cursor.syntax("invalid \\u escape"))
    }
}
