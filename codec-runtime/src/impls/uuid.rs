//! `uuid::Uuid` (feature `uuid`): its 36-character hyphenated string, as
//! msgspec writes it. Decoding takes also the forms msgspec accepts: 32 hex
//! digits without hyphens, either case, and 16 bytes of bin in MessagePack.

use schemars::SchemaGenerator;
use serde_json::json;

use crate::codec::Schema;
use crate::decode::Decode;
use crate::encode::Encode;
use crate::error::{DecodeError, DecodeErrorKind, EncodeError};
use crate::json::{JsonReader, JsonWriter};
use crate::kind::WireKind;
use crate::msgpack::{MsgpackReader, MsgpackWriter};
use crate::schema;

fn parse(s: &str) -> Result<uuid::Uuid, String> {
    if s.len() != 36 && s.len() != 32 {
        return Err(format!(
            "`{s}` is not a UUID like 67e55044-10b1-426f-9247-bb680e5fe0c8"
        ));
    }
    uuid::Uuid::parse_str(s).map_err(|e| format!("`{s}` is not a UUID: {e}"))
}

impl Encode for uuid::Uuid {
    fn encode_msgpack(&self, w: &mut MsgpackWriter) -> Result<(), EncodeError> {
        w.write_str(
            self.hyphenated()
                .encode_lower(&mut uuid::Uuid::encode_buffer()),
        )
    }

    fn encode_json(&self, w: &mut JsonWriter) -> Result<(), EncodeError> {
        w.write_str(
            self.hyphenated()
                .encode_lower(&mut uuid::Uuid::encode_buffer()),
        )
    }

    fn __encode_json_key(&self, w: &mut JsonWriter) -> Result<(), EncodeError> {
        self.encode_json(w)
    }
}

impl<'de> Decode<'de> for uuid::Uuid {
    fn decode_msgpack(r: &mut MsgpackReader<'de>) -> Result<Self, DecodeError> {
        if r.peek_kind()?.is(WireKind::BYTES) {
            let start = r.position();
            let bytes = r.read_bin()?;
            return uuid::Uuid::from_slice(bytes).map_err(|_| {
                DecodeError::invalid_value(format!(
                    "a UUID in bin has 16 bytes, found {}",
                    bytes.len()
                ))
                .at(crate::error::Format::MsgPack, start)
            });
        }
        let s = r.read_str()?;
        parse(s).map_err(|m| r.error(DecodeErrorKind::InvalidValue { message: m }))
    }

    fn decode_json(r: &mut JsonReader<'de>) -> Result<Self, DecodeError> {
        let s = r.read_str()?;
        parse(&s).map_err(|m| r.error(DecodeErrorKind::InvalidValue { message: m }))
    }

    fn __decode_json_key(
        r: &mut JsonReader<'de>,
        key: std::borrow::Cow<'de, str>,
    ) -> Result<Self, DecodeError> {
        let key: &str = &key;
        parse(key).map_err(|m| r.error(DecodeErrorKind::InvalidValue { message: m }))
    }
}

impl Schema for uuid::Uuid {
    const KIND: WireKind = WireKind::STR;

    fn json_schema(_: &mut SchemaGenerator) -> schemars::Schema {
        schema::typed("string", json!({ "format": "uuid" }))
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn uuid_is_its_string() {
        let id = uuid::Uuid::from_u128(0x67e5504410b1426f9247bb680e5fe0c8);
        assert_eq!(
            crate::convert::to_json(&id).unwrap(),
            r#""67e55044-10b1-426f-9247-bb680e5fe0c8""#
        );
        assert_eq!(
            crate::convert::from_msgpack::<uuid::Uuid>(&crate::convert::to_msgpack(&id).unwrap())
                .unwrap(),
            id
        );
        assert_eq!(
            crate::convert::from_json::<uuid::Uuid>(r#""67E5504410B1426F9247BB680E5FE0C8""#)
                .unwrap(),
            id
        );
        let bin =
            crate::convert::to_msgpack(&crate::impls::bytes::Bytes::from(id.as_bytes().to_vec()))
                .unwrap();
        assert_eq!(
            crate::convert::from_msgpack::<uuid::Uuid>(&bin).unwrap(),
            id
        );
        let short =
            crate::convert::to_msgpack(&crate::impls::bytes::Bytes::from(vec![1, 2])).unwrap();
        assert!(crate::convert::from_msgpack::<uuid::Uuid>(&short).is_err());
        for bad in [
            "{67e55044-10b1-426f-9247-bb680e5fe0c8}",
            "urn:uuid:67e55044-10b1-426f-9247-bb680e5fe0c8",
            "67e55044",
        ] {
            assert!(
                crate::convert::from_json::<uuid::Uuid>(&format!("{bad:?}")).is_err(),
                "{bad}"
            );
        }
    }
}
