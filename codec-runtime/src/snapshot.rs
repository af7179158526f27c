//! Encodings as stable, reviewable text, for `insta` snapshots: pretty JSON,
//! and MessagePack as annotated hex, one token per line, so a reviewer sees
//! exactly what changed on the wire.
//!
//! ```
//! #[derive(codec::Codec)]
//! enum E { A { x: i64 } }
//! let text = codec::snapshot::render(&E::A { x: 1 }).unwrap();
//! assert_eq!(text, "\
//! json:
//! {
//!   \"type\": \"A\",
//!   \"x\": 1
//! }
//!
//! msgpack:
//! 82                 map (2 entries)
//!   a4 74797065      str \"type\"
//!   a1 41            str \"A\"
//!   a1 78            str \"x\"
//!   01               int 1
//! ");
//! ```

use crate::codec::Codec;
use crate::error::EncodeError;
use crate::msgpack::{Integer, MsgpackReader};

/// Both encodings of `value`, as text.
pub fn render<T: Codec>(value: &T) -> Result<String, EncodeError> {
    let json = crate::convert::to_json(value)?;
    let msgpack = crate::convert::to_msgpack(value)?;
    Ok(format!(
        "json:\n{}\n\nmsgpack:\n{}",
        pretty_json(&json),
        annotate_msgpack(&msgpack)
    ))
}

/// Compact JSON (as codec writes it) indented by two spaces, key order kept.
///
/// ```
/// assert_eq!(codec::snapshot::pretty_json(r#"{"a":[1,2],"b":{}}"#), "{\n  \"a\": [\n    1,\n    2\n  ],\n  \"b\": {}\n}");
/// ```
#[doc(hidden)] // a part of `render`
pub fn pretty_json(text: &str) -> String {
    let mut out = String::with_capacity(text.len() * 2);
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    let mut chars = text.chars().peekable();
    let newline = |out: &mut String, depth: usize| {
        out.push('\n');
        out.push_str(&"  ".repeat(depth));
    };
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => {
                in_string = true;
                out.push(c);
            }
            '{' | '[' => {
                out.push(c);
                if matches!(chars.peek(), Some('}' | ']')) {
                    out.push(chars.next().unwrap_or(']'));
                } else {
                    depth += 1;
                    newline(&mut out, depth);
                }
            }
            '}' | ']' => {
                depth = depth.saturating_sub(1);
                newline(&mut out, depth);
                out.push(c);
            }
            ',' => {
                out.push(',');
                newline(&mut out, depth);
            }
            ':' => out.push_str(": "),
            c if c.is_whitespace() => {}
            c => out.push(c),
        }
    }
    out
}

/// MessagePack as hex, one token per line with what it is, indented by
/// nesting; the descriptions start in one column, past the widest token (at
/// least column 19). Bytes that are not valid MessagePack end the text with
/// an error line.
#[doc(hidden)] // a part of `render`
pub fn annotate_msgpack(bytes: &[u8]) -> String {
    let mut r = MsgpackReader::new(bytes);
    // Each token: its indented hex and its description.
    let mut rows: Vec<(String, String)> = Vec::new();
    let mut end = String::new();
    let mut pending: Vec<usize> = vec![1]; // values left at each open level
    while !pending.is_empty() {
        if pending.last() == Some(&0) {
            pending.pop();
            continue;
        }
        if let Some(last) = pending.last_mut() {
            *last -= 1;
        }
        let depth = pending.len() - 1;
        let start = r.position();
        match token(&mut r) {
            Ok((desc, children)) => {
                let hex = hex_token(&bytes[start..r.position()]);
                rows.push((format!("{}{hex}", "  ".repeat(depth)), desc));
                if children > 0 {
                    pending.push(children);
                }
            }
            Err(e) => {
                end = format!("{}error: {e}\n", "  ".repeat(depth));
                break;
            }
        }
    }
    if end.is_empty() && r.remaining() > 0 {
        end = format!("error: {} trailing bytes\n", r.remaining());
    }
    let column = rows.iter().map(|(hex, _)| hex.len()).fold(18, usize::max);
    let mut out = String::new();
    for (hex, desc) in rows {
        out.push_str(&format!("{hex:<column$} {desc}\n"));
    }
    out + &end
}

/// The marker, a space, then the payload; long payloads are shortened.
fn hex_token(token: &[u8]) -> String {
    let header = marker_len(token);
    let hex = |b: &[u8]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
    let (head, body) = token.split_at(header.min(token.len()));
    if body.is_empty() {
        return hex(head);
    }
    if body.len() > 24 {
        format!("{} {}..({} bytes)", hex(head), hex(&body[..16]), body.len())
    } else {
        format!("{} {}", hex(head), hex(body))
    }
}

fn marker_len(token: &[u8]) -> usize {
    match token.first() {
        Some(0xa0..=0xbf) => 1,
        Some(0xc4 | 0xd9) => 2,
        Some(0xc5 | 0xda) => 3,
        Some(0xc6 | 0xdb) => 5,
        Some(0xc7) => 3,
        Some(0xc8) => 4,
        Some(0xc9) => 6,
        Some(0xd4..=0xd8) => 2,
        Some(0xca..=0xd3 | 0xdc..=0xdf) => 1,
        _ => token.len(),
    }
}

/// Reads one token: its description and how many values it contains.
fn token(r: &mut MsgpackReader<'_>) -> Result<(String, usize), crate::error::DecodeError> {
    let m = r.peek()?;
    Ok(match m {
        0xc0 => {
            r.read_nil()?;
            ("nil".into(), 0)
        }
        0xc2 | 0xc3 => (format!("bool {}", r.read_bool()?), 0),
        0xca => (format!("float32 {}", r.read_f64()? as f32), 0),
        0xcb => (format!("float64 {}", r.read_f64()?), 0),
        0x00..=0x7f | 0xe0..=0xff | 0xcc..=0xd3 => match r.read_integer()? {
            Integer::Pos(v) => (format!("int {v}"), 0),
            Integer::Neg(v) => (format!("int {v}"), 0),
        },
        0xa0..=0xbf | 0xd9..=0xdb => {
            let s = r.read_str()?;
            let shown: String = s.chars().take(40).collect();
            let more = if shown.len() < s.len() { "..." } else { "" };
            (format!("str {shown:?}{more}"), 0)
        }
        0xc4..=0xc6 => (format!("bin ({} bytes)", r.read_bin()?.len()), 0),
        0x90..=0x9f | 0xdc | 0xdd => {
            let n = r.read_array_len()?;
            (format!("array ({n} elements)"), n)
        }
        0x80..=0x8f | 0xde | 0xdf => {
            let n = r.read_map_len()?;
            (format!("map ({n} entries)"), n.saturating_mul(2))
        }
        0xc7..=0xc9 | 0xd4..=0xd8 => {
            let start = r.position();
            let (ty, data) = r.read_ext()?;
            if ty == -1 {
                r.seek(start);
                let (secs, nanos) = r.read_timestamp()?;
                (format!("timestamp {secs}s {nanos}ns"), 0)
            } else {
                (format!("ext {ty} ({} bytes)", data.len()), 0)
            }
        }
        0xc1 => return Err(r.unexpected("a value")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn annotates_nesting_and_errors() {
        let text = annotate_msgpack(&[0x92, 0x01, 0x91, 0xc0]);
        assert_eq!(text, "92                 array (2 elements)\n  01               int 1\n  91               array (1 elements)\n    c0             nil\n");
        assert!(annotate_msgpack(&[0x92, 0x01]).contains("error"));
        assert!(annotate_msgpack(&[0xc1]).contains("error"));
        assert!(annotate_msgpack(&[0x01, 0x02]).contains("1 trailing bytes"));
    }

    #[test]
    fn descriptions_start_in_one_column_past_the_widest_token() {
        let long = crate::convert::to_msgpack(&vec!["x".repeat(44), "y".into()]).unwrap();
        let text = annotate_msgpack(&long);
        let columns: Vec<usize> = text
            .lines()
            .map(|l| l.find(" array").or(l.find(" str")).unwrap())
            .collect();
        assert_eq!(columns.len(), 3, "{text}");
        assert!(columns.iter().all(|&c| c == columns[1]), "{text}");
        assert!(
            text.contains("d92c 78787878787878787878787878787878..(44 bytes) str"),
            "{text}"
        );
    }

    #[test]
    fn pretty_json_keeps_strings_intact() {
        assert_eq!(
            pretty_json(r#"{"a,{":"x:[y]\""}"#),
            "{\n  \"a,{\": \"x:[y]\\\"\"\n}"
        );
    }
}
