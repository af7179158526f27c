//! `#[codec(serde)]`: the derive implements serde's `Serialize` and
//! `Deserialize` in codec's wire shape. Through serde_json and rmp-serde a
//! value is byte for byte what `codec::to_json` and `codec::to_msgpack`
//! write (the corpus of the msgspec interop test, plus timestamps, 32-bit
//! floats and generics), and both read it back.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::fmt::Debug;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use codec::Codec;
use serde::de::DeserializeOwned;
use serde::Serialize;

#[derive(Codec, Debug, PartialEq)]
#[codec(serde)]
struct Point {
    x: i64,
    y: i64,
}

#[derive(Codec, Debug, PartialEq)]
#[codec(serde)]
enum Shape {
    Circle { r: f64 },
    Rect { w: f64, h: f64 },
}

#[derive(Codec, Debug, PartialEq)]
#[codec(serde)]
struct CirclePayload {
    r: f64,
}

#[derive(Codec, Debug, PartialEq)]
#[codec(serde)]
enum MergedShape {
    Circle(CirclePayload),
    Rect { w: f64, h: f64 },
}

#[derive(Codec, Debug, PartialEq)]
#[codec(serde, tag = "kind")]
enum Event {
    #[codec(rename = "click")]
    Click { x: i64 },
    #[codec(rename = "key")]
    KeyPress { code: String },
}

#[derive(Codec, Debug, PartialEq)]
#[codec(serde)]
enum Level {
    #[codec(tag = 1)]
    Low {},
    #[codec(tag = 2)]
    High { level: i64 },
}

#[derive(Codec, Debug, PartialEq)]
#[codec(serde)]
enum Color {
    Red,
    Green,
}

#[derive(Codec, Debug, PartialEq)]
#[codec(serde)]
struct Palette {
    main: Color,
    others: Vec<Color>,
}

#[derive(Codec, Debug, PartialEq)]
#[codec(serde)]
struct Blob {
    data: Vec<u8>,
    maybe: Option<codec::Bytes>,
}

#[derive(Codec, Debug, PartialEq)]
#[codec(serde)]
struct Options {
    a: Option<i64>,
    b: Option<String>,
}

#[derive(Codec, Debug, PartialEq)]
#[codec(serde)]
struct Lists {
    ints: Vec<i64>,
    names: Vec<String>,
    pairs: Vec<(i64, String)>,
}

#[derive(Codec, Debug, PartialEq)]
#[codec(serde)]
struct Maps {
    scores: HashMap<String, i64>,
    ids: BTreeSet<i64>,
    names: HashSet<String>,
    by_id: BTreeMap<u32, String>,
}

#[derive(Codec, Debug, PartialEq)]
#[codec(serde)]
enum Outer {
    Wrap { inner: Shape },
    Empty,
}

#[derive(Codec, Debug, PartialEq)]
#[codec(serde)]
struct Doc {
    shapes: Vec<Shape>,
    event: Event,
    outer: Vec<Outer>,
}

#[derive(Codec, Debug, PartialEq)]
#[codec(serde, array_like)]
struct Row {
    id: i64,
    name: String,
}

#[derive(Codec, Debug, PartialEq)]
#[codec(serde, array_like)]
enum TaggedRow {
    AL { a: i64, b: String },
}

#[derive(Codec, Debug, PartialEq)]
#[codec(serde, rename_all = "camelCase")]
struct Camel {
    user_id: i64,
    display_name: String,
}

#[derive(Codec, Debug, PartialEq)]
#[codec(serde)]
struct Ints {
    values: Vec<i128>,
}

#[derive(Codec, Debug, PartialEq)]
#[codec(serde)]
struct Text {
    s: String,
}

#[derive(Codec, Debug, PartialEq)]
#[codec(serde)]
struct Floats {
    a: f64,
    b: f64,
    small: f32,
}

#[derive(Codec, Debug, PartialEq)]
#[codec(serde)]
struct Times {
    at: SystemTime,
    took: Duration,
}

#[derive(Codec, Debug, PartialEq)]
#[codec(serde, untagged)]
enum Loose {
    Int(i64),
    Text(String),
    Pair(i64, i64),
}

#[derive(Codec, Debug, PartialEq)]
#[codec(serde)]
struct Wrapper<T> {
    inner: T,
    all: Vec<T>,
}

#[derive(Codec, Debug, PartialEq)]
#[codec(serde)]
struct Id(u64);

/// serde_json and rmp-serde write codec's bytes through the serde impls,
/// and read them back.
#[track_caller]
fn same_bytes<T>(value: T)
where
    T: Codec + Serialize + DeserializeOwned + PartialEq + Debug,
{
    let json = codec::to_json(&value).unwrap();
    assert_eq!(
        serde_json::to_string(&value).unwrap(),
        json,
        "JSON of {value:?}"
    );
    let msgpack = codec::to_msgpack(&value).unwrap();
    assert_eq!(
        rmp_serde::to_vec(&value).unwrap(),
        msgpack,
        "MessagePack of {value:?}"
    );
    assert_eq!(serde_json::from_str::<T>(&json).unwrap(), value);
    assert_eq!(rmp_serde::from_slice::<T>(&msgpack).unwrap(), value);
    let tree: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(serde_json::to_value(&value).unwrap(), tree);
    assert_eq!(serde_json::from_value::<T>(tree).unwrap(), value);
}

#[test]
fn the_corpus_goes_through_serde_json_and_rmp_serde_as_codec_writes_it() {
    same_bytes(Point { x: 1, y: -2 });
    same_bytes(Shape::Circle { r: 1.5 });
    same_bytes(Shape::Rect { w: 2.0, h: 0.5 });
    same_bytes(MergedShape::Circle(CirclePayload { r: 3.25 }));
    same_bytes(Event::Click { x: 3 });
    same_bytes(Event::KeyPress {
        code: "Enter".into(),
    });
    same_bytes(Level::Low {});
    same_bytes(Level::High { level: 9 });
    same_bytes(Palette {
        main: Color::Green,
        others: vec![Color::Red, Color::Green],
    });
    same_bytes(Blob {
        data: b"\x00\x01\xffbytes".to_vec(),
        maybe: None,
    });
    same_bytes(Blob {
        data: vec![],
        maybe: Some(codec::Bytes::from(vec![b'x'; 40])),
    });
    same_bytes(Options { a: None, b: None });
    same_bytes(Options {
        a: Some(5),
        b: Some("five".into()),
    });
    same_bytes(Lists {
        ints: vec![1, 2, 3],
        names: vec!["a".into(), "b".into()],
        pairs: vec![(1, "one".into()), (2, "two".into())],
    });
    same_bytes(Maps {
        scores: [("b", 2), ("a", 1), ("c", 3)]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect(),
        ids: [300, 5, 70, 1].into_iter().collect(),
        names: ["z", "a", "m"].into_iter().map(String::from).collect(),
        by_id: [(10, "ten".to_string()), (2, "two".to_string())]
            .into_iter()
            .collect(),
    });
    same_bytes(Doc {
        shapes: vec![Shape::Circle { r: 1.0 }, Shape::Rect { w: 1.0, h: 2.0 }],
        event: Event::KeyPress { code: "q".into() },
        outer: vec![
            Outer::Wrap {
                inner: Shape::Rect { w: 0.5, h: 0.25 },
            },
            Outer::Empty,
        ],
    });
    same_bytes(Row {
        id: 7,
        name: "seven".into(),
    });
    same_bytes(TaggedRow::AL {
        a: 1,
        b: "x".into(),
    });
    same_bytes(Camel {
        user_id: 1,
        display_name: "Ada".into(),
    });
    same_bytes(Ints {
        values: vec![
            0,
            127,
            128,
            255,
            256,
            65535,
            65536,
            1 << 32,
            -1,
            -32,
            -33,
            -128,
            -129,
            i64::MIN as i128,
            u64::MAX as i128,
        ],
    });
    same_bytes(Text {
        s: "héllo ✓ \u{2028} \"quoted\" \\ tab\t newline\n 𝄞 \u{1} \u{7f}".into(),
    });
    same_bytes(Floats {
        a: 0.1,
        b: -1e15,
        small: 0.1,
    });
}

#[test]
fn floats_in_exponent_form_are_the_same_numbers_in_serde_json_s_spelling() {
    // serde_json spells the exponent `1e+300`, codec (and msgspec) `1e300`:
    // the format writes its own numbers. MessagePack has one spelling.
    let value = Floats {
        a: 1e-7,
        b: -1e300,
        small: 3e38,
    };
    let json = codec::to_json(&value).unwrap();
    assert_eq!(json, r#"{"a":1e-7,"b":-1e300,"small":3e38}"#);
    let theirs = serde_json::to_string(&value).unwrap();
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&theirs).unwrap(),
        serde_json::from_str::<serde_json::Value>(&json).unwrap()
    );
    assert_eq!(codec::from_json::<Floats>(&theirs).unwrap(), value);
    assert_eq!(serde_json::from_str::<Floats>(&json).unwrap(), value);
    let msgpack = codec::to_msgpack(&value).unwrap();
    assert_eq!(rmp_serde::to_vec(&value).unwrap(), msgpack);
    assert_eq!(rmp_serde::from_slice::<Floats>(&msgpack).unwrap(), value);
}

#[test]
fn timestamps_untagged_unions_generics_and_newtypes_keep_their_shape() {
    let at = UNIX_EPOCH + Duration::new(1_700_000_000, 500_000_000);
    same_bytes(Times {
        at,
        took: Duration::from_millis(1500),
    });
    // The 32-bit and the 96-bit timestamp forms.
    same_bytes(Times {
        at: UNIX_EPOCH + Duration::from_secs(5),
        took: Duration::ZERO,
    });
    same_bytes(Times {
        at: UNIX_EPOCH - Duration::from_secs(86_400),
        took: Duration::ZERO,
    });
    same_bytes(Loose::Int(-3));
    same_bytes(Loose::Text("x".into()));
    same_bytes(Loose::Pair(1, 2));
    same_bytes(Wrapper {
        inner: Point { x: 1, y: 2 },
        all: vec![],
    });
    same_bytes(Wrapper {
        inner: 1u8,
        all: vec![2u8, 3],
    });
    same_bytes(Id(42));
}

#[test]
fn serde_input_is_decoded_by_codec_with_its_checks() {
    // Fields in another order, as another program may write them.
    let p: Point = serde_json::from_str(r#"{"y":2,"x":1}"#).unwrap();
    assert_eq!(p, Point { x: 1, y: 2 });
    let e: Event = serde_json::from_value(serde_json::json!({"x": 3, "kind": "click"})).unwrap();
    assert_eq!(e, Event::Click { x: 3 });
    let err = serde_json::from_str::<Point>(r#"{"x":1}"#).unwrap_err();
    assert!(err.to_string().contains("missing field `y`"), "{err}");
    let err = serde_json::from_str::<Level>(r#"{"type":3}"#).unwrap_err();
    assert!(err.to_string().contains('3'), "{err}");
    let err = rmp_serde::from_slice::<Point>(b"\x81\xa1x\xa1a").unwrap_err();
    assert!(err.to_string().contains("x"), "{err}");
}

#[test]
fn a_codec_type_nests_in_a_type_that_derives_serde() {
    #[derive(serde::Serialize, serde::Deserialize, Debug, PartialEq)]
    struct Response {
        status: u16,
        event: Event,
        blob: Blob,
    }
    let r = Response {
        status: 200,
        event: Event::Click { x: 1 },
        blob: Blob {
            data: vec![1, 2],
            maybe: None,
        },
    };
    let json = serde_json::to_string(&r).unwrap();
    assert_eq!(
        json,
        r#"{"status":200,"event":{"kind":"click","x":1},"blob":{"data":"AQI=","maybe":null}}"#
    );
    assert_eq!(serde_json::from_str::<Response>(&json).unwrap(), r);
    let bytes = rmp_serde::to_vec_named(&r).unwrap();
    assert_eq!(rmp_serde::from_slice::<Response>(&bytes).unwrap(), r);
}

#[test]
fn a_codec_type_without_the_impls_goes_through_serde_with() {
    #[derive(Codec, Debug, PartialEq)]
    struct Plain {
        at: u32,
    }
    #[derive(serde::Serialize, serde::Deserialize, Debug, PartialEq)]
    struct Holder {
        #[serde(with = "codec::serde_traits")]
        plain: Plain,
    }
    let h = Holder {
        plain: Plain { at: 7 },
    };
    let json = serde_json::to_string(&h).unwrap();
    assert_eq!(json, r#"{"plain":{"at":7}}"#);
    assert_eq!(serde_json::from_str::<Holder>(&json).unwrap(), h);
}

/// A value of most shapes: tagged unions, bytes, maps, sets, options,
/// 32-bit floats and an `array_like` row.
#[derive(Codec, Debug, PartialEq)]
#[codec(serde)]
struct Mixed {
    doc: Doc,
    blob: Blob,
    maps: Maps,
    options: Options,
    floats: Floats,
    row: Row,
    loose: Vec<Loose>,
}

fn mixed() -> Mixed {
    Mixed {
        doc: Doc {
            shapes: vec![Shape::Circle { r: 1.5 }, Shape::Rect { w: 2.0, h: 3.0 }],
            event: Event::KeyPress {
                code: "Enter".into(),
            },
            outer: vec![
                Outer::Wrap {
                    inner: Shape::Circle { r: 0.5 },
                },
                Outer::Empty,
            ],
        },
        blob: Blob {
            data: vec![0, 1, 255],
            maybe: Some(codec::Bytes::from(vec![7u8; 3])),
        },
        maps: Maps {
            scores: HashMap::from([("a".to_string(), 1), ("b".to_string(), -2)]),
            ids: BTreeSet::from([3, 1, 2]),
            names: HashSet::from(["x".to_string()]),
            by_id: BTreeMap::from([(7, "seven".to_string())]),
        },
        options: Options {
            a: None,
            b: Some("b".into()),
        },
        floats: Floats {
            a: 0.1,
            b: -1e300,
            small: 0.25,
        },
        row: Row {
            id: 9,
            name: "row".into(),
        },
        loose: vec![Loose::Int(1), Loose::Text("t".into()), Loose::Pair(2, 3)],
    }
}

#[test]
fn yaml_and_cbor_read_back_what_they_write_bincode_and_postcard_cannot() {
    // YAML is human-readable: it gets codec's JSON tree, in YAML's syntax.
    let yaml = serde_yaml::to_string(&mixed()).unwrap();
    let tree: serde_json::Value = serde_yaml::from_str(&yaml).unwrap();
    let json: serde_json::Value = serde_json::from_str(&codec::to_json(&mixed()).unwrap()).unwrap();
    assert_eq!(tree, json, "{yaml}");
    assert_eq!(serde_yaml::from_str::<Mixed>(&yaml).unwrap(), mixed());

    let times = || Times {
        at: UNIX_EPOCH + Duration::new(1_700_000_000, 500_000_000),
        took: Duration::from_millis(1500),
    };
    let yaml = serde_yaml::to_string(&times()).unwrap();
    assert!(yaml.contains("2023-11-14T22:13:20.500000Z"), "{yaml}");
    assert_eq!(serde_yaml::from_str::<Times>(&yaml).unwrap(), times());

    // CBOR is not: it gets codec's MessagePack tree (bytes as bytes).
    let mut cbor = Vec::new();
    ciborium::into_writer(&mixed(), &mut cbor).unwrap();
    assert_eq!(
        ciborium::from_reader::<Mixed, _>(&cbor[..]).unwrap(),
        mixed()
    );
    // Except a timestamp: MessagePack's extension has no CBOR form, it is
    // written as a `[type, data]` array, and reading that back is an error.
    let mut cbor = Vec::new();
    ciborium::into_writer(&times(), &mut cbor).unwrap();
    let err = ciborium::from_reader::<Times, _>(&cbor[..]).unwrap_err();
    assert!(
        err.to_string()
            .contains("at $.at: expected an extension, found an array"),
        "{err}"
    );

    // bincode and postcard write the tree too, but their input does not say
    // what it holds, which codec's decoding needs: reading is an error.
    let bytes = bincode::serialize(&mixed()).unwrap();
    let err = bincode::deserialize::<Mixed>(&bytes).unwrap_err();
    assert!(err.to_string().contains("deserialize_any"), "{err}");
    let bytes = postcard::to_allocvec(&mixed()).unwrap();
    let err = postcard::from_bytes::<Mixed>(&bytes).unwrap_err();
    assert_eq!(err, postcard::Error::WontImplement, "{err}");
}
