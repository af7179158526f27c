//! Encodes a few values to JSON and MessagePack, prints them, and decodes them back.
//!
//! Run with `cargo run --example quickstart`.

use std::collections::BTreeMap;

use codec::Codec;

#[derive(Codec, Debug, PartialEq)]
struct Chunk {
    text: String,
    start: u32,
    end: u32,
}

#[derive(Codec, Debug, PartialEq)]
enum Event {
    Click { x: i64, y: i64 },
    Key { code: String },
    Scroll { delta: f64 },
}

#[derive(Codec, Debug, PartialEq)]
#[codec(rename_all = "camelCase")]
struct Page {
    page_title: String,
    chunks: Vec<Chunk>,
    #[codec(default)]
    word_counts: BTreeMap<String, u32>,
    thumbnail: Option<codec::Bytes>,
}

fn hex(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect::<Vec<_>>()
        .join(" ")
}

fn show<T: Codec + std::fmt::Debug + PartialEq>(
    label: &str,
    value: &T,
) -> Result<(), Box<dyn std::error::Error>> {
    let json = codec::to_json(value)?;
    let msgpack = codec::to_msgpack(value)?;
    println!("{label}");
    println!("  value:       {value:?}");
    println!("  JSON:        {json}");
    println!("  MessagePack: {} ({} bytes)", hex(&msgpack), msgpack.len());
    assert_eq!(&codec::from_json::<T>(&json)?, value);
    assert_eq!(&codec::from_msgpack::<T>(&msgpack)?, value);
    println!("  decoded back from both formats: equal");
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let chunk = Chunk {
        text: "hello".into(),
        start: 0,
        end: 5,
    };
    show("a struct", &chunk)?;
    show("a tagged union", &Event::Click { x: 3, y: -4 })?;
    show(
        "another variant",
        &Event::Key {
            code: "Enter".into(),
        },
    )?;
    let page = Page {
        page_title: "Intro".into(),
        chunks: vec![chunk],
        word_counts: [("hello".to_string(), 1)].into_iter().collect(),
        thumbnail: Some(codec::Bytes::from(vec![0x89, b'P', b'N', b'G'])),
    };
    show("nested values, renamed fields, bytes", &page)?;

    // Bad input is a typed error that says what, where, and what was found.
    let err = codec::from_json::<Event>(r#"{"type":"Key","code":13}"#).unwrap_err();
    println!("decoding {{\"type\":\"Key\",\"code\":13}} as Event fails:\n  {err}");
    Ok(())
}
