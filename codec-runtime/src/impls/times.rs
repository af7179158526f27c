//! Reading the time types from every form msgspec writes or accepts, shared
//! by the standard types and chrono's.
//!
//! Timestamps: the MessagePack timestamp extension, or an RFC 3339 string
//! with an offset in either format. Durations: an ISO 8601 string, or a
//! number of seconds (msgspec's lax form) in either format.

use crate::error::{DecodeError, Format};
use crate::json::JsonReader;
use crate::kind::WireKind;
use crate::msgpack::{Integer, MsgpackReader};
use crate::time;

/// An instant read from the wire: seconds and nanoseconds since the epoch,
/// and the UTC offset it was written with (zero for the extension).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Instant {
    pub secs: i64,
    pub nanos: u32,
    #[cfg_attr(not(feature = "chrono"), allow(dead_code))]
    pub offset: i32,
}

fn instant_from_text(s: &str) -> Result<Instant, String> {
    let parsed = time::parse_datetime(s)?;
    match (parsed.utc_secs(), parsed.offset) {
        (Some(secs), Some(offset)) => Ok(Instant {
            secs,
            nanos: parsed.nanos,
            offset,
        }),
        _ => Err(format!(
            "`{s}` has no UTC offset; add `Z` or one like +02:00 (this type holds an instant)"
        )),
    }
}

/// Reads a timestamp extension, or an RFC 3339 string with an offset.
pub(crate) fn read_instant_msgpack(r: &mut MsgpackReader<'_>) -> Result<Instant, DecodeError> {
    let start = r.position();
    if r.peek_kind()?.is(WireKind::STR) {
        let s = r.read_str()?;
        return instant_from_text(s)
            .map_err(|m| DecodeError::invalid_value(m).at(Format::MsgPack, start));
    }
    let (secs, nanos) = r.read_timestamp()?;
    Ok(Instant {
        secs,
        nanos,
        offset: 0,
    })
}

/// Reads an RFC 3339 string with an offset.
pub(crate) fn read_instant_json(r: &mut JsonReader<'_>) -> Result<Instant, DecodeError> {
    let start = r.position();
    let s = r.read_str()?;
    instant_from_text(&s).map_err(|m| DecodeError::invalid_value(m).at(Format::Json, start))
}

/// A duration read from the wire: whether it is negative, seconds, nanoseconds.
pub(crate) type SignedDuration = (bool, u64, u32);

fn from_seconds_f64(v: f64) -> Result<SignedDuration, String> {
    std::time::Duration::try_from_secs_f64(v.abs())
        .map(|d| (v < 0.0, d.as_secs(), d.subsec_nanos()))
        .map_err(|_| format!("{v} seconds is not a duration codec can hold"))
}

fn from_integer(v: Integer) -> SignedDuration {
    match v {
        Integer::Pos(v) => (false, v, 0),
        Integer::Neg(v) => (true, v.unsigned_abs(), 0),
    }
}

/// Reads an ISO 8601 duration string, or a number of seconds.
pub(crate) fn read_duration_msgpack(
    r: &mut MsgpackReader<'_>,
) -> Result<SignedDuration, DecodeError> {
    let start = r.position();
    let located = |m: String| DecodeError::invalid_value(m).at(Format::MsgPack, start);
    let kind = r.peek_kind()?;
    if kind.is(WireKind::INT) {
        Ok(from_integer(r.read_integer()?))
    } else if kind.is(WireKind::FLOAT) {
        from_seconds_f64(r.read_f64()?).map_err(located)
    } else {
        time::parse_iso_duration(r.read_str()?).map_err(located)
    }
}

/// Reads an ISO 8601 duration string, or a number of seconds.
pub(crate) fn read_duration_json(r: &mut JsonReader<'_>) -> Result<SignedDuration, DecodeError> {
    let start = r.position();
    let located = |m: String| DecodeError::invalid_value(m).at(Format::Json, start);
    let kind = r.peek_kind()?;
    if kind.is(WireKind::INT) {
        Ok(from_integer(r.read_integer()?))
    } else if kind.is(WireKind::FLOAT) {
        from_seconds_f64(r.read_f64()?).map_err(located)
    } else {
        time::parse_iso_duration(&r.read_str()?).map_err(located)
    }
}
