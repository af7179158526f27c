//! chrono's types (feature `chrono`), encoded as msgspec encodes Python's
//! `datetime`, `date`, `time` and `timedelta`:
//!
//! - `DateTime<Utc>`: like `SystemTime`, the timestamp extension (-1) in
//!   MessagePack, RFC 3339 with `Z` in JSON.
//! - `DateTime<FixedOffset>`: an aware datetime. MessagePack: the timestamp
//!   extension, as msgspec writes it, so the offset is lost (it decodes at
//!   `+00:00`); [`keep_offset`](crate::keep_offset) (an attribute) or
//!   [`KeepOffset`](crate::KeepOffset) (a type) keep it by writing the
//!   RFC 3339 string instead. JSON: RFC 3339 with its offset (`Z` for zero).
//! - `NaiveDateTime`: RFC 3339 without an offset; `NaiveDate`: `YYYY-MM-DD`;
//!   `NaiveTime`: `HH:MM:SS[.ffffff]`; [`OffsetTime`](crate::OffsetTime):
//!   a time with its offset, `HH:MM:SS[.ffffff]+HH:MM`.
//! - `TimeDelta`: an ISO 8601 duration (`P1DT30S`, negative `-PT1.5S`).
//!
//! Fractions of a second have 6 digits (9 when the nanoseconds are not whole
//! microseconds). Every form msgspec accepts is read back: strings in
//! MessagePack for aware datetimes, offsets without a colon, durations as
//! numbers of seconds.

use chrono::{
    DateTime, FixedOffset, NaiveDate, NaiveDateTime, NaiveTime, TimeDelta, Timelike, Utc,
};
use schemars::SchemaGenerator;
use serde_json::json;

use super::times;
use crate::codec::Schema;
use crate::decode::Decode;
use crate::encode::Encode;
use crate::error::{DecodeError, EncodeError, Format};
use crate::json::{JsonReader, JsonWriter};
use crate::kind::WireKind;
use crate::msgpack::{MsgpackReader, MsgpackWriter};
use crate::{schema, time};

fn out_of_range(secs: i64) -> String {
    format!("timestamp {secs}s is out of chrono's range")
}

fn offset(secs: i32) -> Result<FixedOffset, String> {
    FixedOffset::east_opt(secs).ok_or_else(|| format!("offset {secs}s is beyond a day"))
}

fn aware(i: times::Instant) -> Result<DateTime<FixedOffset>, String> {
    let utc = DateTime::from_timestamp(i.secs, i.nanos).ok_or_else(|| out_of_range(i.secs))?;
    Ok(utc.with_timezone(&offset(i.offset)?))
}

fn invalid(format: Format, start: usize) -> impl Fn(String) -> DecodeError {
    move |m| DecodeError::invalid_value(m).at(format, start)
}

/// Nanoseconds within the second; chrono's leap second (nanoseconds past a
/// billion) has no msgspec encoding.
fn nanos(n: u32) -> Result<u32, EncodeError> {
    if n >= 1_000_000_000 {
        return Err(EncodeError::InvalidValue {
            message: "a leap second cannot be encoded: Python's datetime has none".into(),
        });
    }
    Ok(n)
}

fn rfc3339(v: &DateTime<FixedOffset>) -> Result<String, EncodeError> {
    let offset = v.offset().local_minus_utc();
    let local = v.timestamp() + i64::from(offset);
    time::format_datetime(local, nanos(v.timestamp_subsec_nanos())?, Some(offset))
        .map_err(|message| EncodeError::InvalidValue { message })
}

impl Encode for DateTime<Utc> {
    fn encode_msgpack(&self, w: &mut MsgpackWriter) -> Result<(), EncodeError> {
        w.write_timestamp(self.timestamp(), nanos(self.timestamp_subsec_nanos())?)
    }

    fn encode_json(&self, w: &mut JsonWriter) -> Result<(), EncodeError> {
        let text = time::format_rfc3339(self.timestamp(), nanos(self.timestamp_subsec_nanos())?)
            .map_err(|message| EncodeError::InvalidValue { message })?;
        w.write_str(&text)
    }
}

impl<'de> Decode<'de> for DateTime<Utc> {
    fn decode_msgpack(r: &mut MsgpackReader<'de>) -> Result<Self, DecodeError> {
        let start = r.position();
        let i = times::read_instant_msgpack(r)?;
        DateTime::from_timestamp(i.secs, i.nanos)
            .ok_or_else(|| invalid(Format::MsgPack, start)(out_of_range(i.secs)))
    }

    fn decode_json(r: &mut JsonReader<'de>) -> Result<Self, DecodeError> {
        let start = r.position();
        let i = times::read_instant_json(r)?;
        DateTime::from_timestamp(i.secs, i.nanos)
            .ok_or_else(|| invalid(Format::Json, start)(out_of_range(i.secs)))
    }
}

impl Schema for DateTime<Utc> {
    const KIND: WireKind = WireKind::EXT.union(WireKind::STR);

    fn json_schema(_: &mut SchemaGenerator) -> schemars::Schema {
        schema::typed("string", json!({ "format": "date-time" }))
    }
}

/// An aware datetime, as msgspec writes one: the timestamp extension in
/// MessagePack (the offset is lost), RFC 3339 with the offset in JSON.
impl Encode for DateTime<FixedOffset> {
    fn encode_msgpack(&self, w: &mut MsgpackWriter) -> Result<(), EncodeError> {
        w.write_timestamp(self.timestamp(), nanos(self.timestamp_subsec_nanos())?)
    }

    fn encode_json(&self, w: &mut JsonWriter) -> Result<(), EncodeError> {
        w.write_str(&rfc3339(self)?)
    }
}

impl<'de> Decode<'de> for DateTime<FixedOffset> {
    fn decode_msgpack(r: &mut MsgpackReader<'de>) -> Result<Self, DecodeError> {
        let start = r.position();
        aware(times::read_instant_msgpack(r)?).map_err(invalid(Format::MsgPack, start))
    }

    fn decode_json(r: &mut JsonReader<'de>) -> Result<Self, DecodeError> {
        let start = r.position();
        aware(times::read_instant_json(r)?).map_err(invalid(Format::Json, start))
    }
}

impl Schema for DateTime<FixedOffset> {
    const KIND: WireKind = WireKind::EXT.union(WireKind::STR);

    fn json_schema(_: &mut SchemaGenerator) -> schemars::Schema {
        schema::typed("string", json!({ "format": "date-time" }))
    }
}

/// `#[codec(with = "codec::keep_offset")]` on a `DateTime<FixedOffset>`
/// field: the lossless form, RFC 3339 with the offset in MessagePack too
/// (msgspec reads it back as the same aware datetime). JSON is unchanged.
///
/// ```
/// # #[cfg(feature = "chrono")] {
/// use chrono::{DateTime, FixedOffset};
///
/// #[derive(codec::Codec, Debug, PartialEq)]
/// struct Meeting {
///     #[codec(with = "codec::keep_offset")]
///     at: DateTime<FixedOffset>,
/// }
///
/// let at = DateTime::parse_from_rfc3339("2026-01-02T03:04:05+02:00").unwrap();
/// let bytes = codec::to_msgpack(&Meeting { at }).unwrap();
/// let back: Meeting = codec::from_msgpack(&bytes).unwrap();
/// assert_eq!(back.at.offset(), at.offset());
/// # }
/// ```
pub mod keep_offset {
    use super::*;

    /// Appends the RFC 3339 string, offset included.
    #[doc(hidden)]
    pub fn encode_msgpack(
        v: &DateTime<FixedOffset>,
        w: &mut MsgpackWriter,
    ) -> Result<(), EncodeError> {
        w.write_str(&rfc3339(v)?)
    }

    /// Reads an RFC 3339 string (or a timestamp extension, at `+00:00`).
    #[doc(hidden)]
    pub fn decode_msgpack(r: &mut MsgpackReader<'_>) -> Result<DateTime<FixedOffset>, DecodeError> {
        <DateTime<FixedOffset>>::decode_msgpack(r)
    }

    /// Appends the RFC 3339 string, as the type does.
    #[doc(hidden)]
    pub fn encode_json(v: &DateTime<FixedOffset>, w: &mut JsonWriter) -> Result<(), EncodeError> {
        v.encode_json(w)
    }

    /// Reads an RFC 3339 string.
    #[doc(hidden)]
    pub fn decode_json(r: &mut JsonReader<'_>) -> Result<DateTime<FixedOffset>, DecodeError> {
        <DateTime<FixedOffset>>::decode_json(r)
    }

    /// The schema of an RFC 3339 string.
    #[doc(hidden)]
    pub fn json_schema<T>(g: &mut SchemaGenerator) -> schemars::Schema {
        <DateTime<FixedOffset>>::json_schema(g)
    }
}

/// A `DateTime<FixedOffset>` that keeps its offset in MessagePack too: the
/// type form of [`keep_offset`](crate::keep_offset), for places an attribute
/// cannot reach (`Option<KeepOffset>`, `Vec<KeepOffset>`). Same bytes as the
/// attribute; JSON is unchanged.
///
/// ```
/// # #[cfg(feature = "chrono")] {
/// let at = chrono::DateTime::parse_from_rfc3339("2026-01-02T03:04:05+02:00").unwrap();
/// let kept = Some(codec::KeepOffset(at));
/// let back: Option<codec::KeepOffset> = codec::from_msgpack(&codec::to_msgpack(&kept).unwrap()).unwrap();
/// assert_eq!(back.unwrap().0.offset(), at.offset());
/// # }
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct KeepOffset(pub DateTime<FixedOffset>);

impl Encode for KeepOffset {
    fn encode_msgpack(&self, w: &mut MsgpackWriter) -> Result<(), EncodeError> {
        keep_offset::encode_msgpack(&self.0, w)
    }

    fn encode_json(&self, w: &mut JsonWriter) -> Result<(), EncodeError> {
        keep_offset::encode_json(&self.0, w)
    }
}

impl<'de> Decode<'de> for KeepOffset {
    fn decode_msgpack(r: &mut MsgpackReader<'de>) -> Result<Self, DecodeError> {
        keep_offset::decode_msgpack(r).map(KeepOffset)
    }

    fn decode_json(r: &mut JsonReader<'de>) -> Result<Self, DecodeError> {
        keep_offset::decode_json(r).map(KeepOffset)
    }
}

impl Schema for KeepOffset {
    const KIND: WireKind = WireKind::EXT.union(WireKind::STR);

    fn json_schema(g: &mut SchemaGenerator) -> schemars::Schema {
        <DateTime<FixedOffset>>::json_schema(g)
    }
}

/// A time of day with its UTC offset: msgspec's aware `datetime.time`,
/// written `HH:MM:SS[.ffffff]` then `Z` or `+HH:MM` in both formats.
///
/// ```
/// # #[cfg(feature = "chrono")] {
/// use chrono::{FixedOffset, NaiveTime};
///
/// let t = codec::OffsetTime {
///     time: NaiveTime::from_hms_opt(1, 2, 3).unwrap(),
///     offset: FixedOffset::east_opt(7200).unwrap(),
/// };
/// assert_eq!(codec::to_json(&t).unwrap(), r#""01:02:03+02:00""#);
/// # }
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct OffsetTime {
    /// The wall-clock time.
    pub time: NaiveTime,
    /// Its offset from UTC.
    pub offset: FixedOffset,
}

fn time_text(t: &NaiveTime, offset: Option<i32>) -> Result<String, EncodeError> {
    Ok(time::format_time(
        t.num_seconds_from_midnight(),
        nanos(t.nanosecond())?,
        offset,
    ))
}

fn time_of_day(s: &str, aware: bool) -> Result<(NaiveTime, Option<i32>), String> {
    let (secs, nanos, offset) = time::parse_time(s)?;
    match (aware, offset) {
        (true, None) => {
            return Err(format!(
                "`{s}` has no UTC offset; add `Z` or one like +02:00"
            ))
        }
        (false, Some(_)) => {
            return Err(format!(
                "`{s}` has a UTC offset; a naive time has none (use codec::OffsetTime)"
            ))
        }
        _ => {}
    }
    let t = NaiveTime::from_num_seconds_from_midnight_opt(secs, nanos)
        .ok_or_else(|| format!("`{s}` is not a time of day"))?;
    Ok((t, offset))
}

/// Types written as one string in both formats.
macro_rules! text_impl {
    ($ty:ty, $format:literal, |$v:ident| $to:expr, |$s:ident| $from:expr) => {

        impl Encode for $ty {
            fn encode_msgpack(&self, w: &mut MsgpackWriter) -> Result<(), EncodeError> {
                let $v = self;
                let text: Result<String, EncodeError> = $to;
                w.write_str(&text?)
            }

            fn encode_json(&self, w: &mut JsonWriter) -> Result<(), EncodeError> {
                let $v = self;
                let text: Result<String, EncodeError> = $to;
                w.write_str(&text?)
            }
        }

        impl<'de> Decode<'de> for $ty {
            fn decode_msgpack(r: &mut MsgpackReader<'de>) -> Result<Self, DecodeError> {
                let start = r.position();
                let $s: &str = r.read_str()?;
                let parsed: Result<$ty, String> = $from;
                parsed.map_err(invalid(Format::MsgPack, start))
            }

            fn decode_json(r: &mut JsonReader<'de>) -> Result<Self, DecodeError> {
                let start = r.position();
                let text = r.read_str()?;
                let $s: &str = &text;
                let parsed: Result<$ty, String> = $from;
                parsed.map_err(invalid(Format::Json, start))
            }
        }

        impl Schema for $ty {
            const KIND: WireKind = WireKind::STR;

            fn json_schema(_: &mut SchemaGenerator) -> schemars::Schema {
                schema::typed("string", json!({ "format": $format }))
            }
        }
    };
}

text_impl!(
    NaiveDate,
    "date",
    |v| Ok(v.format("%Y-%m-%d").to_string()),
    |s| time::parse_date(s).and_then(|days| {
        i32::try_from(days + 719_163)
            .ok()
            .and_then(NaiveDate::from_num_days_from_ce_opt)
            .ok_or_else(|| format!("`{s}` is out of chrono's range"))
    })
);

text_impl!(NaiveTime, "time", |v| time_text(v, None), |s| time_of_day(
    s, false
)
.map(|(t, _)| t));

text_impl!(
    OffsetTime,
    "time",
    |v| time_text(&v.time, Some(v.offset.local_minus_utc())),
    |s| time_of_day(s, true).and_then(|(time, o)| Ok(OffsetTime {
        time,
        offset: offset(o.unwrap_or(0))?
    }))
);

text_impl!(
    NaiveDateTime,
    "date-time",
    |v| {
        let utc = v.and_utc();
        time::format_datetime(utc.timestamp(), nanos(utc.timestamp_subsec_nanos())?, None)
            .map_err(|message| EncodeError::InvalidValue { message })
    },
    |s| naive_datetime(s)
);

fn naive_datetime(s: &str) -> Result<NaiveDateTime, String> {
    let parsed = time::parse_datetime(s)?;
    if parsed.offset.is_some() {
        return Err(format!(
            "`{s}` has a UTC offset; a naive date and time has none (use DateTime<FixedOffset>)"
        ));
    }
    DateTime::from_timestamp(parsed.local_secs, parsed.nanos)
        .map(|t| t.naive_utc())
        .ok_or_else(|| out_of_range(parsed.local_secs))
}

fn time_delta((negative, secs, nanos): times::SignedDuration) -> Result<TimeDelta, String> {
    let d = i64::try_from(secs)
        .ok()
        .and_then(TimeDelta::try_seconds)
        .and_then(|d| d.checked_add(&TimeDelta::nanoseconds(i64::from(nanos))))
        .ok_or_else(|| format!("a duration of {secs}s is out of chrono's range"))?;
    Ok(if negative { -d } else { d })
}

fn time_delta_text(v: &TimeDelta) -> String {
    let abs = v.abs();
    time::format_iso_duration(
        *v < TimeDelta::zero(),
        abs.num_seconds().unsigned_abs(),
        abs.subsec_nanos().unsigned_abs(),
    )
}

/// msgspec's `timedelta`: an ISO 8601 duration, `-` first when negative.
/// Decodes also from a number of seconds.
impl Encode for TimeDelta {
    fn encode_msgpack(&self, w: &mut MsgpackWriter) -> Result<(), EncodeError> {
        w.write_str(&time_delta_text(self))
    }

    fn encode_json(&self, w: &mut JsonWriter) -> Result<(), EncodeError> {
        w.write_str(&time_delta_text(self))
    }
}

impl<'de> Decode<'de> for TimeDelta {
    fn decode_msgpack(r: &mut MsgpackReader<'de>) -> Result<Self, DecodeError> {
        let start = r.position();
        time_delta(times::read_duration_msgpack(r)?).map_err(invalid(Format::MsgPack, start))
    }

    fn decode_json(r: &mut JsonReader<'de>) -> Result<Self, DecodeError> {
        let start = r.position();
        time_delta(times::read_duration_json(r)?).map_err(invalid(Format::Json, start))
    }
}

impl Schema for TimeDelta {
    const KIND: WireKind = WireKind::STR;

    fn json_schema(_: &mut SchemaGenerator) -> schemars::Schema {
        schema::typed("string", json!({ "format": "duration" }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(b: &[u8]) -> String {
        b.iter().map(|x| format!("{x:02x}")).collect()
    }

    #[test]
    fn chrono_types_round_trip() {
        let t = DateTime::from_timestamp(1, 0).unwrap();
        assert_eq!(
            crate::convert::to_json(&t).unwrap(),
            r#""1970-01-01T00:00:01Z""#
        );
        assert_eq!(
            crate::convert::to_msgpack(&t).unwrap(),
            [0xd6, 0xff, 0, 0, 0, 1]
        );
        let d = NaiveDate::from_ymd_opt(2024, 5, 1).unwrap();
        assert_eq!(crate::convert::to_json(&d).unwrap(), r#""2024-05-01""#);
        assert_eq!(
            crate::convert::from_json::<NaiveDate>(r#""2024-05-01""#).unwrap(),
            d
        );
        let neg = TimeDelta::milliseconds(-1500);
        assert_eq!(crate::convert::to_json(&neg).unwrap(), r#""-PT1.5S""#);
        assert_eq!(
            crate::convert::from_json::<TimeDelta>(r#""-PT1.5S""#).unwrap(),
            neg
        );
        assert_eq!(crate::convert::from_json::<TimeDelta>("-1.5").unwrap(), neg);
        let ndt = d.and_hms_milli_opt(12, 30, 0, 250).unwrap();
        assert_eq!(
            crate::convert::to_json(&ndt).unwrap(),
            r#""2024-05-01T12:30:00.250000""#
        );
        assert_eq!(
            crate::convert::from_json::<NaiveDateTime>(&crate::convert::to_json(&ndt).unwrap())
                .unwrap(),
            ndt
        );
        assert!(crate::convert::from_json::<NaiveDateTime>(r#""2024-05-01T12:30:00Z""#).is_err());
    }

    #[test]
    fn aware_datetimes_are_timestamps_in_msgpack_as_msgspec_writes_them() {
        let off = DateTime::parse_from_rfc3339("2026-01-02T03:04:05+02:00").unwrap();
        assert_eq!(
            hex(&crate::convert::to_msgpack(&off).unwrap()),
            "d6ff69571985"
        );
        assert_eq!(
            crate::convert::to_json(&off).unwrap(),
            r#""2026-01-02T03:04:05+02:00""#
        );
        let back = crate::convert::from_msgpack::<DateTime<FixedOffset>>(
            &crate::convert::to_msgpack(&off).unwrap(),
        )
        .unwrap();
        assert_eq!(back, off);
        assert_eq!(
            back.offset().local_minus_utc(),
            0,
            "the extension has no offset"
        );
        // msgspec's other forms: the string in MessagePack, an offset without a colon.
        let text = crate::convert::to_msgpack(&"2026-01-02T03:04:05+0200".to_owned()).unwrap();
        let read = crate::convert::from_msgpack::<DateTime<FixedOffset>>(&text).unwrap();
        assert_eq!((read, read.offset().local_minus_utc()), (off, 7200));
        let zero = DateTime::parse_from_rfc3339("2026-01-02T03:04:05.5-00:00").unwrap();
        assert_eq!(
            crate::convert::to_json(&zero).unwrap(),
            r#""2026-01-02T03:04:05.500000Z""#
        );
    }

    #[test]
    fn keep_offset_writes_the_string_in_msgpack() {
        #[derive(codec_derive::Codec, Debug, PartialEq)]
        #[codec(crate = "crate")]
        struct Meeting {
            #[codec(with = "crate::keep_offset")]
            at: DateTime<FixedOffset>,
        }
        let at = DateTime::parse_from_rfc3339("2026-01-02T03:04:05-05:30").unwrap();
        let bytes = crate::convert::to_msgpack(&Meeting { at }).unwrap();
        assert!(hex(&bytes).contains(&hex(b"2026-01-02T03:04:05-05:30")));
        let back: Meeting = crate::convert::from_msgpack(&bytes).unwrap();
        assert_eq!(back.at.offset().local_minus_utc(), -19_800);
    }

    #[test]
    fn times_naive_and_aware() {
        let t = NaiveTime::from_hms_micro_opt(1, 2, 3, 400_000).unwrap();
        assert_eq!(crate::convert::to_json(&t).unwrap(), r#""01:02:03.400000""#);
        let aware = OffsetTime {
            time: NaiveTime::from_hms_micro_opt(1, 2, 3, 5).unwrap(),
            offset: FixedOffset::east_opt(7200).unwrap(),
        };
        assert_eq!(
            crate::convert::to_json(&aware).unwrap(),
            r#""01:02:03.000005+02:00""#
        );
        assert_eq!(
            crate::convert::from_json::<OffsetTime>(&crate::convert::to_json(&aware).unwrap())
                .unwrap(),
            aware
        );
        assert_eq!(
            crate::convert::from_json::<OffsetTime>(r#""01:02:03Z""#)
                .unwrap()
                .offset,
            FixedOffset::east_opt(0).unwrap()
        );
        assert!(crate::convert::from_json::<OffsetTime>(r#""01:02:03""#).is_err());
        assert!(crate::convert::from_json::<NaiveTime>(r#""01:02:03Z""#).is_err());
    }

    #[test]
    fn a_leap_second_is_an_encode_error_in_both_formats() {
        fn refused<T: crate::codec::Codec + std::fmt::Debug>(value: &T) {
            let (json, msgpack) = (
                crate::convert::to_json(value),
                crate::convert::to_msgpack(value),
            );
            for error in [json.as_ref().err(), msgpack.as_ref().err()] {
                assert!(
                    matches!(error, Some(EncodeError::InvalidValue { message })
                        if message.contains("leap second")),
                    "{value:?}: JSON {json:?}, MessagePack {msgpack:?}"
                );
            }
        }
        // chrono's leap second: nanoseconds past a billion.
        let leap = NaiveTime::from_hms_nano_opt(23, 59, 59, 1_500_000_000).unwrap();
        let at = NaiveDate::from_ymd_opt(2016, 12, 31)
            .unwrap()
            .and_time(leap);
        let offset = FixedOffset::east_opt(3600).unwrap();
        refused(&leap);
        refused(&OffsetTime { time: leap, offset });
        refused(&at);
        refused(&at.and_utc());
        refused(&at.and_utc().with_timezone(&offset));
    }
}
