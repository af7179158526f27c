//! One index line: its bytes on disk (the JSON of an [`IndexLine`] with a
//! CRC-32 field before the closing brace), and a view that reads it in place.
//!
//! Opening a folder checks every line but builds no records: the view
//! borrows the line's strings and leaves the handler's info as JSON text
//! until the entry is read.

use codec_runtime::Decode;
use codec_runtime::Encode;
use std::borrow::Cow;

use crate::error::StoreError;
use crate::index::records::{IndexLine, Info, Mode};

use codec_runtime::DecodeError;
use codec_runtime::JsonReader;

mod canonical;

const SUFFIX_LEN: usize = r#","crc":"00000000"}"#.len();

/// Appends the bytes of one index line, newline included, to `out`.
pub fn encode_line(line: &IndexLine, out: &mut Vec<u8>) -> Result<(), StoreError> {
    let start = out.len();
    let mut w = codec_runtime::JsonWriter::new(std::mem::take(out));
    let encoded = line.encode_json(&mut w);
    *out = w.into_inner();
    if let Err(e) = encoded {
        out.truncate(start);
        return Err(e.into());
    }
    out.pop(); // the closing brace: the checksum field goes before it
    let crc = crc32fast::hash(&out[start..]);
    out.extend_from_slice(br#","crc":""#);
    let mut hex = [0u8; 8];
    for (i, digit) in hex.iter_mut().enumerate() {
        *digit = b"0123456789abcdef"[(crc >> (28 - 4 * i)) as usize & 0xf];
    }
    out.extend_from_slice(&hex);
    out.extend_from_slice(b"\"}\n");
    Ok(())
}

/// The text of one line (without its newline) whose checksum matches.
pub fn check_line(bytes: &[u8]) -> Result<&str, String> {
    if bytes.len() < SUFFIX_LEN + 2 || !bytes.starts_with(b"{") {
        return Err("not an index line".into());
    }
    let (body, suffix) = bytes.split_at(bytes.len() - SUFFIX_LEN);
    let hex = suffix
        .strip_prefix(br#","crc":""#)
        .and_then(|s| s.strip_suffix(br#""}"#))
        .ok_or("no checksum at the end of the line")?;
    let expected = std::str::from_utf8(hex)
        .ok()
        .and_then(|h| u32::from_str_radix(h, 16).ok())
        .ok_or("malformed checksum")?;
    if crc32fast::hash(body) != expected {
        return Err("checksum mismatch".into());
    }
    std::str::from_utf8(bytes).map_err(|e| format!("not UTF-8: {e}"))
}

/// `text` (a line without its newline) with its checksum made right, if
/// it has the shape of an index line; as it is otherwise.
#[cfg(feature = "fuzzing")]
pub fn sealed(text: &[u8]) -> Vec<u8> {
    let mut out = text.to_vec();
    let shaped = text.len() >= SUFFIX_LEN + 2
        && text.starts_with(b"{")
        && text[text.len() - SUFFIX_LEN..].starts_with(br#","crc":""#);
    if shaped {
        let body = text.len() - SUFFIX_LEN;
        let crc = format!("{:08x}", crc32fast::hash(&text[..body]));
        out[body + 7..body + 15].copy_from_slice(crc.as_bytes());
    }
    out
}

/// An index line read in place: what [`IndexLine`] holds, with strings
/// borrowed from the text and the info still JSON (checked to be a map of
/// integers and strings).
#[derive(Debug)]
pub struct LineView<'a> {
    pub key: Cow<'a, str>,
    pub type_name: Option<Cow<'a, str>>,
    pub fingerprint: Option<Cow<'a, str>>,
    /// `None` marks a deletion.
    pub handler: Option<Cow<'a, str>>,
    pub mode: Mode,
    info: Option<&'a str>,
    pub size: u64,
    pub time: u64,
    pub seq: u64,
    /// When the entry expires, in nanoseconds since the Unix epoch.
    pub expires: Option<u64>,
}

impl<'a> LineView<'a> {
    /// Reads a line's text as the [`IndexLine`] decoder would: the same
    /// required fields and defaults, duplicate fields refused, unknown ones
    /// (the checksum) skipped.
    pub fn parse(text: &'a str) -> Result<LineView<'a>, DecodeError> {
        match canonical::read(text) {
            Some(view) => Ok(view),
            None => Self::parse_any(text),
        }
    }

    /// [`parse`](Self::parse) of a line in any shape JSON allows.
    fn parse_any(text: &'a str) -> Result<LineView<'a>, DecodeError> {
        let mut r = JsonReader::new(text);
        Self::read(&mut r, text)
            .and_then(|view| r.finish().map(|()| view))
            .map_err(|e| r.locate(e))
    }

    fn read(r: &mut JsonReader<'a>, text: &'a str) -> Result<LineView<'a>, DecodeError> {
        let (mut key, mut type_name, mut fingerprint, mut handler) = (None, None, None, None);
        let (mut mode, mut info, mut size, mut time, mut seq) = (None, None, None, None, None);
        let mut expires = None;
        r.begin_object()?;
        let mut first = true;
        let mut expected = 0;
        while let Some(field) = next_key(r, text, &mut first, &mut expected)? {
            let name = KEY_ORDER.get(field).copied().unwrap_or_default();
            match field {
                0 => once(&mut key, name, r.read_str()?)?,
                1 => once(&mut type_name, name, optional_str(r)?)?,
                2 => once(&mut fingerprint, name, optional_str(r)?)?,
                3 => once(&mut handler, name, optional_str(r)?)?,
                4 => once(&mut mode, name, Mode::decode_json(r)?)?,
                5 => once(&mut info, name, info_text(r, text)?)?,
                6 => once(&mut size, name, r.read_int("u64")?)?,
                7 => once(&mut time, name, r.read_int("u64")?)?,
                8 => once(&mut seq, name, r.read_int("u64")?)?,
                9 => once(&mut expires, name, optional_u64(r)?)?,
                _ => r.skip_value()?,
            }
        }
        Ok(LineView {
            key: required(key, "#key")?,
            type_name: required(type_name, "#type")?,
            fingerprint: fingerprint.flatten(),
            handler: required(handler, "handler")?,
            mode: mode.unwrap_or_default(),
            info,
            size: size.unwrap_or_default(),
            time: required(time, "time")?,
            seq: required(seq, "seq")?,
            expires: expires.flatten(),
        })
    }

    /// Where the line's fields sit in `text` (the text it was parsed from),
    /// to rebuild the view later without parsing; `None` if a string had
    /// escapes (only its decoded copy holds it).
    pub fn spans(&self, text: &str) -> Option<Spans> {
        Some(Spans {
            type_name: Span::of(text, self.type_name.as_ref())?,
            fingerprint: Span::of(text, self.fingerprint.as_ref())?,
            handler: Span::of(text, self.handler.as_ref())?,
            info: Span::of(text, self.info.map(Cow::Borrowed).as_ref())?,
            mode: self.mode,
            size: self.size,
            expires: self.expires,
        })
    }

    /// The view [`spans`](Self::spans) describes, of the line of `key`
    /// written at `time` and `seq`.
    pub fn from_spans(key: &'a str, text: &'a str, spans: &Spans, time: u64, seq: u64) -> Self {
        LineView {
            key: Cow::Borrowed(key),
            type_name: spans.type_name.get(text).map(Cow::Borrowed),
            fingerprint: spans.fingerprint.get(text).map(Cow::Borrowed),
            handler: spans.handler.get(text).map(Cow::Borrowed),
            mode: spans.mode,
            info: spans.info.get(text),
            size: spans.size,
            time,
            seq,
            expires: spans.expires,
        }
    }

    /// The handler's info.
    pub fn info(&self) -> Result<Info, DecodeError> {
        self.info_ref().to_info()
    }

    /// The handler's info, read in place.
    pub fn info_ref(&self) -> InfoRef<'a> {
        InfoRef {
            json: self.info.unwrap_or("{}"),
        }
    }

    /// The line as a record.
    #[cfg(test)]
    fn to_line(&self) -> Result<IndexLine, DecodeError> {
        let owned = |s: &Option<Cow<'_, str>>| s.as_deref().map(str::to_owned);
        Ok(IndexLine {
            key: self.key.clone().into_owned(),
            type_name: owned(&self.type_name),
            fingerprint: owned(&self.fingerprint),
            handler: owned(&self.handler),
            mode: self.mode,
            info: self.info()?,
            size: self.size,
            time: self.time,
            seq: self.seq,
            expires: self.expires,
        })
    }
}

/// A handler's info as its index line holds it, read field by field
/// without building an [`Info`] map: see [`Handler::load_ref`](crate::Handler::load_ref).
#[derive(Debug, Clone, Copy)]
pub struct InfoRef<'a> {
    /// A JSON object, checked to decode as [`Info`] when the line was read.
    json: &'a str,
}

impl<'a> InfoRef<'a> {
    /// The string under `key`; `None` if absent or not a string.
    pub fn text(&self, key: &str) -> Option<Cow<'a, str>> {
        match canonical::flat_value(self.json, key) {
            Some(Some(canonical::Flat::Text(text))) => return Some(Cow::Borrowed(text)),
            Some(_) => return None,
            None => {}
        }
        let mut r = self.find(key)?;
        if r.peek().ok()? == b'"' {
            r.read_str().ok()
        } else {
            None
        }
    }

    /// The integer under `key`; `None` if absent or not an integer.
    pub fn int(&self, key: &str) -> Option<i64> {
        match canonical::flat_value(self.json, key) {
            Some(Some(canonical::Flat::Int(n))) => return Some(n),
            Some(_) => return None,
            None => {}
        }
        let mut r = self.find(key)?;
        if r.peek().ok()? == b'"' {
            None
        } else {
            r.read_int("i64").ok()
        }
    }

    /// Whether the text of the map holds `text`: always when it is a key
    /// of the map, quoted; also where a value holds the same text.
    pub(crate) fn mentions(&self, text: &str) -> bool {
        self.json.contains(text)
    }

    /// The whole map.
    pub fn to_info(&self) -> Result<Info, DecodeError> {
        codec_runtime::from_json(self.json)
    }

    /// A reader at the value under `key`.
    fn find(&self, key: &str) -> Option<JsonReader<'a>> {
        let mut r = JsonReader::new(self.json);
        r.begin_object().ok()?;
        let mut first = true;
        while let Some(name) = r.next_key(&mut first).ok()? {
            if name == key {
                return Some(r);
            }
            r.skip_value().ok()?;
        }
        None
    }
}

/// Where the fields of a line sit in its text, found when the line is read
/// from disk so that reading its entry parses nothing.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Spans {
    type_name: Span,
    fingerprint: Span,
    handler: Span,
    info: Span,
    mode: Mode,
    size: u64,
    expires: Option<u64>,
}

impl Spans {
    /// When the line's entry expires.
    pub fn expires(&self) -> Option<u64> {
        self.expires
    }
}

/// A byte range of a line's text, or [`Span::NONE`] for an absent field.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Span {
    start: u32,
    end: u32,
}

impl Span {
    const NONE: Span = Span {
        start: u32::MAX,
        end: 0,
    };

    /// The span of `part` in `text`; `None` if `part` is not a slice of it.
    fn of(text: &str, part: Option<&Cow<'_, str>>) -> Option<Span> {
        let part = match part {
            None => return Some(Span::NONE),
            Some(Cow::Borrowed(part)) => part,
            Some(Cow::Owned(_)) => return None,
        };
        let start = (part.as_ptr() as usize).checked_sub(text.as_ptr() as usize)?;
        let end = start + part.len();
        (end <= text.len()).then_some(Span {
            start: start.try_into().ok()?,
            end: end.try_into().ok()?,
        })
    }

    fn get(self, text: &str) -> Option<&str> {
        text.get(self.start as usize..self.end as usize)
    }
}

/// The keys of an index line in the order codec writes them.
const KEY_ORDER: [&str; 11] = [
    "#key",
    "#type",
    "fingerprint",
    "handler",
    "mode",
    "info",
    "size",
    "time",
    "seq",
    "expires",
    "crc",
];

/// The position in [`KEY_ORDER`] of the line's next key (past its end for
/// a key lines do not have), like [`JsonReader::next_key`], but first
/// trying the key that comes next in that order as plain bytes: a line
/// codec wrote matches every time and skips the general key parsing.
fn next_key(
    r: &mut JsonReader<'_>,
    text: &str,
    first: &mut bool,
    expected: &mut usize,
) -> Result<Option<usize>, DecodeError> {
    if let Some(&name) = KEY_ORDER.get(*expected) {
        let rest = &text.as_bytes()[r.position()..];
        let rest = if *first {
            Some(rest)
        } else {
            rest.strip_prefix(b",")
        };
        let quoted = rest.is_some_and(|rest| quoted_key_is(rest, *expected));
        if quoted {
            // A key without escapes: its bytes are its text.
            r.seek(r.position() + !*first as usize + name.len() + 3);
            *first = false;
            *expected += 1;
            return Ok(Some(*expected - 1));
        }
    }
    let Some(name) = r.next_key(first)? else {
        return Ok(None);
    };
    let field = KEY_ORDER.iter().position(|k| *k == name);
    *expected = field.map_or(usize::MAX, |i| i + 1);
    Ok(Some(field.unwrap_or(usize::MAX)))
}

/// Whether `rest` starts with the key at `index` of [`KEY_ORDER`], quoted,
/// and its colon: each a comparison of a known length, which compiles to a
/// few loads rather than a call to `memcmp` (6% of a fresh open's time).
fn quoted_key_is(rest: &[u8], index: usize) -> bool {
    match index {
        0 => rest.starts_with(b"\"#key\":"),
        1 => rest.starts_with(b"\"#type\":"),
        2 => rest.starts_with(b"\"fingerprint\":"),
        3 => rest.starts_with(b"\"handler\":"),
        4 => rest.starts_with(b"\"mode\":"),
        5 => rest.starts_with(b"\"info\":"),
        6 => rest.starts_with(b"\"size\":"),
        7 => rest.starts_with(b"\"time\":"),
        8 => rest.starts_with(b"\"seq\":"),
        9 => rest.starts_with(b"\"expires\":"),
        10 => rest.starts_with(b"\"crc\":"),
        _ => false,
    }
}

fn once<T>(slot: &mut Option<T>, field: &'static str, value: T) -> Result<(), DecodeError> {
    if slot.is_some() {
        return Err(DecodeError::duplicate_field(field));
    }
    *slot = Some(value);
    Ok(())
}

fn required<T>(value: Option<T>, field: &'static str) -> Result<T, DecodeError> {
    value.ok_or_else(|| DecodeError::missing_field(field))
}

fn optional_str<'a>(r: &mut JsonReader<'a>) -> Result<Option<Cow<'a, str>>, DecodeError> {
    if r.try_read_nil() {
        Ok(None)
    } else {
        r.read_str().map(Some)
    }
}

/// `null`, or a `u64`.
fn optional_u64(r: &mut JsonReader<'_>) -> Result<Option<u64>, DecodeError> {
    if r.try_read_nil() {
        Ok(None)
    } else {
        r.read_int("u64").map(Some)
    }
}

/// The text of the info map, checked to decode as [`Info`] (string keys,
/// any JSON values). A map of integers and strings, what the built-in
/// handlers write, is checked in one pass without building it; others are
/// decoded.
fn info_text<'a>(r: &mut JsonReader<'a>, text: &'a str) -> Result<&'a str, DecodeError> {
    r.peek()?;
    let start = r.position();
    let mut scan = r.clone();
    if flat_info(&mut scan).is_ok() {
        *r = scan;
        return Ok(&text[start..r.position()]);
    }
    r.skip_value()?;
    let json = &text[start..r.position()];
    codec_runtime::from_json::<Info>(json)?;
    Ok(json)
}

/// Reads a map of integers and strings.
fn flat_info(r: &mut JsonReader<'_>) -> Result<(), DecodeError> {
    r.begin_object()?;
    let mut first = true;
    while r.next_key(&mut first)?.is_some() {
        if r.peek()? == b'"' {
            r.read_str()?;
        } else {
            r.read_int::<i64>("i64")?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_key_is_agrees_with_the_key_order() {
        for (i, name) in KEY_ORDER.iter().enumerate() {
            for (j, other) in KEY_ORDER.iter().enumerate() {
                let quoted = format!("\"{other}\":1");
                assert_eq!(
                    quoted_key_is(quoted.as_bytes(), i),
                    i == j,
                    "{name} / {other}"
                );
            }
            assert!(
                !quoted_key_is(format!("\"{name}\"").as_bytes(), i),
                "no colon"
            );
            assert!(
                !quoted_key_is(format!("{name}\":").as_bytes(), i),
                "no quote"
            );
        }
        assert!(!quoted_key_is(b"\"seq\":", KEY_ORDER.len()));
    }
    use crate::index::records::InfoValue;

    fn line() -> IndexLine {
        IndexLine {
            key: "chunk/\"42\"\n".into(),
            type_name: Some("test.Chunk".into()),
            fingerprint: Some("00ff".into()),
            handler: Some("shared".into()),
            mode: Mode::Json,
            info: [
                ("file".to_owned(), InfoValue::from("w.bin")),
                ("offset".to_owned(), InfoValue::from(-3)),
            ]
            .into_iter()
            .collect(),
            size: 7,
            time: u64::MAX,
            seq: 1,
            expires: Some(5),
        }
    }

    #[test]
    fn an_encoded_line_checks_and_reads_back() {
        let mut bytes = b"kept".to_vec();
        encode_line(&line(), &mut bytes).unwrap();
        assert_eq!(bytes.pop(), Some(b'\n'));
        let text = check_line(&bytes[4..]).unwrap();
        let view = LineView::parse(text).unwrap();
        assert_eq!(view.to_line().unwrap(), line());
        // The key has escapes; every other string is a slice of the text.
        let spans = view.spans(text).unwrap();
        let rebuilt = LineView::from_spans(&view.key, text, &spans, view.time, view.seq);
        assert_eq!(rebuilt.to_line().unwrap(), line());
        bytes[10] ^= 1;
        assert_eq!(check_line(&bytes[4..]).unwrap_err(), "checksum mismatch");
    }

    #[test]
    fn short_or_foreign_lines_are_refused_whole() {
        let mut bytes = Vec::new();
        encode_line(&line(), &mut bytes).unwrap();
        let suffix = &bytes[bytes.len() - 1 - SUFFIX_LEN..bytes.len() - 1];
        for text in [
            &b""[..],
            b"{",
            b"{}",
            suffix,
            &[b"{"[0]].repeat(SUFFIX_LEN + 1),
        ] {
            assert_eq!(
                check_line(text).unwrap_err(),
                "not an index line",
                "{text:?}"
            );
        }
        let mut short = b"{x".to_vec();
        short.extend_from_slice(suffix);
        assert!(check_line(&short).is_err());
    }

    #[test]
    fn every_field_of_a_line_is_read() {
        let mut bytes = Vec::new();
        encode_line(&line(), &mut bytes).unwrap();
        let text = check_line(&bytes[..bytes.len() - 1]).unwrap();
        let view = LineView::parse(text).unwrap();
        assert_eq!(view.size, 7);
        assert_eq!((view.time, view.seq), (u64::MAX, 1));
        assert_eq!(view.mode, Mode::Json);
    }

    #[test]
    fn a_field_with_escapes_has_no_span() {
        let text = r##"{"#key":"a","#type":"T\u0041","handler":"h","time":1,"seq":2}"##;
        let view = LineView::parse(text).unwrap();
        assert_eq!(view.type_name.as_deref(), Some("TA"));
        assert_eq!(view.spans(text), None);
    }

    #[test]
    fn info_reads_in_place() {
        let info = InfoRef {
            json: r#"{"file":"w.bin","len":12,"esc":"a\"b","neg":-1}"#,
        };
        assert_eq!(info.text("file").as_deref(), Some("w.bin"));
        assert_eq!(info.text("esc").as_deref(), Some("a\"b"));
        assert_eq!(info.int("len"), Some(12));
        assert_eq!(info.int("neg"), Some(-1));
        assert_eq!(info.int("file"), None);
        assert_eq!(info.text("len"), None);
        assert_eq!(info.text("missing"), None);
        assert_eq!(info.to_info().unwrap().len(), 4);
    }

    /// The view accepts exactly what the record's decoder accepts.
    #[test]
    fn the_view_agrees_with_the_record_decoder() {
        let texts = [
            r##"{"#key":"a","#type":null,"handler":null,"time":1,"seq":2}"##,
            r##"{"seq":2,"time":1,"handler":"inline","#type":"T","#key":"a","crc":"x"}"##,
            r##"{"#key":"a","#type":null,"handler":null,"time":1}"##,
            r##"{"#key":"a","#key":"b","#type":null,"handler":null,"time":1,"seq":2}"##,
            r##"{"#key":"a","#type":null,"handler":null,"time":-1,"seq":2}"##,
            r##"{"#key":"a","#type":null,"handler":"h","info":{"x":1.5},"time":1,"seq":2}"##,
            r##"{"#key":"a","#type":null,"handler":"h","info":{"x":null},"time":1,"seq":2}"##,
            r##"{"#key":"a","#type":null,"handler":"h","info":{"x":"\u0041","y":-9},"time":1,"seq":2}"##,
            r##"{"#key":"a","#type":null,"handler":null,"mode":"zip","time":1,"seq":2}"##,
            r##"{"#key":"a","#type":null,"handler":null,"time":1,"seq":2} x"##,
            r##"{"#key":"a","#type":null,"fingerprint":null,"handler":null,"time":1,"seq":2}"##,
            r##"{"#key":"a","#type":null,"handler":"h","info":{"x":[1,"b",null,true,{"y":[]}]},"time":1,"seq":2}"##,
            r##"{"#key":"a","#type":null,"handler":"h","info":{"x":{"shape":[2,3],"dtype":"f32"},"n":0.5},"time":1,"seq":2}"##,
            r##"{"#key":"a","#type":null,"handler":"h","info":{"x":18446744073709551615},"time":1,"seq":2}"##,
            r##"{"#key":"a","#type":null,"handler":"h","info":{"x":[1,}},"time":1,"seq":2}"##,
            r##"{"#key":"a","#type":null,"handler":"h","info":[1],"time":1,"seq":2}"##,
            r##"{"#key":"a","#type":null,"handler":"h","info":{"x":false,"y":-0.0,"z":1e300},"time":1,"seq":2}"##,
        ];
        for text in texts {
            let record = codec_runtime::from_json::<IndexLine>(text);
            let view = LineView::parse(text).and_then(|v| v.to_line());
            match (&record, &view) {
                (Ok(a), Ok(b)) => assert_eq!(a, b, "{text}"),
                (Err(_), Err(_)) => {}
                _ => panic!("{text}: decoder {record:?}, view {view:?}"),
            }
        }
    }
}
