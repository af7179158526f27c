//! Encodings computed at compile time: the bytes of field names and tags, so
//! generated encoders copy them in one write.

use proc_macro2::Span;
use syn::LitByteStr;

/// The MessagePack encoding of a string.
pub fn msgpack_str(s: &str) -> Vec<u8> {
    let len = s.len();
    let mut out = Vec::with_capacity(len + 5);
    if len < 32 {
        out.push(0xa0 | len as u8);
    } else if len <= u8::MAX as usize {
        out.extend_from_slice(&[0xd9, len as u8]);
    } else if len <= u16::MAX as usize {
        out.push(0xda);
        out.extend_from_slice(&(len as u16).to_be_bytes());
    } else {
        out.push(0xdb);
        out.extend_from_slice(&(len as u32).to_be_bytes());
    }
    out.extend_from_slice(s.as_bytes());
    out
}

/// The MessagePack encoding of an integer, in its shortest form.
pub fn msgpack_int(v: i64) -> Vec<u8> {
    if (0..0x80).contains(&v) {
        vec![v as u8]
    } else if (-32..0).contains(&v) {
        vec![v as i8 as u8]
    } else if (0..=u8::MAX as i64).contains(&v) {
        vec![0xcc, v as u8]
    } else if (0..=u16::MAX as i64).contains(&v) {
        let mut out = vec![0xcd];
        out.extend_from_slice(&(v as u16).to_be_bytes());
        out
    } else if (0..=u32::MAX as i64).contains(&v) {
        let mut out = vec![0xce];
        out.extend_from_slice(&(v as u32).to_be_bytes());
        out
    } else if v >= 0 {
        let mut out = vec![0xcf];
        out.extend_from_slice(&(v as u64).to_be_bytes());
        out
    } else if v >= i8::MIN as i64 {
        vec![0xd0, v as i8 as u8]
    } else if v >= i16::MIN as i64 {
        let mut out = vec![0xd1];
        out.extend_from_slice(&(v as i16).to_be_bytes());
        out
    } else if v >= i32::MIN as i64 {
        let mut out = vec![0xd2];
        out.extend_from_slice(&(v as i32).to_be_bytes());
        out
    } else {
        let mut out = vec![0xd3];
        out.extend_from_slice(&v.to_be_bytes());
        out
    }
}

/// The MessagePack header of a map of `len` entries (len known to be small at compile time).
pub fn msgpack_map_header(len: usize) -> Vec<u8> {
    if len <= 15 {
        vec![0x80 | len as u8]
    } else if len <= u16::MAX as usize {
        let mut out = vec![0xde];
        out.extend_from_slice(&(len as u16).to_be_bytes());
        out
    } else {
        let mut out = vec![0xdf];
        out.extend_from_slice(&(len as u32).to_be_bytes());
        out
    }
}

/// The MessagePack header of an array of `len` elements.
pub fn msgpack_array_header(len: usize) -> Vec<u8> {
    let mut out = msgpack_map_header(len);
    out[0] = match out[0] {
        0xde => 0xdc,
        0xdf => 0xdd,
        small => 0x90 | (small & 0x0f),
    };
    out
}

/// A JSON string literal, quoted and escaped as the runtime writer would.
pub fn json_str(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

pub fn bytes(b: &[u8]) -> LitByteStr {
    LitByteStr::new(b, Span::call_site())
}

pub fn json_bytes(s: &str) -> LitByteStr {
    bytes(s.as_bytes())
}
