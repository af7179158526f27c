use codec::Codec;

struct NoDefault;

impl codec::Encode for NoDefault {
    fn encode_msgpack(&self, w: &mut codec::MsgpackWriter) -> Result<(), codec::EncodeError> {
        ().encode_msgpack(w)
    }
    fn encode_json(&self, w: &mut codec::JsonWriter) -> Result<(), codec::EncodeError> {
        ().encode_json(w)
    }
}

impl<'de> codec::Decode<'de> for NoDefault {
    fn decode_msgpack(r: &mut codec::MsgpackReader<'de>) -> Result<Self, codec::DecodeError> {
        <()>::decode_msgpack(r).map(|()| NoDefault)
    }
    fn decode_json(r: &mut codec::JsonReader<'de>) -> Result<Self, codec::DecodeError> {
        <()>::decode_json(r).map(|()| NoDefault)
    }
}

impl codec::Schema for NoDefault {
    const KIND: codec::WireKind = codec::WireKind::NIL;
    fn json_schema(g: &mut codec::schemars::SchemaGenerator) -> codec::schemars::Schema {
        <()>::json_schema(g)
    }
}

#[derive(Codec)]
struct S {
    #[codec(default)]
    a: NoDefault,
}

fn main() {}
