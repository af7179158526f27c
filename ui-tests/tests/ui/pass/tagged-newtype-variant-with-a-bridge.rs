use codec::{DecodeError, EncodeError, JsonReader, JsonWriter, MsgpackReader, MsgpackWriter};

/// A payload type without a codec of its own: the variant's `with` module
/// writes it (as its number), so the enum merges no fields of it.
#[derive(Debug, PartialEq)]
pub struct Celsius(pub i32);

mod as_number {
    use super::*;

    pub fn encode_msgpack(v: &Celsius, w: &mut MsgpackWriter) -> Result<(), EncodeError> {
        codec::Encode::encode_msgpack(&v.0, w)
    }

    pub fn decode_msgpack(r: &mut MsgpackReader<'_>) -> Result<Celsius, DecodeError> {
        Ok(Celsius(codec::Decode::decode_msgpack(r)?))
    }

    pub fn encode_json(v: &Celsius, w: &mut JsonWriter) -> Result<(), EncodeError> {
        codec::Encode::encode_json(&v.0, w)
    }

    pub fn decode_json(r: &mut JsonReader<'_>) -> Result<Celsius, DecodeError> {
        Ok(Celsius(codec::Decode::decode_json(r)?))
    }

    pub fn json_schema<T>(
        g: &mut codec::schemars::SchemaGenerator,
    ) -> codec::schemars::Schema {
        <i32 as codec::Schema>::json_schema(g)
    }
}

#[derive(codec::Codec, Debug, PartialEq)]
#[codec(tag = "kind")]
enum Reading {
    Temperature(#[codec(with = "as_number")] Celsius),
    Missing,
}

pub fn main() {
    let _ = Reading::Temperature(Celsius(21));
    let _ = Reading::Missing;
}
