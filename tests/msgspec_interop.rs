//! Interoperability with Python's msgspec 0.22: for a corpus of types,
//! msgspec decodes codec's bytes into the expected value, msgspec's own
//! encoding of that value is byte-for-byte codec's, and codec decodes it back.
//!
//! The test installs msgspec into a venv of its own under the target folder
//! (pip reaches PyPI); without Python or pip it fails, saying so.

#[path = "common/venv.rs"]
mod venv;

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use codec::Codec;
use serde_json::{json, Value};

#[derive(Codec, Debug, PartialEq)]
struct Point {
    x: i64,
    y: i64,
}

#[derive(Codec, Debug, PartialEq)]
enum Shape {
    Circle { r: f64 },
    Rect { w: f64, h: f64 },
}

#[derive(Codec, Debug, PartialEq)]
struct CirclePayload {
    r: f64,
}

/// A newtype variant of a struct: same bytes as a tagged struct.
#[derive(Codec, Debug, PartialEq)]
enum MergedShape {
    Circle(CirclePayload),
    Rect { w: f64, h: f64 },
}

#[derive(Codec, Debug, PartialEq)]
#[codec(tag = "kind")]
enum Event {
    #[codec(rename = "click")]
    Click { x: i64 },
    #[codec(rename = "key")]
    KeyPress { code: String },
}

#[derive(Codec, Debug, PartialEq)]
enum Level {
    #[codec(tag = 1)]
    Low {},
    #[codec(tag = 2)]
    High { level: i64 },
}

#[derive(Codec, Debug, PartialEq)]
enum Color {
    Red,
    Green,
}

#[derive(Codec, Debug, PartialEq)]
struct Palette {
    main: Color,
    others: Vec<Color>,
}

#[derive(Codec, Debug, PartialEq)]
struct Blob {
    data: Vec<u8>,
    maybe: Option<codec::Bytes>,
}

#[derive(Codec, Debug, PartialEq)]
struct Options {
    a: Option<i64>,
    b: Option<String>,
}

#[derive(Codec, Debug, PartialEq)]
struct Lists {
    ints: Vec<i64>,
    names: Vec<String>,
    pairs: Vec<(i64, String)>,
}

#[derive(Codec, Debug, PartialEq)]
struct Maps {
    scores: HashMap<String, i64>,
    ids: BTreeSet<i64>,
    names: HashSet<String>,
}

#[derive(Codec, Debug, PartialEq)]
enum Outer {
    Wrap { inner: Shape },
    Empty,
}

#[derive(Codec, Debug, PartialEq)]
struct Doc {
    shapes: Vec<Shape>,
    event: Event,
    outer: Vec<Outer>,
}

#[derive(Codec, Debug, PartialEq)]
#[codec(array_like)]
struct Row {
    id: i64,
    name: String,
}

#[derive(Codec, Debug, PartialEq)]
#[codec(array_like)]
enum TaggedRow {
    AL { a: i64, b: String },
}

#[derive(Codec, Debug, PartialEq)]
#[codec(rename_all = "camelCase")]
struct Camel {
    user_id: i64,
    display_name: String,
}

#[derive(Codec, Debug, PartialEq)]
struct Ints {
    values: Vec<i128>,
}

#[derive(Codec, Debug, PartialEq)]
struct Text {
    s: String,
}

#[derive(Codec, Debug, PartialEq)]
struct Floats {
    a: f64,
    b: f64,
}

fn three() -> i64 {
    3
}

/// msgspec's `omit_defaults=True`: fields equal to their default are left out.
#[derive(Codec, Debug, PartialEq)]
#[codec(omit_defaults)]
struct Sparse {
    name: String,
    #[codec(default)]
    count: i64,
    #[codec(default = "three")]
    level: i64,
    #[codec(default)]
    note: Option<String>,
    #[codec(default)]
    tags: Vec<String>,
}

/// An untagged union of every scalar kind: msgspec's
/// `Union[None, bool, int, float, str, list[int], dict[str, int]]`.
#[derive(Codec, Debug, PartialEq)]
#[codec(untagged)]
enum Scalar {
    Nothing,
    Flag(bool),
    Int(i64),
    Float(f64),
    Text(String),
    List(Vec<i64>),
    Map(BTreeMap<String, i64>),
}

#[derive(Codec, Debug, PartialEq)]
struct Sets {
    ints: HashSet<i64>,
    strs: BTreeSet<String>,
    bytes: BTreeSet<codec::Bytes>,
    bools: BTreeSet<bool>,
    tuples: BTreeSet<(i64, String)>,
    durations: BTreeSet<Duration>,
}

#[derive(Codec, Debug, PartialEq)]
struct Nested {
    a: Option<Option<i64>>,
    b: Option<Option<i64>>,
}

#[derive(Codec, Debug, PartialEq)]
struct Times {
    timeout: Duration,
    at: SystemTime,
}

/// msgspec's constraints, `Annotated[T, Meta(..)]`: values within them.
#[derive(Codec, Debug, PartialEq)]
struct Constrained {
    #[codec(ge = 0, le = 100)]
    percent: i64,
    #[codec(gt = 0.0, lt = 1.0, multiple_of = 0.25)]
    ratio: f64,
    #[codec(min_length = 1, max_length = 8, pattern = "^[a-z]+$")]
    login: String,
    #[codec(max_length = 2)]
    tags: Vec<String>,
    #[codec(min_length = 1)]
    scores: BTreeMap<String, i64>,
}

/// A field kept encoded: msgspec's `Raw`.
#[derive(Codec, Debug, PartialEq)]
struct Envelope {
    kind: String,
    body: codec::Raw,
}

/// One corpus value: its encodings, and how to decode msgspec's back.
/// Decodes a case's MessagePack and JSON back into its Rust type.
type DecodesBack = Box<dyn Fn(&[u8], &str) -> Result<(), String>>;

struct Case {
    name: &'static str,
    msgpack: Vec<u8>,
    json: String,
    decodes_back: DecodesBack,
}

fn case<T: Codec + PartialEq + std::fmt::Debug + 'static>(name: &'static str, value: T) -> Case {
    let msgpack = codec::to_msgpack(&value).unwrap();
    let json = codec::to_json(&value).unwrap();
    Case {
        name,
        msgpack,
        json,
        decodes_back: Box::new(move |mp, js| {
            let a: T = codec::from_msgpack(mp).map_err(|e| e.to_string())?;
            let b: T = codec::from_json(js).map_err(|e| e.to_string())?;
            if a == value && b == value {
                Ok(())
            } else {
                Err(format!("decoded {a:?} / {b:?}, expected {value:?}"))
            }
        }),
    }
}

fn corpus() -> Vec<Case> {
    let boundary: Vec<i128> = vec![
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
    ];
    vec![
        case("point", Point { x: 1, y: -2 }),
        case("shape_circle", Shape::Circle { r: 1.5 }),
        case("shape_rect", Shape::Rect { w: 2.0, h: 0.5 }),
        case(
            "shape_merged_newtype",
            MergedShape::Circle(CirclePayload { r: 3.25 }),
        ),
        case("event_click", Event::Click { x: 3 }),
        case(
            "event_key",
            Event::KeyPress {
                code: "Enter".into(),
            },
        ),
        case("level_low", Level::Low {}),
        case("level_high", Level::High { level: 9 }),
        case(
            "palette",
            Palette {
                main: Color::Green,
                others: vec![Color::Red, Color::Green],
            },
        ),
        case(
            "blob",
            Blob {
                data: b"\x00\x01\xffbytes".to_vec(),
                maybe: None,
            },
        ),
        case(
            "blob_some",
            Blob {
                data: vec![],
                maybe: Some(codec::Bytes::from(vec![b'x'; 40])),
            },
        ),
        case("options_none", Options { a: None, b: None }),
        case(
            "options_some",
            Options {
                a: Some(5),
                b: Some("five".into()),
            },
        ),
        case(
            "lists",
            Lists {
                ints: vec![1, 2, 3],
                names: vec!["a".into(), "b".into()],
                pairs: vec![(1, "one".into()), (2, "two".into())],
            },
        ),
        case(
            "maps",
            Maps {
                scores: [("b", 2), ("a", 1), ("c", 3)]
                    .into_iter()
                    .map(|(k, v)| (k.to_string(), v))
                    .collect(),
                ids: [300, 5, 70, 1].into_iter().collect(),
                names: ["z", "a", "m"].into_iter().map(String::from).collect(),
            },
        ),
        case(
            "doc",
            Doc {
                shapes: vec![Shape::Circle { r: 1.0 }, Shape::Rect { w: 1.0, h: 2.0 }],
                event: Event::KeyPress { code: "q".into() },
                outer: vec![
                    Outer::Wrap {
                        inner: Shape::Rect { w: 0.5, h: 0.25 },
                    },
                    Outer::Empty,
                ],
            },
        ),
        case(
            "row",
            Row {
                id: 7,
                name: "seven".into(),
            },
        ),
        case(
            "tagged_row",
            TaggedRow::AL {
                a: 1,
                b: "x".into(),
            },
        ),
        case(
            "camel",
            Camel {
                user_id: 1,
                display_name: "Ada".into(),
            },
        ),
        case("ints", Ints { values: boundary }),
        case(
            "text",
            Text {
                s: "héllo ✓ \u{2028} \"quoted\" \\ tab\t newline\n 𝄞".into(),
            },
        ),
        case("floats", Floats { a: 0.1, b: -1e300 }),
        case(
            "omit_defaults_all_default",
            Sparse {
                name: "s".into(),
                count: 0,
                level: 3,
                note: None,
                tags: vec![],
            },
        ),
        case(
            "omit_defaults_none_default",
            Sparse {
                name: "s".into(),
                count: 1,
                level: 4,
                note: Some("n".into()),
                tags: vec!["t".into()],
            },
        ),
    ]
}

/// A non-finite float: the same float in MessagePack, `null` in JSON (which
/// msgspec, like codec, reads back only into an optional float).
fn non_finite(name: &'static str, value: f64) -> Case {
    Case {
        name,
        msgpack: codec::to_msgpack(&value).unwrap(),
        json: codec::to_json(&value).unwrap(),
        decodes_back: Box::new(move |mp, js| {
            let a: f64 = codec::from_msgpack(mp).map_err(|e| e.to_string())?;
            let b: Option<f64> = codec::from_json(js).map_err(|e| e.to_string())?;
            if a.to_bits() == value.to_bits() && b.is_none() {
                Ok(())
            } else {
                Err(format!("decoded {a:?} / {b:?}, expected {value:?} / None"))
            }
        }),
    }
}

/// An envelope whose body is kept as MessagePack: msgspec must see the same
/// struct in both formats (codec translates the body into JSON), and codec
/// must read msgspec's bodies back into the same point.
fn raw_case() -> Case {
    let value = Envelope {
        kind: "point".into(),
        body: codec::Raw::to_msgpack(&Point { x: 1, y: -2 }).unwrap(),
    };
    Case {
        name: "raw",
        msgpack: codec::to_msgpack(&value).unwrap(),
        json: codec::to_json(&value).unwrap(),
        decodes_back: Box::new(|mp, js| {
            let a: Envelope = codec::from_msgpack(mp).map_err(|e| e.to_string())?;
            let b: Envelope = codec::from_json(js).map_err(|e| e.to_string())?;
            let expected = Point { x: 1, y: -2 };
            for body in [&a.body, &b.body] {
                if body.decode::<Point>().map_err(|e| e.to_string())? != expected {
                    return Err(format!("decoded {body:?}"));
                }
            }
            Ok(())
        }),
    }
}

/// Every character class a JSON string escapes, and a few it does not.
fn escapes() -> String {
    let mut s: String = (0u8..0x20).map(char::from).collect();
    s.push_str("\x7f \" \\ / \u{2028} \u{2029} \u{d7ff} \u{e000} \u{fffd} \u{10ffff} 𝄞 é ✓");
    s
}

fn extended_corpus() -> Vec<Case> {
    let secs = |s: u64, n: u32| Duration::new(s, n);
    let mut cases = vec![
        case("duration_sub_second", secs(1, 500_000_000)),
        case("duration_micro", secs(0, 10_000)),
        case("duration_multi_day", secs(86_430, 0)),
        case("duration_days_and_micro", secs(3 * 86_400, 1_000)),
        case("duration_zero", Duration::ZERO),
        case(
            "times",
            Times {
                timeout: secs(90_000, 0),
                at: UNIX_EPOCH + secs(1_700_000_000, 5_000_000),
            },
        ),
        case(
            "system_time_pre_1970",
            UNIX_EPOCH - secs(315_619_200, 999_999_000),
        ),
        case("system_time_far", UNIX_EPOCH + secs(1 << 35, 0)),
        case("path", PathBuf::from("/tmp/dir/file name.txt")),
        case("ip", "2001:db8::1".parse::<std::net::IpAddr>().unwrap()),
        case(
            "socket",
            "127.0.0.1:8080".parse::<std::net::SocketAddr>().unwrap(),
        ),
        non_finite("nan", f64::NAN),
        non_finite("inf", f64::INFINITY),
        non_finite("neg_inf", f64::NEG_INFINITY),
        case("neg_zero", -0.0f64),
        case(
            "float_magnitudes",
            vec![
                1e300,
                1e16,
                1e15,
                1e-7,
                1e-5,
                5e-324,
                f64::MAX,
                123_456_789.123,
                1e22,
                0.1 + 0.2,
                -2.5e-8,
            ],
        ),
        case("int_min", i64::MIN),
        case("int_max", i64::MAX),
        case("uint_max", u64::MAX),
        case("escapes", escapes()),
        case("scalar_nothing", Scalar::Nothing),
        case("scalar_flag", Scalar::Flag(false)),
        case("scalar_int", Scalar::Int(-129)),
        case("scalar_float", Scalar::Float(2.5)),
        case("scalar_text", Scalar::Text("2026-01-02".into())),
        case("scalar_list", Scalar::List(vec![1, -1])),
        case(
            "scalar_map",
            Scalar::Map(
                [("b".to_owned(), 2), ("a".to_owned(), 1)]
                    .into_iter()
                    .collect(),
            ),
        ),
        case(
            "sets",
            Sets {
                ints: [300, -5, 70, -1, 0].into_iter().collect(),
                strs: ["z", "a", "é", "Z", ""]
                    .into_iter()
                    .map(String::from)
                    .collect(),
                bytes: [&b"b"[..], b"", b"\xff", b"a\x00"]
                    .into_iter()
                    .map(|b| codec::Bytes::from(b.to_vec()))
                    .collect(),
                bools: [true, false].into_iter().collect(),
                tuples: [
                    (2, "a".to_owned()),
                    (1, "b".to_owned()),
                    (1, "a".to_owned()),
                ]
                .into_iter()
                .collect(),
                durations: [secs(86_400, 0), secs(1, 5_000), Duration::ZERO]
                    .into_iter()
                    .collect(),
            },
        ),
        case(
            "option_option_none",
            Nested {
                a: None,
                b: Some(Some(3)),
            },
        ),
        case(
            "any",
            codec::Value::Map(vec![
                (
                    "a".into(),
                    codec::Value::Array(vec![
                        codec::Value::Int(1),
                        codec::Value::Float(2.5),
                        codec::Value::Nil,
                        codec::Value::Bool(true),
                        "x".into(),
                        codec::Value::Int(-(1 << 40)),
                    ]),
                ),
                ("b".into(), codec::Value::Map(vec![])),
            ]),
        ),
        raw_case(),
        case(
            "constrained",
            Constrained {
                percent: 100,
                ratio: 0.75,
                login: "ada".into(),
                tags: vec!["a".into(), "b".into()],
                scores: [("x".to_owned(), 1)].into_iter().collect(),
            },
        ),
    ];
    cases.extend(feature_cases());
    cases
}

#[cfg(not(all(feature = "chrono", feature = "uuid", feature = "decimal")))]
fn feature_cases() -> Vec<Case> {
    Vec::new()
}

#[cfg(all(feature = "chrono", feature = "uuid", feature = "decimal"))]
fn feature_cases() -> Vec<Case> {
    use chrono::{DateTime, FixedOffset, NaiveDate, NaiveTime, TimeDelta, Utc};
    let utc = |s: &str| DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc);
    let aware = |s: &str| DateTime::parse_from_rfc3339(s).unwrap();
    let naive = |s: &str| chrono::NaiveDateTime::parse_from_str(s, "%Y-%m-%dT%H:%M:%S%.f").unwrap();
    let time = |s: &str| NaiveTime::parse_from_str(s, "%H:%M:%S%.f").unwrap();
    let offset_time = |t: &str, secs: i32| codec::OffsetTime {
        time: time(t),
        offset: FixedOffset::east_opt(secs).unwrap(),
    };
    let decimal = |s: &str| s.parse::<rust_decimal::Decimal>().unwrap();
    vec![
        case("datetime_utc", utc("2026-01-02T03:04:05Z")),
        case("datetime_utc_fraction", utc("2026-01-02T03:04:05.5Z")),
        case("datetime_utc_micro", utc("2026-01-02T03:04:05.000123Z")),
        case("datetime_utc_pre_1970", utc("1960-01-02T03:04:05.000001Z")),
        case("datetime_offset", aware("2026-01-02T03:04:05+02:00")),
        case(
            "datetime_negative_offset",
            aware("2026-01-02T03:04:05.25-05:30"),
        ),
        case("datetime_naive", naive("2026-01-02T03:04:05")),
        case(
            "datetime_naive_fraction",
            naive("1969-12-31T23:59:59.000123"),
        ),
        case("date", NaiveDate::from_ymd_opt(2024, 2, 29).unwrap()),
        case("date_pre_1970", NaiveDate::from_ymd_opt(1, 1, 1).unwrap()),
        case("time_naive", time("01:02:03")),
        case("time_naive_fraction", time("23:59:59.4")),
        case("time_utc", offset_time("01:02:03", 0)),
        case("time_offset", offset_time("01:02:03.000005", 7200)),
        case("timedelta_negative", TimeDelta::milliseconds(-1500)),
        case("timedelta_negative_days", TimeDelta::days(-1)),
        case("decimal", decimal("1.50")),
        case("decimal_negative", decimal("-0.001")),
        case("decimal_tiny", decimal("0.00000015")),
        case("decimal_zero_scaled", decimal("0.00000000")),
        case("decimal_wide", decimal("123456789012345678.9")),
        case(
            "uuid",
            uuid::Uuid::from_u128(0x67e5504410b1426f9247bb680e5fe0c8),
        ),
        case(
            "uuid_set",
            [
                uuid::Uuid::from_u128(2),
                uuid::Uuid::from_u128(u128::MAX),
                uuid::Uuid::nil(),
            ]
            .into_iter()
            .collect::<BTreeSet<_>>(),
        ),
        case(
            "date_set",
            [
                NaiveDate::from_ymd_opt(2024, 1, 2).unwrap(),
                NaiveDate::from_ymd_opt(1999, 12, 31).unwrap(),
            ]
            .into_iter()
            .collect::<BTreeSet<_>>(),
        ),
    ]
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// A Python with msgspec 0.22.0, installed once into a venv under the target
/// folder (shared with tests/python_classes.rs, which also needs mypy).
fn python() -> PathBuf {
    venv::msgspec()
}

#[test]
fn msgspec_reads_and_writes_the_same_bytes() {
    let python = python();
    let mut cases = corpus();
    cases.extend(extended_corpus());
    let dir = tempfile::tempdir().unwrap();
    let manifest = dir.path().join("manifest.jsonl");
    let results = dir.path().join("results.jsonl");
    let lines: Vec<String> = cases
        .iter()
        .map(|c| json!({"case": c.name, "msgpack": hex(&c.msgpack), "json": c.json}).to_string())
        .collect();
    std::fs::write(&manifest, lines.join("\n") + "\n").unwrap();
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/python/msgspec_interop.py"
    );
    venv::run(
        Command::new(&python)
            .arg(script)
            .arg(&manifest)
            .arg(&results),
        "the msgspec script",
    );

    let results: Vec<Value> = std::fs::read_to_string(&results)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(results.len(), cases.len());
    let mut failures = Vec::new();
    for (c, r) in cases.iter().zip(&results) {
        assert_eq!(r["case"], c.name);
        for p in r["problems"].as_array().unwrap() {
            failures.push(format!("{}: msgspec: {}", c.name, p.as_str().unwrap()));
        }
        let theirs = unhex(r["msgpack"].as_str().unwrap());
        if theirs != c.msgpack {
            failures.push(format!(
                "{}: MessagePack differs\n  codec:   {}\n  msgspec: {}",
                c.name,
                hex(&c.msgpack),
                hex(&theirs)
            ));
        }
        let their_json = r["json"].as_str().unwrap();
        if their_json != c.json {
            failures.push(format!(
                "{}: JSON differs\n  codec:   {}\n  msgspec: {their_json}",
                c.name, c.json
            ));
        }
        if let Err(e) = (c.decodes_back)(&theirs, their_json) {
            failures.push(format!(
                "{}: codec cannot read msgspec's encoding: {e}",
                c.name
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} incompatibilities:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
