//! `rust_decimal::Decimal` (feature `decimal`): msgspec's `decimal.Decimal`,
//! a string in both formats written as Python's `str(Decimal)` writes it
//! (`"1.50"` keeps its scale; below 1e-6 in scientific form, `"1.5E-7"`).
//! Decoding takes also the forms msgspec accepts: an integer or a float
//! (read through its shortest text, `1.1` is `1.1`), and strings in
//! scientific form. NaN and infinities have no `Decimal` and are an error.

use rust_decimal::Decimal;
use schemars::SchemaGenerator;
use serde_json::json;

use crate::codec::Schema;
use crate::decode::Decode;
use crate::encode::Encode;
use crate::error::{DecodeError, EncodeError, Format};
use crate::json::{JsonReader, JsonWriter};
use crate::kind::WireKind;
use crate::msgpack::{Integer, MsgpackReader, MsgpackWriter};
use crate::schema;

/// `str(Decimal)` in Python: plain notation unless the adjusted exponent is
/// below -6. A `Decimal` never has a positive exponent.
fn text(d: &Decimal) -> String {
    let plain = d.to_string();
    let digits = d.mantissa().unsigned_abs().to_string();
    let adjusted = digits.len() as i64 - 1 - i64::from(d.scale());
    if adjusted >= -6 {
        return plain;
    }
    let sign = if d.is_sign_negative() { "-" } else { "" };
    let (first, rest) = digits.split_at(1);
    let point = if rest.is_empty() { "" } else { "." };
    format!("{sign}{first}{point}{rest}E{adjusted}")
}

fn parse(s: &str) -> Result<Decimal, String> {
    let parsed = if s.contains(['e', 'E']) {
        Decimal::from_scientific(s)
    } else {
        Decimal::from_str_exact(s)
    };
    parsed.map_err(|e| {
        let lower = s.trim_start_matches(['+', '-']).to_ascii_lowercase();
        if matches!(lower.as_str(), "nan" | "snan" | "inf" | "infinity") {
            format!("`{s}` has no rust_decimal::Decimal: only finite decimals can be decoded")
        } else {
            format!("`{s}` is not a decimal that rust_decimal can hold: {e}")
        }
    })
}

fn from_integer(v: Integer) -> Decimal {
    match v {
        Integer::Pos(v) => Decimal::from(v),
        Integer::Neg(v) => Decimal::from(v),
    }
}

fn from_f64(v: f64) -> Result<Decimal, String> {
    if !v.is_finite() {
        return Err(format!("{v} has no rust_decimal::Decimal"));
    }
    parse(ryu::Buffer::new().format_finite(v))
}

impl Encode for Decimal {
    fn encode_msgpack(&self, w: &mut MsgpackWriter) -> Result<(), EncodeError> {
        w.write_str(&text(self))
    }

    fn encode_json(&self, w: &mut JsonWriter) -> Result<(), EncodeError> {
        w.write_str(&text(self))
    }

    fn __encode_json_key(&self, w: &mut JsonWriter) -> Result<(), EncodeError> {
        self.encode_json(w)
    }
}

impl<'de> Decode<'de> for Decimal {
    fn decode_msgpack(r: &mut MsgpackReader<'de>) -> Result<Self, DecodeError> {
        let start = r.position();
        let kind = r.peek_kind()?;
        let parsed = if kind.is(WireKind::INT) {
            Ok(from_integer(r.read_integer()?))
        } else if kind.is(WireKind::FLOAT) {
            from_f64(r.read_f64()?)
        } else {
            parse(r.read_str()?)
        };
        parsed.map_err(|m| DecodeError::invalid_value(m).at(Format::MsgPack, start))
    }

    fn decode_json(r: &mut JsonReader<'de>) -> Result<Self, DecodeError> {
        let start = r.position();
        let parsed = if r
            .peek_kind()?
            .overlaps(WireKind::INT.union(WireKind::FLOAT))
        {
            // The number's own digits: exact, with no detour through f64.
            parse(r.read_number_text()?)
        } else {
            parse(&r.read_str()?)
        };
        parsed.map_err(|m| DecodeError::invalid_value(m).at(Format::Json, start))
    }

    fn __decode_json_key(
        r: &mut JsonReader<'de>,
        key: std::borrow::Cow<'de, str>,
    ) -> Result<Self, DecodeError> {
        let key: &str = &key;
        parse(key)
            .map_err(|message| r.error(crate::error::DecodeErrorKind::InvalidValue { message }))
    }
}

impl Schema for Decimal {
    const KIND: WireKind = WireKind::STR;

    fn json_schema(_: &mut SchemaGenerator) -> schemars::Schema {
        schema::typed("string", json!({ "format": "decimal" }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::str::FromStr;

    fn d(s: &str) -> Decimal {
        Decimal::from_str(s).unwrap()
    }

    #[test]
    fn written_as_python_writes_str_of_a_decimal() {
        for (value, text) in [
            ("1.50", "1.50"),
            ("0", "0"),
            ("-0.001", "-0.001"),
            ("0.000001", "0.000001"),
            ("0.0000001", "1E-7"),
            ("-0.00000015", "-1.5E-7"),
            ("0.00000000", "0E-8"),
            ("123456789012345678.9", "123456789012345678.9"),
        ] {
            assert_eq!(
                crate::convert::to_json(&d(value)).unwrap(),
                format!("{text:?}"),
                "{value}"
            );
        }
    }

    #[test]
    fn reads_every_form_msgspec_accepts() {
        let json = |s: &str| crate::convert::from_json::<Decimal>(s);
        assert_eq!(json(r#""1.50""#).unwrap().to_string(), "1.50");
        assert_eq!(json(r#""1E-7""#).unwrap(), d("0.0000001"));
        assert_eq!(json(r#""1e3""#).unwrap(), d("1000"));
        assert_eq!(json("3").unwrap(), d("3"));
        assert_eq!(json("1.10").unwrap().to_string(), "1.10");
        assert_eq!(json("-2.5e-3").unwrap(), d("-0.0025"));
        let mp = |v: &dyn Fn(&mut MsgpackWriter)| {
            let mut w = MsgpackWriter::default();
            v(&mut w);
            crate::convert::from_msgpack::<Decimal>(w.as_slice())
        };
        assert_eq!(mp(&|w| w.write_f64(1.1)).unwrap(), d("1.1"));
        assert_eq!(mp(&|w| w.write_i64(-7)).unwrap(), d("-7"));
        assert_eq!(
            mp(&|w| w.write_u64(u64::MAX)).unwrap(),
            Decimal::from(u64::MAX)
        );
        let nan = json(r#""NaN""#).unwrap_err().to_string();
        assert!(nan.contains("only finite decimals"), "{nan}");
        assert!(mp(&|w| w.write_f64(f64::INFINITY)).is_err());
        assert!(json(r#""1.2.3""#).is_err());
        assert!(json(r#""1e400""#).is_err());
        assert!(json("true").is_err());
    }
}
