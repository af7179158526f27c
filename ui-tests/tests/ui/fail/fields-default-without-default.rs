use codec::Codec;

struct NoDefault;

impl Codec for NoDefault {
    fn encode_msgpack(&self, w: &mut codec::MsgpackWriter) -> Result<(), codec::EncodeError> {
        ().encode_msgpack(w)
    }
    fn decode_msgpack(r: &mut codec::MsgpackReader<'_>) -> Result<Self, codec::DecodeError> {
        <()>::decode_msgpack(r).map(|()| NoDefault)
    }
    fn encode_json(&self, w: &mut codec::JsonWriter) -> Result<(), codec::EncodeError> {
        ().encode_json(w)
    }
    fn decode_json(r: &mut codec::JsonReader<'_>) -> Result<Self, codec::DecodeError> {
        <()>::decode_json(r).map(|()| NoDefault)
    }
}

impl codec::Schema for NoDefault {
    const KIND: codec::WireKind = codec::WireKind::NIL;
    fn json_schema(g: &mut codec::schemars::SchemaGenerator) -> codec::schemars::Schema {
        <()>::json_schema(g)
    }
}

impl codec::Encode for NoDefault {
    fn write_msgpack(&self, w: &mut codec::MsgpackWriter) -> Result<(), codec::EncodeError> {
        self.encode_msgpack(w)
    }
    fn write_json(&self, w: &mut codec::JsonWriter) -> Result<(), codec::EncodeError> {
        self.encode_json(w)
    }
}

#[derive(Codec)]
struct S {
    #[codec(default)]
    a: NoDefault,
}

fn main() {}
