//! A prototype of decoding below the allocation floor: the log record with
//! its strings borrowed from the input (`&'a str`) instead of owned. The
//! `Codec` trait's decoders return owned values, so this is written by hand
//! on codec's public `MsgpackReader`, as a derive for borrowing types would
//! generate it: keys tried in declaration order (the order encoders write),
//! depth counted, UTF-8 checked. Only `tags` (a `Vec<u32>`) and the outer
//! `Vec` still allocate. It decodes the same bytes as `codec::from_msgpack`.

use codec::{DecodeError, DecodeErrorKind, MsgpackReader};

#[derive(Debug, PartialEq)]
pub enum Kind<'a> {
    Cached,
    Computed(u32),
    Failed { code: u32, reason: &'a str },
}

#[derive(Debug, PartialEq)]
pub struct Record<'a> {
    pub service: &'a str,
    pub path: &'a str,
    pub ts: u64,
    pub status: u16,
    pub user: Option<&'a str>,
    pub tags: Vec<u32>,
    pub kind: Kind<'a>,
}

/// A key as the derive quotes it: a fixstr marker and the name.
macro_rules! key {
    ($name:literal) => {{
        const NAME: &[u8] = $name.as_bytes();
        const KEY: [u8; NAME.len() + 1] = {
            let mut key = [0u8; NAME.len() + 1];
            key[0] = 0xa0 | NAME.len() as u8;
            let mut i = 0;
            while i < NAME.len() {
                key[i + 1] = NAME[i];
                i += 1;
            }
            key
        };
        &KEY
    }};
}

/// The prototype covers the in-order case only (codec's encoders write
/// fields in order; a derive would fall back to matching keys by name).
fn expect_key(r: &mut MsgpackReader<'_>, key: &[u8]) -> Result<(), DecodeError> {
    match r.next_key_is(key) {
        true => Ok(()),
        false => Err(r.error(DecodeErrorKind::Custom {
            message: "keys out of order: outside the prototype".into(),
        })),
    }
}

fn kind<'a>(r: &mut MsgpackReader<'a>) -> Result<Kind<'a>, DecodeError> {
    r.nested(kind_map)
}

fn kind_map<'a>(r: &mut MsgpackReader<'a>) -> Result<Kind<'a>, DecodeError> {
    let len = r.read_map_len()?;
    expect_key(r, key!("type"))?;
    let kind = match r.read_str_bytes()? {
        b"Cached" if len == 1 => Kind::Cached,
        b"Computed" if len == 2 => {
            expect_key(r, key!("value"))?;
            Kind::Computed(r.read_int("u32")?)
        }
        b"Failed" if len == 3 => {
            expect_key(r, key!("code"))?;
            let code = r.read_int("u32")?;
            expect_key(r, key!("reason"))?;
            Kind::Failed {
                code,
                reason: r.read_str()?,
            }
        }
        _ => return Err(r.unexpected("a known variant")),
    };
    Ok(kind)
}

fn record<'a>(r: &mut MsgpackReader<'a>) -> Result<Record<'a>, DecodeError> {
    r.nested(record_map)
}

fn record_map<'a>(r: &mut MsgpackReader<'a>) -> Result<Record<'a>, DecodeError> {
    if r.read_map_len()? != 7 {
        return Err(r.unexpected("a map of 7 fields"));
    }
    expect_key(r, key!("service"))?;
    let service = r.read_str()?;
    expect_key(r, key!("path"))?;
    let path = r.read_str()?;
    expect_key(r, key!("ts"))?;
    let ts = r.read_int("u64")?;
    expect_key(r, key!("status"))?;
    let status = r.read_int("u16")?;
    expect_key(r, key!("user"))?;
    let user = match r.try_read_nil() {
        true => None,
        false => Some(r.read_str()?),
    };
    expect_key(r, key!("tags"))?;
    let tags = r.nested(|r| {
        let n = r.read_array_len()?;
        let mut tags = Vec::with_capacity(r.capacity_hint(n));
        for _ in 0..n {
            tags.push(r.read_int("u32")?);
        }
        Ok(tags)
    })?;
    expect_key(r, key!("kind"))?;
    let kind = kind(r)?;
    Ok(Record {
        service,
        path,
        ts,
        status,
        user,
        tags,
        kind,
    })
}

/// Decodes a MessagePack array of log records, borrowing their strings.
pub fn decode(buf: &[u8]) -> Result<Vec<Record<'_>>, DecodeError> {
    let mut r = MsgpackReader::new(buf);
    let out = r.nested(|r| {
        let n = r.read_array_len()?;
        let mut out = Vec::with_capacity(r.capacity_hint(n));
        for _ in 0..n {
            out.push(record(r)?);
        }
        Ok(out)
    })?;
    r.finish()?;
    Ok(out)
}
