//! A codec type written by hand, for a type from another crate that has no
//! serde support: a local newtype gives it an encoding, here a string
//! `"1.2.3"` in both formats, in three short impls (`Encode`, `Decode`,
//! `Schema`), which make it `Codec`. Derived types then hold it like any
//! field.
//!
//! Run with `cargo run --example by_hand`.

use codec::schemars::{self, json_schema, SchemaGenerator};
use codec::{
    Codec, Decode, DecodeError, Encode, EncodeError, JsonReader, JsonWriter, MsgpackReader,
    MsgpackWriter, Schema, WireKind,
};

/// Stands for a crate that knows nothing of codec (nor of serde).
mod other_crate {
    #[derive(Debug, PartialEq)]
    pub struct Version {
        pub major: u32,
        pub minor: u32,
        pub patch: u32,
    }
}

/// A `Version` on the wire: its dotted text.
#[derive(Debug, PartialEq)]
struct Semver(other_crate::Version);

impl Semver {
    fn text(&self) -> String {
        let v = &self.0;
        format!("{}.{}.{}", v.major, v.minor, v.patch)
    }

    fn parse(text: &str) -> Result<Semver, DecodeError> {
        let parts: Vec<Result<u32, _>> = text.split('.').map(str::parse).collect();
        match parts.as_slice() {
            [Ok(major), Ok(minor), Ok(patch)] => Ok(Semver(other_crate::Version {
                major: *major,
                minor: *minor,
                patch: *patch,
            })),
            _ => Err(DecodeError::invalid_value(format!(
                "`{text}` is not a version: write it as `major.minor.patch`"
            ))),
        }
    }
}

/// Its two encoders: what the encoding entry points (`to_json`, keys of
/// memoized functions...) and derived types holding it call.
impl Encode for Semver {
    fn encode_msgpack(&self, w: &mut MsgpackWriter) -> Result<(), EncodeError> {
        w.write_str(&self.text())
    }

    fn encode_json(&self, w: &mut JsonWriter) -> Result<(), EncodeError> {
        w.write_str(&self.text())
    }
}

/// Its two decoders.
impl<'de> Decode<'de> for Semver {
    fn decode_msgpack(r: &mut MsgpackReader<'de>) -> Result<Self, DecodeError> {
        let text = r.read_str()?;
        // `locate` adds where in the input the bad value is.
        Semver::parse(text).map_err(|e| r.locate(e))
    }

    fn decode_json(r: &mut JsonReader<'de>) -> Result<Self, DecodeError> {
        let text = r.read_str()?;
        Semver::parse(&text).map_err(|e| r.locate(e))
    }
}

/// What schemas, fingerprints and derived types holding it need: the kinds
/// its encoding starts with, and the JSON Schema of its JSON encoding.
impl Schema for Semver {
    const KIND: WireKind = WireKind::STR;

    fn json_schema(_: &mut SchemaGenerator) -> schemars::Schema {
        json_schema!({ "type": "string", "pattern": "^[0-9]+\\.[0-9]+\\.[0-9]+$" })
    }
}

#[derive(Codec, Debug, PartialEq)]
struct Release {
    name: String,
    version: Semver,
    previous: Option<Semver>,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let release = Release {
        name: "codec".into(),
        version: Semver::parse("1.2.0")?,
        previous: Some(Semver::parse("1.1.7")?),
    };

    let json = codec::to_json(&release)?;
    assert_eq!(
        json,
        r#"{"name":"codec","version":"1.2.0","previous":"1.1.7"}"#
    );
    assert_eq!(codec::from_json::<Release>(&json)?, release);

    let msgpack = codec::to_msgpack(&release)?;
    assert_eq!(codec::from_msgpack::<Release>(&msgpack)?, release);

    let err =
        codec::from_json::<Release>(r#"{"name":"x","version":"one","previous":null}"#).unwrap_err();
    println!("{json}\n{err}");
    println!("{}", codec::schema_of::<Release>()["properties"]["version"]);

    // The three impls make it `Codec`: what the store and memoized
    // functions need of a value they keep.
    fn keepable<T: Codec>() {}
    keepable::<Semver>();
    Ok(())
}
