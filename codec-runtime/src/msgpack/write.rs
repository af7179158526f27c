//! Writing MessagePack: the writer generated encoders call, always in the
//! shortest form (msgspec's), so equal values give equal bytes: integers in
//! the fewest bytes, `f64` as float64 and `f32` as float32, timestamps as
//! the -1 extension in its smallest layout.

use super::out_of_band::{LargeBin, LARGE_BIN_FLOOR};
use crate::error::EncodeError;

/// Appends MessagePack to a byte buffer, always in the shortest form.
///
/// Generated encoders write through it; users normally call [`crate::to_msgpack`].
#[derive(Default, Debug)]
pub struct MsgpackWriter {
    buf: Vec<u8>,
}

impl MsgpackWriter {
    /// A writer appending to `buf`.
    pub fn new(buf: Vec<u8>) -> Self {
        MsgpackWriter { buf }
    }

    /// The bytes written so far.
    pub fn into_inner(self) -> Vec<u8> {
        self.buf
    }

    /// The bytes written so far.
    pub fn as_slice(&self) -> &[u8] {
        &self.buf
    }

    /// Appends already-encoded MessagePack (one or more complete values).
    #[inline]
    pub fn write_raw(&mut self, bytes: &[u8]) {
        self.buf.extend_from_slice(bytes);
    }

    /// Direct access to the buffer, for foreign encoders that append whole values.
    pub fn buffer_mut(&mut self) -> &mut Vec<u8> {
        &mut self.buf
    }

    #[inline]
    fn put1(&mut self, marker: u8, value: u8) {
        self.buf.extend_from_slice(&[marker, value]);
    }

    /// `nil`.
    #[inline]
    pub fn write_nil(&mut self) {
        self.buf.push(0xc0);
    }

    /// `true` / `false`.
    #[inline]
    pub fn write_bool(&mut self, v: bool) {
        self.buf.push(if v { 0xc3 } else { 0xc2 });
    }

    /// An unsigned integer in the shortest form.
    #[inline]
    pub fn write_u64(&mut self, v: u64) {
        if v < 0x80 {
            self.buf.push(v as u8);
            return;
        }
        // uint8, 16, 32 or 64 (0xcc..=0xcf) without a branch on the width,
        // which varies value to value: write all 9 bytes, keep 1 + width.
        let class = (v > 0xff) as u32 + (v > 0xffff) as u32 + (v > 0xffff_ffff) as u32;
        let width = 1usize << class;
        let mut out = [0u8; 9];
        out[0] = 0xcc + class as u8;
        out[1..].copy_from_slice(&(v << (64 - 8 * width as u32)).to_be_bytes());
        let end = self.buf.len() + 1 + width;
        self.buf.extend_from_slice(&out);
        self.buf.truncate(end);
    }

    /// A signed integer in the shortest form (non-negative values as unsigned, like msgspec).
    #[inline]
    pub fn write_i64(&mut self, v: i64) {
        if v >= 0 {
            self.write_u64(v as u64);
        } else if v >= -32 {
            self.buf.push(v as i8 as u8);
        } else if v >= i8::MIN as i64 {
            self.put1(0xd0, v as i8 as u8);
        } else if v >= i16::MIN as i64 {
            let b = (v as i16).to_be_bytes();
            self.buf.extend_from_slice(&[0xd1, b[0], b[1]]);
        } else if v >= i32::MIN as i64 {
            let b = (v as i32).to_be_bytes();
            self.buf.extend_from_slice(&[0xd2, b[0], b[1], b[2], b[3]]);
        } else {
            self.buf.push(0xd3);
            self.buf.extend_from_slice(&v.to_be_bytes());
        }
    }

    /// A float32.
    #[inline]
    pub fn write_f32(&mut self, v: f32) {
        self.buf.push(0xca);
        self.buf.extend_from_slice(&v.to_be_bytes());
    }

    /// A float64.
    #[inline]
    pub fn write_f64(&mut self, v: f64) {
        self.buf.push(0xcb);
        self.buf.extend_from_slice(&v.to_be_bytes());
    }

    #[inline]
    fn write_len(
        &mut self,
        len: usize,
        fix: Option<(u8, usize)>,
        markers: [u8; 3],
    ) -> Result<(), EncodeError> {
        match fix {
            Some((base, max)) if len <= max => self.buf.push(base | len as u8),
            _ if markers[0] != 0 && len <= u8::MAX as usize => self.put1(markers[0], len as u8),
            _ if len <= u16::MAX as usize => {
                let b = (len as u16).to_be_bytes();
                self.buf.extend_from_slice(&[markers[1], b[0], b[1]]);
            }
            _ if len <= u32::MAX as usize => {
                let b = (len as u32).to_be_bytes();
                self.buf
                    .extend_from_slice(&[markers[2], b[0], b[1], b[2], b[3]]);
            }
            _ => return Err(EncodeError::TooLong { len }),
        }
        Ok(())
    }

    /// A UTF-8 string.
    #[inline]
    pub fn write_str(&mut self, s: &str) -> Result<(), EncodeError> {
        let len = s.len();
        if len < 32 {
            self.buf.reserve(len + 1);
            self.buf.push(0xa0 | len as u8);
        } else {
            self.write_len(len, None, [0xd9, 0xda, 0xdb])?;
        }
        self.buf.extend_from_slice(s.as_bytes());
        Ok(())
    }

    /// A byte buffer as `bin`.
    #[inline]
    pub fn write_bin(&mut self, b: &[u8]) -> Result<(), EncodeError> {
        let start = self.buf.len();
        self.write_len(b.len(), None, [0xc4, 0xc5, 0xc6])?;
        let data = self.buf.len();
        self.buf.extend_from_slice(b);
        if b.len() >= LARGE_BIN_FLOOR {
            self.note_large_bin(LargeBin {
                start,
                data,
                end: self.buf.len(),
            });
        }
        Ok(())
    }

    /// The header of an array of `len` elements.
    #[inline]
    pub fn write_array_len(&mut self, len: usize) -> Result<(), EncodeError> {
        self.write_len(len, Some((0x90, 15)), [0, 0xdc, 0xdd])
    }

    /// The header of a map of `len` entries.
    #[inline]
    pub fn write_map_len(&mut self, len: usize) -> Result<(), EncodeError> {
        self.write_len(len, Some((0x80, 15)), [0, 0xde, 0xdf])
    }

    /// An extension value of type `ty`.
    pub fn write_ext(&mut self, ty: i8, data: &[u8]) -> Result<(), EncodeError> {
        let t = ty as u8;
        match data.len() {
            1 => self.buf.extend_from_slice(&[0xd4, t]),
            2 => self.buf.extend_from_slice(&[0xd5, t]),
            4 => self.buf.extend_from_slice(&[0xd6, t]),
            8 => self.buf.extend_from_slice(&[0xd7, t]),
            16 => self.buf.extend_from_slice(&[0xd8, t]),
            len => {
                self.write_len(len, None, [0xc7, 0xc8, 0xc9])?;
                self.buf.push(t);
            }
        }
        self.buf.extend_from_slice(data);
        Ok(())
    }

    /// A timestamp (extension -1) in the shortest of its three forms.
    pub fn write_timestamp(&mut self, secs: i64, nanos: u32) -> Result<(), EncodeError> {
        if secs >= 0 && secs >> 34 == 0 {
            let packed = ((nanos as u64) << 34) | secs as u64;
            if packed >> 32 == 0 {
                self.write_ext(-1, &(packed as u32).to_be_bytes())
            } else {
                self.write_ext(-1, &packed.to_be_bytes())
            }
        } else {
            let mut data = [0u8; 12];
            data[..4].copy_from_slice(&nanos.to_be_bytes());
            data[4..].copy_from_slice(&secs.to_be_bytes());
            self.write_ext(-1, &data)
        }
    }
}
