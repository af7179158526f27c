//! `codec::Value` (msgspec's `Any`) and `codec::Raw` (msgspec's `Raw`):
//! every wire kind read and written back, in both formats.

use codec::{Codec, Format, Raw, Value};

fn unhex(s: &str) -> Vec<u8> {
    let s: String = s.split_whitespace().collect();
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn from_hex(s: &str) -> Value {
    codec::from_msgpack(&unhex(s)).unwrap_or_else(|e| panic!("{s}: {e}"))
}

#[test]
fn every_msgpack_kind_is_read_and_written_back_byte_for_byte() {
    let long_str = format!("da0100{}", "61".repeat(256));
    let long_bin = format!("c50100{}", "00".repeat(256));
    let long_array = format!("dc0010{}", "c0".repeat(16));
    let long_map = format!(
        "de0010{}",
        (0..16).map(|i| format!("{i:02x}c3")).collect::<String>()
    );
    let ext8 = format!("c703 05 {}", "aabbcc");
    let ext16 = format!("c80100 05 {}", "ab".repeat(256));
    let cases: Vec<(&str, Value)> = vec![
        ("c0", Value::Nil),
        ("c2", Value::Bool(false)),
        ("c3", Value::Bool(true)),
        ("00", Value::Int(0)),
        ("7f", Value::Int(127)),
        ("cc80", Value::Int(128)),
        ("cd0100", Value::Int(256)),
        ("ce00010000", Value::Int(65_536)),
        ("cf0000000100000000", Value::Int(1 << 32)),
        ("cfffffffffffffffff", Value::Int(u64::MAX.into())),
        ("ff", Value::Int(-1)),
        ("e0", Value::Int(-32)),
        ("d0df", Value::Int(-33)),
        ("d1ff7f", Value::Int(-129)),
        ("d2ffff7fff", Value::Int(-32_769)),
        ("d38000000000000000", Value::Int(i64::MIN.into())),
        ("cb3ff8000000000000", Value::Float(1.5)),
        ("cb7ff8000000000000", Value::Float(f64::NAN)),
        // A float32 keeps its width.
        ("ca3dcccccd", Value::Float32(0.1)),
        ("a0", Value::Str(String::new())),
        ("a3 c3a978", Value::Str("éx".into())),
        ("c400", Value::Bytes(vec![])),
        ("c40200ff", Value::Bytes(vec![0, 255])),
        ("90", Value::Array(vec![])),
        ("92 01 a161", Value::Array(vec![Value::Int(1), "a".into()])),
        ("80", Value::Map(vec![])),
        // Order kept, keys of any kind, a repeated key kept.
        (
            "84 a162 01 a161 02 01 c3 a162 03",
            Value::Map(vec![
                ("b".into(), Value::Int(1)),
                ("a".into(), Value::Int(2)),
                (Value::Int(1), Value::Bool(true)),
                ("b".into(), Value::Int(3)),
            ]),
        ),
        ("d6ff00000001", Value::Timestamp { secs: 1, nanos: 0 }),
        (
            "d7ff0000000400000001",
            Value::Timestamp { secs: 1, nanos: 1 },
        ),
        (
            "c70cff00000001ffffffffffffffff",
            Value::Timestamp { secs: -1, nanos: 1 },
        ),
        ("d40501", Value::Ext(5, vec![1])),
        ("d5fe0102", Value::Ext(-2, vec![1, 2])),
        ("d6050102 0304", Value::Ext(5, vec![1, 2, 3, 4])),
        ("d705 0102030405060708", Value::Ext(5, (1..=8).collect())),
        (
            "d805 000102030405060708090a0b0c0d0e0f",
            Value::Ext(5, (0..16).collect()),
        ),
        (&ext8, Value::Ext(5, vec![0xaa, 0xbb, 0xcc])),
        (&ext16, Value::Ext(5, vec![0xab; 256])),
        (&long_str, Value::Str("a".repeat(256))),
        (&long_bin, Value::Bytes(vec![0; 256])),
        (&long_array, Value::Array(vec![Value::Nil; 16])),
        (
            &long_map,
            Value::Map(
                (0..16)
                    .map(|i| (Value::Int(i), Value::Bool(true)))
                    .collect(),
            ),
        ),
    ];
    for (text, expected) in cases {
        let value = from_hex(text);
        if let Value::Float(f) = expected {
            assert!(
                matches!(value, Value::Float(g) if g.to_bits() == f.to_bits()),
                "{text}"
            );
        } else {
            assert_eq!(value, expected, "{text}");
        }
        assert_eq!(
            hex(&codec::to_msgpack(&value).unwrap()),
            hex(&unhex(text)),
            "{text}"
        );
    }
}

#[test]
fn longer_forms_are_read_and_written_back_in_the_shortest_as_msgspec_does() {
    for (long, short) in [
        ("cd0001", "01"),
        ("d0ff", "ff"),
        ("d3000000000000007f", "7f"),
        ("d90161", "a161"),
        ("c50001ff", "c401ff"),
        ("dc000101", "9101"),
        ("df0000000101c0", "8101c0"),
        ("d7ff0000000000000001", "d6ff00000001"),
        ("c70cff000000000000000000000001", "d6ff00000001"),
    ] {
        assert_eq!(
            hex(&codec::to_msgpack(&from_hex(long)).unwrap()),
            short,
            "{long}"
        );
    }
}

#[test]
fn a_float32_keeps_its_width_in_both_formats() {
    let value = from_hex("ca3dcccccd");
    assert_eq!(value, Value::Float32(0.1));
    assert_eq!(value.as_f64(), Some(f64::from(0.1f32)));
    // Its shortest f32 form, not the widened 0.10000000149011612.
    assert_eq!(codec::to_json(&value).unwrap(), "0.1");
    assert_eq!(
        codec::to_json(&Value::Array(vec![Value::Float32(f32::NAN), 1.5f32.into()])).unwrap(),
        "[null,1.5]"
    );
    // A struct's f32 field reads as one too.
    #[derive(codec::Codec)]
    struct Point {
        x: f32,
        y: f64,
    }
    let bytes = codec::to_msgpack(&Point { x: 0.1, y: 0.1 }).unwrap();
    let read = codec::from_msgpack::<Value>(&bytes).unwrap();
    assert_eq!(read.get("x"), Some(&Value::Float32(0.1)));
    assert_eq!(read.get("y"), Some(&Value::Float(0.1)));
    assert_eq!(codec::to_msgpack(&read).unwrap(), bytes);
}

#[test]
fn every_json_kind_is_read_and_written_back() {
    for text in [
        "null",
        "true",
        "false",
        "0",
        "-1",
        "18446744073709551615",
        "-9223372036854775808",
        "1.5",
        "-0.0",
        "1e300",
        r#""""#,
        r#""esc \" \\ \n \u0000 é 𝄞""#,
        "[]",
        "{}",
        r#"[1,"a",[null,{"k":[]}]]"#,
        r#"{"b":1,"a":2,"b":3}"#,
    ] {
        let value: Value = codec::from_json(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(codec::to_json(&value).unwrap(), text);
        // And through MessagePack, as msgspec would pass it on.
        let bytes = codec::to_msgpack(&value).unwrap();
        assert_eq!(
            codec::to_json(&codec::from_msgpack::<Value>(&bytes).unwrap()).unwrap(),
            text
        );
    }
    let v: Value = codec::from_json(" { \"x\" : [ 1 , 2.0 ] } ").unwrap();
    assert_eq!(
        v.get("x"),
        Some(&Value::Array(vec![Value::Int(1), Value::Float(2.0)]))
    );
    assert_eq!(v.get("y"), None);
}

#[test]
fn msgpack_only_kinds_in_json() {
    let bytes = from_hex("c40200ff");
    assert_eq!(codec::to_json(&bytes).unwrap(), r#""AP8=""#);
    let ts = Value::Timestamp {
        secs: 1,
        nanos: 500_000_000,
    };
    assert_eq!(
        codec::to_json(&ts).unwrap(),
        r#""1970-01-01T00:00:01.500000Z""#
    );
    let int_keys = Value::Map(vec![(Value::Int(-1), Value::Nil)]);
    assert_eq!(codec::to_json(&int_keys).unwrap(), r#"{"-1":null}"#);
    let err = codec::to_json(&Value::Ext(5, vec![]))
        .unwrap_err()
        .to_string();
    assert!(err.contains("extension 5 has no JSON encoding"), "{err}");
    let err = codec::to_json(&Value::Map(vec![(Value::Nil, Value::Nil)]))
        .unwrap_err()
        .to_string();
    assert!(err.contains("JSON keys are strings or integers"), "{err}");
    assert!(codec::to_msgpack(&Value::Int(i128::from(u64::MAX) + 1)).is_err());
    assert!(codec::to_msgpack(&Value::Int(i128::from(i64::MIN) - 1)).is_err());
}

#[test]
fn a_value_field_takes_anything_and_its_schema_is_any() {
    #[derive(Codec, Debug, PartialEq)]
    struct Event {
        kind: String,
        data: Value,
    }
    let e: Event = codec::from_json(r#"{"kind":"k","data":{"x":[1,true]}}"#).unwrap();
    assert_eq!(
        e.data.get("x").unwrap(),
        &Value::Array(vec![Value::Int(1), Value::Bool(true)])
    );
    assert_eq!(
        codec::schema_of::<Event>()["properties"]["data"],
        serde_json::json!(true)
    );
}

#[derive(Codec, Debug, PartialEq)]
struct Envelope {
    kind: String,
    body: Raw,
}

#[derive(Codec, Debug, PartialEq)]
struct Click {
    x: i64,
}

#[test]
fn raw_keeps_msgpack_bytes_as_they_came() {
    // The body's int is written in a longer form than codec would choose.
    let bytes = unhex("82 a46b696e64 a56c6f6e6765 a4626f6479 81 a178 cd0003");
    let env: Envelope = codec::from_msgpack(&bytes).unwrap();
    assert_eq!(env.body.format(), Format::MsgPack);
    assert_eq!(hex(env.body.as_bytes()), "81a178cd0003");
    assert_eq!(env.body.decode::<Click>().unwrap(), Click { x: 3 });
    assert_eq!(codec::to_msgpack(&env).unwrap(), bytes);
    // Written as JSON, it is translated.
    assert_eq!(
        codec::to_json(&env).unwrap(),
        r#"{"kind":"longe","body":{"x":3}}"#
    );
}

#[test]
fn raw_keeps_json_text_as_it_came() {
    let text = r#"{"kind":"k","body":{"x" : 3,"extra":[1.50]}}"#;
    let env: Envelope = codec::from_json(text).unwrap();
    assert_eq!(env.body.format(), Format::Json);
    assert_eq!(env.body.as_bytes(), br#"{"x" : 3,"extra":[1.50]}"#);
    assert_eq!(env.body.decode::<Click>().unwrap(), Click { x: 3 });
    assert_eq!(codec::to_json(&env).unwrap(), text);
    let back: Envelope = codec::from_msgpack(&codec::to_msgpack(&env).unwrap()).unwrap();
    assert_eq!(
        back.body.decode::<Value>().unwrap(),
        env.body.decode::<Value>().unwrap()
    );
}

#[test]
fn raw_of_every_kind_in_both_formats() {
    for value in [
        Value::Nil,
        Value::Bool(true),
        Value::Int(-5),
        Value::Float(0.25),
        Value::Str("s".into()),
        Value::Bytes(vec![1, 2]),
        Value::Array(vec![Value::Nil]),
        Value::Map(vec![("k".into(), Value::Int(1))]),
        Value::Timestamp { secs: 7, nanos: 0 },
        Value::Ext(3, vec![9]),
    ] {
        let raw = Raw::to_msgpack(&value).unwrap();
        assert_eq!(raw.decode::<Value>().unwrap(), value);
        assert_eq!(Raw::from_msgpack(raw.as_bytes()).unwrap(), raw);
        let list = codec::to_msgpack(&vec![raw.clone(), raw.clone()]).unwrap();
        assert_eq!(
            codec::from_msgpack::<Vec<Raw>>(&list).unwrap(),
            vec![raw.clone(), raw]
        );
        if let Ok(json) = Raw::to_json(&value) {
            assert_eq!(
                Raw::from_json(std::str::from_utf8(json.as_bytes()).unwrap()).unwrap(),
                json
            );
        }
    }
    assert_eq!(Raw::from_json("  [1] ").unwrap().as_bytes(), b"[1]");
}

#[test]
fn raw_refuses_anything_but_one_complete_value() {
    assert!(Raw::from_msgpack(&[]).is_err());
    assert!(Raw::from_msgpack(&[0x92, 0x01]).is_err());
    assert!(Raw::from_msgpack(&[0x01, 0x01]).is_err());
    assert!(Raw::from_msgpack(&[0xc1]).is_err());
    assert!(Raw::from_json("").is_err());
    assert!(Raw::from_json("[1").is_err());
    assert!(Raw::from_json("1 2").is_err());
    let err = codec::to_json(&Raw::to_msgpack(&Value::Ext(1, vec![])).unwrap()).unwrap_err();
    assert!(err.to_string().contains("has no JSON encoding"), "{err}");
}

#[test]
fn accessors_answer_only_for_their_own_kind() {
    assert_eq!(Value::from("a").as_str(), Some("a"));
    assert_eq!(Value::Int(1).as_str(), None);
    assert_eq!(Value::Int(-7).as_i64(), Some(-7));
    assert_eq!(Value::Int(i64::MIN.into()).as_i64(), Some(i64::MIN));
    // An integer past i64 (up to u64::MAX, as MessagePack holds) is no i64.
    assert_eq!(Value::Int(u64::MAX.into()).as_i64(), None);
    assert_eq!(Value::Float(1.0).as_i64(), None);
    assert_eq!(Value::Int(3).as_f64(), Some(3.0));
    assert_eq!(Value::Float(0.25).as_f64(), Some(0.25));
    assert_eq!(Value::from("1").as_f64(), None);
}

#[test]
fn a_raw_field_is_any_value_marked_as_kept_in_the_schema() {
    assert_eq!(
        codec::schema_of::<Envelope>()["properties"]["body"],
        serde_json::json!({ "x-codec-raw": true })
    );
}
