//! chrono's types (feature `chrono`). `DateTime<Utc>` is encoded like
//! `SystemTime` (timestamp extension / RFC 3339 in UTC); `DateTime<FixedOffset>`
//! as RFC 3339 keeping its offset, in both formats; `NaiveDate` as
//! `YYYY-MM-DD`, `NaiveTime` as `HH:MM:SS[.f]`, `NaiveDateTime` as RFC 3339
//! without an offset; `TimeDelta` as an ISO 8601 duration (negative: `-PT1.5S`).

use chrono::{
    DateTime, FixedOffset, NaiveDate, NaiveDateTime, NaiveTime, SecondsFormat, TimeDelta, Utc,
};
use schemars::{Schema, SchemaGenerator};
use serde_json::json;

use crate::codec::{Codec, WireKind};
use crate::error::{DecodeError, DecodeErrorKind, EncodeError};
use crate::json::{JsonReader, JsonWriter};
use crate::msgpack::{MsgpackReader, MsgpackWriter};
use crate::{schema, time};

impl Codec for DateTime<Utc> {
    const KIND: WireKind = WireKind::EXT.union(WireKind::STR);

    fn encode_msgpack(&self, w: &mut MsgpackWriter) -> Result<(), EncodeError> {
        w.write_timestamp(self.timestamp(), self.timestamp_subsec_nanos())
    }

    fn decode_msgpack(r: &mut MsgpackReader<'_>) -> Result<Self, DecodeError> {
        let (secs, nanos) = r.read_timestamp()?;
        DateTime::from_timestamp(secs, nanos).ok_or_else(|| {
            r.error(DecodeErrorKind::InvalidValue {
                message: format!("timestamp {secs}s is out of chrono's range"),
            })
        })
    }

    fn encode_json(&self, w: &mut JsonWriter) -> Result<(), EncodeError> {
        let text = time::format_rfc3339(self.timestamp(), self.timestamp_subsec_nanos())
            .map_err(|message| EncodeError::InvalidValue { message })?;
        w.write_str(&text);
        Ok(())
    }

    fn decode_json(r: &mut JsonReader<'_>) -> Result<Self, DecodeError> {
        let s = r.read_str()?;
        let bad = |message: String| r.error(DecodeErrorKind::InvalidValue { message });
        let (secs, nanos) = time::parse_rfc3339(&s).map_err(bad)?;
        DateTime::from_timestamp(secs, nanos)
            .ok_or_else(|| bad(format!("`{s}` is out of chrono's range")))
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        schema::typed("string", json!({ "format": "date-time" }))
    }
}

/// Types written as one string in both formats, parsed back with `parse`.
macro_rules! text_impl {
    ($ty:ty, $format:literal, |$v:ident| $to:expr, |$s:ident| $from:expr) => {
        impl Codec for $ty {
            const KIND: WireKind = WireKind::STR;

            fn encode_msgpack(&self, w: &mut MsgpackWriter) -> Result<(), EncodeError> {
                let $v = self;
                w.write_str(&$to)
            }

            fn decode_msgpack(r: &mut MsgpackReader<'_>) -> Result<Self, DecodeError> {
                let $s: &str = r.read_str()?;
                let parsed: Result<$ty, String> = $from;
                parsed.map_err(|message| r.error(DecodeErrorKind::InvalidValue { message }))
            }

            fn encode_json(&self, w: &mut JsonWriter) -> Result<(), EncodeError> {
                let $v = self;
                w.write_str(&$to);
                Ok(())
            }

            fn decode_json(r: &mut JsonReader<'_>) -> Result<Self, DecodeError> {
                let text = r.read_str()?;
                let $s: &str = &text;
                let parsed: Result<$ty, String> = $from;
                parsed.map_err(|message| r.error(DecodeErrorKind::InvalidValue { message }))
            }

            fn json_schema(_: &mut SchemaGenerator) -> Schema {
                schema::typed("string", json!({ "format": $format }))
            }
        }
    };
}

text_impl!(
    DateTime<FixedOffset>,
    "date-time",
    |v| v.to_rfc3339_opts(SecondsFormat::AutoSi, true),
    |s| DateTime::parse_from_rfc3339(s)
        .map_err(|e| format!("`{s}` is not an RFC 3339 timestamp: {e}"))
);

text_impl!(
    NaiveDate,
    "date",
    |v| v.format("%Y-%m-%d").to_string(),
    |s| NaiveDate::parse_from_str(s, "%Y-%m-%d")
        .map_err(|e| format!("`{s}` is not a date like 2024-05-01: {e}"))
);

text_impl!(
    NaiveTime,
    "time",
    |v| v.format("%H:%M:%S%.f").to_string(),
    |s| NaiveTime::parse_from_str(s, "%H:%M:%S%.f")
        .map_err(|e| format!("`{s}` is not a time like 12:30:00: {e}"))
);

text_impl!(
    NaiveDateTime,
    "date-time",
    |v| v.format("%Y-%m-%dT%H:%M:%S%.f").to_string(),
    |s| NaiveDateTime::parse_from_str(s, "%Y-%m-%dT%H:%M:%S%.f")
        .map_err(|e| format!("`{s}` is not a date and time like 2024-05-01T12:30:00: {e}"))
);

text_impl!(
    TimeDelta,
    "duration",
    |v| {
        let abs = v.abs();
        let text = time::format_iso_duration(abs.num_seconds() as u64, abs.subsec_nanos() as u32);
        if *v < TimeDelta::zero() {
            format!("-{text}")
        } else {
            text
        }
    },
    |s| {
        let (negative, body) = match s.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, s),
        };
        time::parse_iso_duration(body).and_then(|(secs, nanos)| {
            let d = i64::try_from(secs)
                .ok()
                .and_then(TimeDelta::try_seconds)
                .and_then(|d| d.checked_add(&TimeDelta::nanoseconds(nanos as i64)))
                .ok_or_else(|| format!("duration `{s}` is out of range"))?;
            Ok(if negative { -d } else { d })
        })
    }
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chrono_types_round_trip() {
        let t = DateTime::from_timestamp(1, 0).unwrap();
        assert_eq!(crate::to_json(&t).unwrap(), r#""1970-01-01T00:00:01Z""#);
        assert_eq!(crate::to_msgpack(&t).unwrap(), [0xd6, 0xff, 0, 0, 0, 1]);
        let d = NaiveDate::from_ymd_opt(2024, 5, 1).unwrap();
        assert_eq!(crate::to_json(&d).unwrap(), r#""2024-05-01""#);
        assert_eq!(crate::from_json::<NaiveDate>(r#""2024-05-01""#).unwrap(), d);
        let off = DateTime::parse_from_rfc3339("2024-05-01T12:00:00+02:00").unwrap();
        assert_eq!(
            crate::from_msgpack::<DateTime<FixedOffset>>(&crate::to_msgpack(&off).unwrap())
                .unwrap(),
            off
        );
        let neg = TimeDelta::milliseconds(-1500);
        assert_eq!(crate::to_json(&neg).unwrap(), r#""-PT1.5S""#);
        assert_eq!(crate::from_json::<TimeDelta>(r#""-PT1.5S""#).unwrap(), neg);
        let ndt = d.and_hms_milli_opt(12, 30, 0, 250).unwrap();
        assert_eq!(
            crate::from_json::<NaiveDateTime>(&crate::to_json(&ndt).unwrap()).unwrap(),
            ndt
        );
    }
}
