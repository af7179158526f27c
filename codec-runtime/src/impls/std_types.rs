//! Standard library types with a string or timestamp encoding: `Duration`,
//! `SystemTime`, `PathBuf`, IP and socket addresses, and the `NonZero` integers.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::num::{
    NonZeroI128, NonZeroI16, NonZeroI32, NonZeroI64, NonZeroI8, NonZeroIsize, NonZeroU128,
    NonZeroU16, NonZeroU32, NonZeroU64, NonZeroU8, NonZeroUsize,
};
use std::path::PathBuf;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use schemars::SchemaGenerator;
use serde_json::json;

use super::times;
use crate::codec::Schema;
use crate::decode::Decode;
use crate::encode::Encode;
use crate::error::{DecodeError, EncodeError};
use crate::json::{JsonReader, JsonWriter};
use crate::kind::WireKind;
use crate::msgpack::{MsgpackReader, MsgpackWriter};
use crate::schema;
use crate::time;

/// Implements `Codec` for a type written as a string in both formats, from a
/// `to_text` and a `from_text` function; such types can also be JSON map keys.
macro_rules! string_impl {
    ($ty:ty, $schema:expr, $to_text:expr, $from_text:expr) => {
        impl Encode for $ty {
            fn encode_msgpack(&self, w: &mut MsgpackWriter) -> Result<(), EncodeError> {
                let text: Result<_, EncodeError> = $to_text(self);
                w.write_str(text?.as_ref())
            }

            fn encode_json(&self, w: &mut JsonWriter) -> Result<(), EncodeError> {
                let text: Result<_, EncodeError> = $to_text(self);
                w.write_str(text?.as_ref())
            }

            fn __encode_json_key(&self, w: &mut JsonWriter) -> Result<(), EncodeError> {
                self.encode_json(w)
            }
        }

        impl<'de> Decode<'de> for $ty {
            fn decode_msgpack(r: &mut MsgpackReader<'de>) -> Result<Self, DecodeError> {
                let start = r.position();
                let s = r.read_str()?;
                $from_text(s).map_err(|e: String| {
                    DecodeError::invalid_value(e).at(crate::error::Format::MsgPack, start)
                })
            }

            fn decode_json(r: &mut JsonReader<'de>) -> Result<Self, DecodeError> {
                let start = r.position();
                let s = r.read_str()?;
                $from_text(&s).map_err(|e: String| {
                    DecodeError::invalid_value(e).at(crate::error::Format::Json, start)
                })
            }

            fn __decode_json_key(
                r: &mut JsonReader<'de>,
                key: std::borrow::Cow<'de, str>,
            ) -> Result<Self, DecodeError> {
                let key: &str = &key;
                $from_text(key).map_err(|e: String| {
                    r.error(crate::error::DecodeErrorKind::InvalidValue { message: e })
                })
            }
        }

        impl Schema for $ty {
            const KIND: WireKind = WireKind::STR;

            fn json_schema(_: &mut SchemaGenerator) -> schemars::Schema {
                $schema
            }
        }
    };
}

string_impl!(
    PathBuf,
    schema::typed("string", json!({})),
    |p: &PathBuf| p
        .to_str()
        .map(str::to_owned)
        .ok_or_else(|| EncodeError::InvalidValue {
            message: format!(
                "path {} is not UTF-8; only UTF-8 paths can be encoded",
                p.display()
            ),
        }),
    |s: &str| Ok::<_, String>(PathBuf::from(s))
);

macro_rules! parsed_string_impl {
    ($($ty:ty, $format:expr, $what:literal;)*) => {$(
        string_impl!(
            $ty,
            match $format {
                Some(f) => schema::typed("string", json!({ "format": f })),
                None => schema::typed("string", json!({})),
            },
            |v: &$ty| Ok(v.to_string()),
            |s: &str| s.parse::<$ty>().map_err(|_| format!("`{s}` is not {}", $what))
        );
    )*};
}

parsed_string_impl! {
    IpAddr, None::<&str>, "an IP address";
    Ipv4Addr, Some("ipv4"), "an IPv4 address";
    Ipv6Addr, Some("ipv6"), "an IPv6 address";
    SocketAddr, None::<&str>, "a socket address like 127.0.0.1:8080";
}

/// Seconds and nanoseconds since the epoch; negative seconds before it.
fn since_epoch(t: &SystemTime) -> Result<(i64, u32), EncodeError> {
    let out_of_range = || EncodeError::InvalidValue {
        message: "time is too far from 1970 to encode".into(),
    };
    match t.duration_since(UNIX_EPOCH) {
        Ok(d) => Ok((
            i64::try_from(d.as_secs()).map_err(|_| out_of_range())?,
            d.subsec_nanos(),
        )),
        Err(e) => {
            let d = e.duration();
            let secs = i64::try_from(d.as_secs()).map_err(|_| out_of_range())?;
            Ok(if d.subsec_nanos() == 0 {
                (-secs, 0)
            } else {
                (-secs - 1, 1_000_000_000 - d.subsec_nanos())
            })
        }
    }
}

fn from_epoch(secs: i64, nanos: u32) -> Option<SystemTime> {
    let t = if secs >= 0 {
        UNIX_EPOCH.checked_add(Duration::from_secs(secs as u64))?
    } else {
        UNIX_EPOCH.checked_sub(Duration::from_secs(secs.unsigned_abs()))?
    };
    t.checked_add(Duration::from_nanos(nanos as u64))
}

/// msgspec's `timedelta`: an ISO 8601 duration (`P1DT30S`, `PT1.5S`, `P0D`)
/// in both formats. Decodes also from a number of seconds; a negative
/// duration is an error.
impl Encode for Duration {
    fn encode_msgpack(&self, w: &mut MsgpackWriter) -> Result<(), EncodeError> {
        w.write_str(&time::format_iso_duration(
            false,
            self.as_secs(),
            self.subsec_nanos(),
        ))
    }

    fn encode_json(&self, w: &mut JsonWriter) -> Result<(), EncodeError> {
        w.write_str(&time::format_iso_duration(
            false,
            self.as_secs(),
            self.subsec_nanos(),
        ))
    }

    fn __encode_json_key(&self, w: &mut JsonWriter) -> Result<(), EncodeError> {
        self.encode_json(w)
    }
}

impl<'de> Decode<'de> for Duration {
    fn decode_msgpack(r: &mut MsgpackReader<'de>) -> Result<Self, DecodeError> {
        let start = r.position();
        duration(times::read_duration_msgpack(r)?)
            .map_err(|m| DecodeError::invalid_value(m).at(crate::error::Format::MsgPack, start))
    }

    fn decode_json(r: &mut JsonReader<'de>) -> Result<Self, DecodeError> {
        let start = r.position();
        duration(times::read_duration_json(r)?)
            .map_err(|m| DecodeError::invalid_value(m).at(crate::error::Format::Json, start))
    }

    fn __decode_json_key(
        r: &mut JsonReader<'de>,
        key: std::borrow::Cow<'de, str>,
    ) -> Result<Self, DecodeError> {
        let key: &str = &key;
        time::parse_iso_duration(key)
            .and_then(duration)
            .map_err(|message| r.error(crate::error::DecodeErrorKind::InvalidValue { message }))
    }
}

impl Schema for Duration {
    const KIND: WireKind = WireKind::STR;

    fn json_schema(_: &mut SchemaGenerator) -> schemars::Schema {
        schema::typed("string", json!({ "format": "duration" }))
    }
}

fn duration((negative, secs, nanos): times::SignedDuration) -> Result<Duration, String> {
    if negative && (secs != 0 || nanos != 0) {
        return Err(
            "a negative duration cannot be a std::time::Duration; use chrono's TimeDelta".into(),
        );
    }
    Ok(Duration::new(secs, 0) + Duration::from_nanos(u64::from(nanos)))
}

/// MessagePack: the timestamp extension (-1). JSON: RFC 3339 in UTC. Decodes
/// also from an RFC 3339 string with any offset in MessagePack.
impl Encode for SystemTime {
    fn encode_msgpack(&self, w: &mut MsgpackWriter) -> Result<(), EncodeError> {
        let (secs, nanos) = since_epoch(self)?;
        w.write_timestamp(secs, nanos)
    }

    fn encode_json(&self, w: &mut JsonWriter) -> Result<(), EncodeError> {
        let (secs, nanos) = since_epoch(self)?;
        let text = time::format_rfc3339(secs, nanos)
            .map_err(|message| EncodeError::InvalidValue { message })?;
        w.write_str(&text)
    }
}

impl<'de> Decode<'de> for SystemTime {
    fn decode_msgpack(r: &mut MsgpackReader<'de>) -> Result<Self, DecodeError> {
        let start = r.position();
        let times::Instant { secs, nanos, .. } = times::read_instant_msgpack(r)?;
        from_epoch(secs, nanos).ok_or_else(|| {
            DecodeError::invalid_value(format!("timestamp {secs}s is out of this platform's range"))
                .at(crate::error::Format::MsgPack, start)
        })
    }

    fn decode_json(r: &mut JsonReader<'de>) -> Result<Self, DecodeError> {
        let start = r.position();
        let times::Instant { secs, nanos, .. } = times::read_instant_json(r)?;
        from_epoch(secs, nanos).ok_or_else(|| {
            DecodeError::invalid_value(format!("timestamp {secs}s is out of this platform's range"))
                .at(crate::error::Format::Json, start)
        })
    }
}

impl Schema for SystemTime {
    const KIND: WireKind = WireKind::EXT.union(WireKind::STR);

    fn json_schema(_: &mut SchemaGenerator) -> schemars::Schema {
        schema::typed("string", json!({ "format": "date-time" }))
    }
}

macro_rules! nonzero_impl {
    ($($nz:ty => $int:ty;)*) => {$(

        impl Encode for $nz {
            fn encode_msgpack(&self, w: &mut MsgpackWriter) -> Result<(), EncodeError> {
                self.get().encode_msgpack(w)
            }

            fn encode_json(&self, w: &mut JsonWriter) -> Result<(), EncodeError> {
                self.get().encode_json(w)
            }

            fn __encode_json_key(&self, w: &mut JsonWriter) -> Result<(), EncodeError> {
                self.get().__encode_json_key(w)
            }
        }

        impl<'de> Decode<'de> for $nz {
            fn decode_msgpack(r: &mut MsgpackReader<'de>) -> Result<Self, DecodeError> {
                let start = r.position();
                let v = <$int>::decode_msgpack(r)?;
                <$nz>::new(v).ok_or_else(|| nonzero().at(crate::error::Format::MsgPack, start))
            }

            fn decode_json(r: &mut JsonReader<'de>) -> Result<Self, DecodeError> {
                let start = r.position();
                let v = <$int>::decode_json(r)?;
                <$nz>::new(v).ok_or_else(|| nonzero().at(crate::error::Format::Json, start))
            }

            fn __decode_json_key(
                r: &mut JsonReader<'de>,
                key: std::borrow::Cow<'de, str>,
            ) -> Result<Self, DecodeError> {
                let v = <$int>::__decode_json_key(r, key)?;
                <$nz>::new(v).ok_or_else(|| r.locate(nonzero()))
            }
        }

        impl Schema for $nz {
            const KIND: WireKind = WireKind::INT;

            fn json_schema(g: &mut SchemaGenerator) -> schemars::Schema {
                let mut s = <$int>::json_schema(g).to_value();
                s["not"] = json!({ "const": 0 });
                schemars::Schema::try_from(s).unwrap_or_else(|_| schemars::Schema::from(true))
            }
        }
    )*};
}

fn nonzero() -> DecodeError {
    DecodeError::invalid_value("expected a non-zero integer, found 0")
}

nonzero_impl! {
    NonZeroU8 => u8; NonZeroU16 => u16; NonZeroU32 => u32; NonZeroU64 => u64; NonZeroU128 => u128; NonZeroUsize => usize;
    NonZeroI8 => i8; NonZeroI16 => i16; NonZeroI32 => i32; NonZeroI64 => i64; NonZeroI128 => i128; NonZeroIsize => isize;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(b: &[u8]) -> String {
        b.iter().map(|x| format!("{x:02x}")).collect()
    }

    #[test]
    fn system_time_is_a_timestamp_and_rfc3339() {
        let t = UNIX_EPOCH + Duration::from_secs(1);
        assert_eq!(
            hex(&crate::convert::to_msgpack(&t).unwrap()),
            "d6ff00000001"
        );
        assert_eq!(
            crate::convert::to_json(&t).unwrap(),
            r#""1970-01-01T00:00:01Z""#
        );
        for t in [
            UNIX_EPOCH,
            UNIX_EPOCH + Duration::new(1_700_000_000, 123_456_789),
            UNIX_EPOCH - Duration::new(86_400, 500),
            UNIX_EPOCH + Duration::from_secs(1 << 35),
        ] {
            assert_eq!(
                crate::convert::from_msgpack::<SystemTime>(
                    &crate::convert::to_msgpack(&t).unwrap()
                )
                .unwrap(),
                t
            );
            assert_eq!(
                crate::convert::from_json::<SystemTime>(&crate::convert::to_json(&t).unwrap())
                    .unwrap(),
                t
            );
        }
    }

    #[test]
    fn durations_are_timedeltas_and_read_seconds() {
        let d = |text: &str| crate::convert::from_json::<Duration>(text);
        assert_eq!(
            crate::convert::to_json(&Duration::from_secs(86_430)).unwrap(),
            r#""P1DT30S""#
        );
        assert_eq!(
            crate::convert::to_json(&Duration::ZERO).unwrap(),
            r#""P0D""#
        );
        assert_eq!(d("1.5").unwrap(), Duration::from_millis(1500));
        assert_eq!(d("86430").unwrap(), Duration::from_secs(86_430));
        assert_eq!(d(r#""PT1.5H""#).unwrap(), Duration::from_secs(5400));
        assert_eq!(
            crate::convert::from_msgpack::<Duration>(
                &crate::convert::to_msgpack(&2.25f64).unwrap()
            )
            .unwrap(),
            Duration::from_millis(2250)
        );
        assert!(d("-1").is_err());
        assert!(d("1e300").is_err());
        assert!(d("true").is_err());
    }

    #[test]
    fn system_time_reads_an_rfc3339_string_in_msgpack() {
        let text = crate::convert::to_msgpack(&"1970-01-01T02:00:01+02:00".to_owned()).unwrap();
        assert_eq!(
            crate::convert::from_msgpack::<SystemTime>(&text).unwrap(),
            UNIX_EPOCH + Duration::from_secs(1)
        );
        let naive = crate::convert::to_msgpack(&"1970-01-01T00:00:01".to_owned()).unwrap();
        let err = crate::convert::from_msgpack::<SystemTime>(&naive)
            .unwrap_err()
            .to_string();
        assert!(err.contains("no UTC offset"), "{err}");
    }

    #[test]
    fn durations_paths_addresses() {
        assert_eq!(
            crate::convert::to_json(&Duration::from_millis(1500)).unwrap(),
            r#""PT1.5S""#
        );
        assert_eq!(
            crate::convert::from_msgpack::<Duration>(
                &crate::convert::to_msgpack(&Duration::new(5, 7)).unwrap()
            )
            .unwrap(),
            Duration::new(5, 7)
        );
        assert!(crate::convert::from_json::<Duration>(r#""-PT1S""#).is_err());
        let ip: IpAddr = "::1".parse().unwrap();
        assert_eq!(crate::convert::to_json(&ip).unwrap(), r#""::1""#);
        assert_eq!(
            crate::convert::from_json::<SocketAddr>(r#""127.0.0.1:80""#).unwrap(),
            "127.0.0.1:80".parse().unwrap()
        );
        assert!(crate::convert::from_json::<Ipv4Addr>(r#""300.1.1.1""#)
            .unwrap_err()
            .to_string()
            .contains("not an IPv4 address"));
        assert_eq!(
            crate::convert::from_json::<PathBuf>(r#""/tmp/x""#).unwrap(),
            PathBuf::from("/tmp/x")
        );
    }

    #[test]
    fn nonzero_refuses_zero() {
        assert_eq!(
            crate::convert::from_json::<NonZeroU32>("5").unwrap().get(),
            5
        );
        let err = crate::convert::from_msgpack::<NonZeroU32>(&[0]).unwrap_err();
        assert!(err.to_string().contains("non-zero"), "{err}");
    }
}
