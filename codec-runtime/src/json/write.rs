//! Writing JSON: compact (no spaces), as msgspec writes it, with the
//! conventions codec shares with msgspec and serde_json: floats in their
//! shortest round-tripping form and non-finite ones as `null`, byte buffers
//! as base64 strings, non-ASCII text as UTF-8.

use crate::error::EncodeError;

/// Appends compact JSON to a byte buffer (no spaces, as msgspec writes it).
///
/// Generated encoders write through it; users normally call [`crate::to_json`].
#[derive(Default, Debug)]
pub struct JsonWriter {
    buf: Vec<u8>,
}

const HEX: &[u8; 16] = b"0123456789abcdef";

/// For each byte: 0 if it is copied as is, else the escape letter (`u` for `\u00XX`).
static ESCAPE: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut i = 0;
    while i < 0x20 {
        table[i] = b'u';
        i += 1;
    }
    table[b'\n' as usize] = b'n';
    table[b'\r' as usize] = b'r';
    table[b'\t' as usize] = b't';
    table[0x08] = b'b';
    table[0x0c] = b'f';
    table[b'"' as usize] = b'"';
    table[b'\\' as usize] = b'\\';
    table
};

impl JsonWriter {
    /// A writer appending to `buf`.
    pub fn new(buf: Vec<u8>) -> Self {
        JsonWriter { buf }
    }

    /// The bytes written so far.
    pub fn into_inner(self) -> Vec<u8> {
        self.buf
    }

    /// The bytes written so far.
    pub fn as_slice(&self) -> &[u8] {
        &self.buf
    }

    /// Direct access to the buffer, for foreign encoders that append whole values.
    pub fn buffer_mut(&mut self) -> &mut Vec<u8> {
        &mut self.buf
    }

    /// Appends text that is already valid JSON.
    #[inline]
    pub fn write_raw(&mut self, text: &[u8]) {
        self.buf.extend_from_slice(text);
    }

    /// Appends one structural byte (`{`, `,`, `:` ...).
    #[inline]
    pub fn write_byte(&mut self, b: u8) {
        self.buf.push(b);
    }

    /// Turns entries written as `,"k":v,"k":v` since offset `start` into an
    /// object: the leading comma becomes `{`, and `}` closes it.
    #[inline]
    pub fn end_object_from_body(&mut self, start: usize) {
        if self.buf.len() == start {
            self.buf.push(b'{');
        } else {
            self.buf[start] = b'{';
        }
        self.buf.push(b'}');
    }

    /// `null`: the JSON spelling of nil, as [`crate::MsgpackWriter::write_nil`]
    /// writes it in MessagePack.
    #[inline]
    pub fn write_nil(&mut self) {
        self.buf.extend_from_slice(b"null");
    }

    /// `true` / `false`.
    #[inline]
    pub fn write_bool(&mut self, v: bool) {
        self.buf
            .extend_from_slice(if v { b"true" as &[u8] } else { b"false" });
    }

    /// An unsigned integer.
    #[inline]
    pub fn write_u64(&mut self, v: u64) {
        self.buf
            .extend_from_slice(itoa::Buffer::new().format(v).as_bytes());
    }

    /// A signed integer.
    #[inline]
    pub fn write_i64(&mut self, v: i64) {
        self.buf
            .extend_from_slice(itoa::Buffer::new().format(v).as_bytes());
    }

    /// A float in its shortest round-tripping form; NaN and infinities are
    /// `null`, as msgspec and serde_json write them.
    #[inline]
    pub fn write_f64(&mut self, v: f64) {
        if !v.is_finite() {
            self.write_nil();
            return;
        }
        self.buf
            .extend_from_slice(ryu::Buffer::new().format_finite(v).as_bytes());
    }

    /// A 32-bit float in its shortest round-tripping form.
    #[inline]
    pub fn write_f32(&mut self, v: f32) {
        if !v.is_finite() {
            self.write_nil();
            return;
        }
        self.buf
            .extend_from_slice(ryu::Buffer::new().format_finite(v).as_bytes());
    }

    /// A quoted, escaped string. Non-ASCII text is written as UTF-8.
    ///
    /// Never fails: it returns a `Result` as
    /// [`MsgpackWriter::write_str`](crate::MsgpackWriter::write_str) does
    /// (a MessagePack string has a length limit), so that an encoder reads
    /// the same in both formats.
    #[inline]
    pub fn write_str(&mut self, s: &str) -> Result<(), EncodeError> {
        let bytes = s.as_bytes();
        self.buf.reserve(bytes.len() + 2);
        self.buf.push(b'"');
        let mut start = 0;
        for (i, &b) in bytes.iter().enumerate() {
            let esc = ESCAPE[b as usize];
            if esc == 0 {
                continue;
            }
            self.buf.extend_from_slice(&bytes[start..i]);
            if esc == b'u' {
                self.buf.extend_from_slice(&[
                    b'\\',
                    b'u',
                    b'0',
                    b'0',
                    HEX[(b >> 4) as usize],
                    HEX[(b & 0xf) as usize],
                ]);
            } else {
                self.buf.extend_from_slice(&[b'\\', esc]);
            }
            start = i + 1;
        }
        self.buf.extend_from_slice(&bytes[start..]);
        self.buf.push(b'"');
        Ok(())
    }

    /// A byte buffer as a standard base64 string (with padding, as msgspec writes it).
    pub fn write_base64(&mut self, bytes: &[u8]) {
        use base64::Engine as _;
        self.buf.push(b'"');
        let start = self.buf.len();
        let len = base64::encoded_len(bytes.len(), true).unwrap_or(0);
        self.buf.resize(start + len, 0);
        let written = base64::engine::general_purpose::STANDARD
            .encode_slice(bytes, &mut self.buf[start..])
            .unwrap_or(0);
        self.buf.truncate(start + written);
        self.buf.push(b'"');
    }
}
