//! Round trips in both formats of every supported standard type and of
//! derived types, property tests over generated values, and the decoder's
//! behaviour on inputs written differently than codec writes them.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
use std::fmt::Debug;
use std::marker::PhantomData;
use std::net::{IpAddr, SocketAddr};
use std::num::NonZeroU32;
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use codec::{Codec, DecodeErrorKind};
use proptest::prelude::*;

fn round_trip<T: Codec + PartialEq + Debug>(value: T) {
    let bytes = codec::to_msgpack(&value).unwrap();
    assert_eq!(
        codec::from_msgpack::<T>(&bytes).unwrap(),
        value,
        "MessagePack {bytes:02x?}"
    );
    let text = codec::to_json(&value).unwrap();
    assert_eq!(codec::from_json::<T>(&text).unwrap(), value, "JSON {text}");
}

#[test]
fn standard_types() {
    round_trip(true);
    round_trip((i8::MIN, i16::MIN, i32::MIN, i64::MIN, isize::MIN));
    round_trip((u8::MAX, u16::MAX, u32::MAX, u64::MAX, usize::MAX));
    round_trip((i128::from(i64::MIN), u128::from(u64::MAX)));
    round_trip((1.5f32, -2.25f64, f64::MAX, f64::MIN_POSITIVE));
    round_trip(('a', 'é', '𝄞'));
    round_trip(String::from("text with \"quotes\", \\ and \u{1} controls"));
    round_trip(Box::<str>::from("boxed"));
    round_trip(());
    round_trip(vec![1u16, 2, 3]);
    round_trip(VecDeque::from(vec![4u8, 5]));
    round_trip([1u32, 2, 3]);
    round_trip(Box::<[i8]>::from(vec![-1, 0, 1]));
    round_trip((1u8, "two".to_string(), 3.0f64, None::<u8>, Some(vec![true])));
    round_trip(
        [("a".to_string(), 1u8)]
            .into_iter()
            .collect::<HashMap<_, _>>(),
    );
    round_trip(
        [(-5i64, "neg".to_string())]
            .into_iter()
            .collect::<BTreeMap<_, _>>(),
    );
    round_trip([3u32, 1, 2].into_iter().collect::<HashSet<_>>());
    round_trip(
        ["b".to_string(), "a".to_string()]
            .into_iter()
            .collect::<BTreeSet<_>>(),
    );
    round_trip(Some(Box::new(5u8)));
    round_trip(Rc::new(String::from("rc")));
    round_trip(Arc::new(vec![Some(1i64), None]));
    round_trip(Cow::<str>::Owned("cow".into()));
    round_trip(vec![0u8, 255]);
    round_trip(codec::Bytes::from(vec![9, 8, 7]));
    round_trip([1u8, 2, 3, 4]);
    round_trip(PhantomData::<String>);
    round_trip(Duration::new(3, 1));
    round_trip(UNIX_EPOCH + Duration::new(1_700_000_000, 999));
    round_trip(PathBuf::from("/a/b.txt"));
    round_trip("10.0.0.1".parse::<IpAddr>().unwrap());
    round_trip("[::1]:8080".parse::<SocketAddr>().unwrap());
    round_trip(NonZeroU32::new(7).unwrap());
    round_trip(SystemTime::UNIX_EPOCH);
}

#[derive(Codec, Debug, PartialEq, Clone)]
struct Unit;

#[derive(Codec, Debug, PartialEq, Clone)]
struct Newtype(String);

#[derive(Codec, Debug, PartialEq, Clone)]
struct Tuple(u8, i64, String);

#[derive(Codec, Debug, PartialEq, Clone, Default)]
#[codec(rename_all = "kebab-case")]
struct Config {
    max_size: u32,
    #[codec(rename = "lbl", alias = "label", alias = "old_label")]
    label: String,
    #[codec(default = "default_ratio")]
    ratio: f64,
    #[codec(skip)]
    cache: Option<Vec<u8>>,
}

fn default_ratio() -> f64 {
    0.5
}

#[derive(Codec, Debug, PartialEq, Clone)]
#[codec(deny_unknown_fields)]
struct Strict {
    a: u8,
}

#[derive(Codec, Debug, PartialEq, Clone)]
#[codec(default)]
struct AllDefault {
    a: u8,
    b: String,
}

impl Default for AllDefault {
    fn default() -> Self {
        AllDefault {
            a: 7,
            b: "seven".into(),
        }
    }
}

#[derive(Codec, Debug, PartialEq, Clone)]
#[codec(array_like)]
struct Record {
    id: u32,
    name: String,
    #[codec(default)]
    note: Option<String>,
}

#[derive(Codec, Debug, PartialEq, Clone)]
#[codec(tag = "kind", content = "data")]
enum Message {
    #[codec(alias = "Hi")]
    Hello {
        from: String,
    },
    Data(Vec<u8>),
    Coords(i32, i32),
    Nested(Config),
    Ping,
}

#[derive(Codec, Debug, PartialEq, Clone)]
enum Tree<T> {
    Leaf(T),
    Node { children: Vec<Tree<T>> },
}

#[test]
fn derived_types() {
    round_trip(Unit);
    round_trip(Newtype("n".into()));
    round_trip(Tuple(1, -2, "three".into()));
    round_trip(Config {
        max_size: 10,
        label: "l".into(),
        ratio: 2.0,
        cache: None,
    });
    round_trip(Strict { a: 1 });
    round_trip(Record {
        id: 1,
        name: "one".into(),
        note: Some("n".into()),
    });
    for m in [
        Message::Hello { from: "me".into() },
        Message::Data(vec![1, 2]),
        Message::Coords(-1, 1),
        Message::Nested(Config::default()),
        Message::Ping,
    ] {
        round_trip(m);
    }
    round_trip(Tree::Node {
        children: vec![Tree::Leaf(1u8), Tree::Node { children: vec![] }],
    });
    assert_eq!(codec::to_json(&Newtype("n".into())).unwrap(), r#""n""#);
    assert_eq!(codec::to_json(&Unit).unwrap(), "null");
    assert_eq!(
        codec::to_json(&Config {
            max_size: 1,
            label: "x".into(),
            ratio: 1.0,
            cache: Some(vec![1])
        })
        .unwrap(),
        r#"{"max-size":1,"lbl":"x","ratio":1.0}"#
    );
    assert_eq!(
        codec::to_json(&Message::Coords(1, 2)).unwrap(),
        r#"{"kind":"Coords","data":[1,2]}"#
    );
}

#[test]
fn decoding_accepts_what_older_or_other_writers_write() {
    // Aliases, defaults (field, function, container), skipped fields.
    let c: Config = codec::from_json(r#"{"old_label":"x","max-size":3}"#).unwrap();
    assert_eq!(
        c,
        Config {
            max_size: 3,
            label: "x".into(),
            ratio: 0.5,
            cache: None
        }
    );
    let d: AllDefault = codec::from_json(r#"{"a":1}"#).unwrap();
    assert_eq!(
        d,
        AllDefault {
            a: 1,
            b: "seven".into()
        }
    );
    // Unknown fields are skipped, the tag may come last, variant aliases decode.
    let m: Message = codec::from_json(r#"{"extra":[1,{"x":2}],"from":"a","kind":"Hi"}"#).unwrap();
    assert_eq!(m, Message::Hello { from: "a".into() });
    // Ints decode as floats; short array_like records take trailing defaults.
    let f: f64 = codec::from_json("3").unwrap();
    assert_eq!(f, 3.0);
    let one = Record {
        id: 1,
        name: "one".into(),
        note: None,
    };
    assert_eq!(codec::from_json::<Record>(r#"[1,"one"]"#).unwrap(), one);
    assert_eq!(
        codec::from_json::<Record>(r#"[1,"one",null,"extra"]"#).unwrap(),
        one
    );
}

/// A missing field whose type takes nil decodes as nil does, as serde lets a
/// missing `Option` be `None`; `required` keeps msgspec's strictness.
#[test]
fn missing_option_fields_are_none_unless_required() {
    #[derive(Codec, Debug, PartialEq)]
    struct Note {
        text: String,
        author: Option<String>,
        nested: Option<Option<u8>>,
        #[codec(required)]
        strict: Option<u8>,
        #[codec(default = "seven")]
        defaulted: Option<u8>,
    }
    fn seven() -> Option<u8> {
        Some(7)
    }
    let expected = Note {
        text: "t".into(),
        author: None,
        nested: None,
        strict: None,
        defaulted: Some(7),
    };
    assert_eq!(
        codec::from_json::<Note>(r#"{"text":"t","strict":null}"#).unwrap(),
        expected
    );
    // {"text": "t", "strict": nil}
    let msgpack = b"\x82\xa4text\xa1t\xa6strict\xc0";
    assert_eq!(codec::from_msgpack::<Note>(msgpack).unwrap(), expected);
    for err in [
        codec::from_json::<Note>(r#"{"text":"t"}"#).unwrap_err(),
        codec::from_msgpack::<Note>(b"\x81\xa4text\xa1t").unwrap_err(),
    ] {
        assert!(
            matches!(err.kind(), DecodeErrorKind::MissingField { field } if *field == "strict"),
            "{err}"
        );
    }
    let err = codec::from_json::<Note>(r#"{"strict":1}"#).unwrap_err();
    assert!(matches!(err.kind(), DecodeErrorKind::MissingField { field } if *field == "text"));
    let schema = codec::schema_of::<Note>();
    assert_eq!(schema["required"], serde_json::json!(["text", "strict"]));
}

#[test]
fn decoding_refuses_what_does_not_fit() {
    let kind = |e: codec::DecodeError| e.kind().clone();
    assert!(matches!(
        kind(codec::from_json::<Strict>(r#"{"a":1,"b":2}"#).unwrap_err()),
        DecodeErrorKind::UnknownField { .. }
    ));
    assert!(matches!(
        kind(codec::from_json::<Strict>(r#"{"a":1,"a":2}"#).unwrap_err()),
        DecodeErrorKind::DuplicateField { field: "a" }
    ));
    assert!(matches!(
        kind(codec::from_json::<u32>("1.5").unwrap_err()),
        DecodeErrorKind::InvalidType { .. }
    ));
    let e = codec::from_json::<u8>("300").unwrap_err();
    assert!(
        e.to_string().contains("integer 300 is out of range for u8"),
        "{e}"
    );
    let e = codec::from_msgpack::<u32>(&[0xff]).unwrap_err();
    assert!(
        e.to_string().contains("integer -1 is out of range for u32"),
        "{e}"
    );
    assert!(matches!(
        kind(codec::from_json::<Record>(r#"[1]"#).unwrap_err()),
        DecodeErrorKind::InvalidLength { .. }
    ));
    assert!(matches!(
        kind(codec::from_json::<Tuple>(r#"[1,2,"x",4]"#).unwrap_err()),
        DecodeErrorKind::InvalidLength { .. }
    ));
    assert!(matches!(
        kind(codec::from_json::<Message>(r#"{"from":"a"}"#).unwrap_err()),
        DecodeErrorKind::MissingTag { field: "kind" }
    ));
    assert!(matches!(
        kind(codec::from_json::<Message>(r#"{"kind":5}"#).unwrap_err()),
        DecodeErrorKind::InvalidType { .. }
    ));
    assert!(matches!(
        kind(codec::from_json::<u8>("1 2").unwrap_err()),
        DecodeErrorKind::TrailingBytes { .. }
    ));
    assert!(matches!(
        kind(codec::from_msgpack::<u8>(&[1, 2]).unwrap_err()),
        DecodeErrorKind::TrailingBytes { count: 1 }
    ));
    #[derive(Codec, Debug)]
    struct Items {
        items: Vec<Message>,
    }
    let e = codec::from_json::<Items>(r#"{"items":[{"kind":"Ping"},{"kind":"Hello","from":7}]}"#)
        .unwrap_err();
    assert_eq!(e.path(), "$.items[1].from");
    let e = codec::from_msgpack::<Vec<Tuple>>(&[0x91, 0x93, 0x01, 0x02, 0x03]).unwrap_err();
    assert_eq!(e.path(), "$[0][2]");
}

#[test]
fn equal_values_give_equal_bytes() {
    let mut a = HashMap::new();
    let mut b = HashMap::new();
    for i in 0..100u32 {
        a.insert(i.to_string(), i);
    }
    for i in (0..100u32).rev() {
        b.insert(i.to_string(), i);
    }
    assert_eq!(
        codec::to_msgpack(&a).unwrap(),
        codec::to_msgpack(&b).unwrap()
    );
    assert_eq!(codec::to_json(&a).unwrap(), codec::to_json(&b).unwrap());
}

#[derive(Codec, Debug, PartialEq, Clone)]
enum Shape {
    Circle { r: f64 },
    Poly(Vec<(i32, i32)>),
    Named(Newtype),
    Empty,
}

#[derive(Codec, Debug, PartialEq, Clone)]
struct Scene {
    name: String,
    shapes: Vec<Shape>,
    tags: BTreeMap<String, u64>,
    ids: HashSet<i64>,
    blob: Vec<u8>,
    score: Option<f32>,
}

fn shape() -> impl Strategy<Value = Shape> {
    prop_oneof![
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|r| Shape::Circle { r }),
        prop::collection::vec(any::<(i32, i32)>(), 0..4).prop_map(Shape::Poly),
        ".*".prop_map(|s| Shape::Named(Newtype(s))),
        Just(Shape::Empty),
    ]
}

fn scene() -> impl Strategy<Value = Scene> {
    (
        ".*",
        prop::collection::vec(shape(), 0..5),
        prop::collection::btree_map(".{0,8}", any::<u64>(), 0..4),
        prop::collection::hash_set(any::<i64>(), 0..4),
        prop::collection::vec(any::<u8>(), 0..16),
        prop::option::of(any::<f32>().prop_filter("finite", |f| f.is_finite())),
    )
        .prop_map(|(name, shapes, tags, ids, blob, score)| Scene {
            name,
            shapes,
            tags,
            ids,
            blob,
            score,
        })
}

fn tree() -> impl Strategy<Value = Tree<i16>> {
    any::<i16>()
        .prop_map(Tree::Leaf)
        .prop_recursive(6, 64, 4, |inner| {
            prop::collection::vec(inner, 0..4).prop_map(|children| Tree::Node { children })
        })
}

proptest! {
    #[test]
    fn generated_scenes_round_trip(value in scene()) {
        let bytes = codec::to_msgpack(&value).unwrap();
        prop_assert_eq!(codec::from_msgpack::<Scene>(&bytes).unwrap(), value.clone());
        let text = codec::to_json(&value).unwrap();
        prop_assert_eq!(codec::from_json::<Scene>(&text).unwrap(), value.clone());
        // Deterministic: encoding the decoded value gives the same bytes.
        prop_assert_eq!(codec::to_msgpack(&codec::from_msgpack::<Scene>(&bytes).unwrap()).unwrap(), bytes);
    }

    #[test]
    fn generated_trees_round_trip(value in tree()) {
        let bytes = codec::to_msgpack(&value).unwrap();
        prop_assert_eq!(codec::from_msgpack::<Tree<i16>>(&bytes).unwrap(), value.clone());
        let text = codec::to_json(&value).unwrap();
        prop_assert_eq!(codec::from_json::<Tree<i16>>(&text).unwrap(), value);
    }

    #[test]
    fn any_string_and_float_round_trip(s in any::<String>(), f in any::<f64>().prop_filter("finite", |f| f.is_finite())) {
        round_trip((s, f));
    }
}

#[derive(Codec, Debug, PartialEq, Clone, PartialOrd, Ord, Eq, Hash)]
struct UserId(u32);

#[derive(Codec, Debug, PartialEq, Clone, PartialOrd, Ord, Eq, Hash)]
enum Slot {
    #[codec(tag = 1)]
    First,
    #[codec(tag = 2)]
    Second,
}

#[derive(Codec, Debug, PartialEq, Clone)]
#[codec(array_like)]
struct Sparse {
    a: u8,
    #[codec(skip)]
    cache: Vec<u8>,
    b: String,
}

#[test]
fn map_keys_newtypes_int_tags_and_skipped_array_elements() {
    let by_user: BTreeMap<UserId, String> =
        [(UserId(7), "seven".to_string())].into_iter().collect();
    assert_eq!(codec::to_json(&by_user).unwrap(), r#"{"7":"seven"}"#);
    round_trip(by_user);
    let by_slot: BTreeMap<Slot, u8> = [(Slot::Second, 2), (Slot::First, 1)].into_iter().collect();
    assert_eq!(codec::to_json(&by_slot).unwrap(), r#"{"1":1,"2":2}"#);
    round_trip(by_slot);
    let s = Sparse {
        a: 1,
        cache: vec![9],
        b: "b".into(),
    };
    assert_eq!(codec::to_json(&s).unwrap(), r#"[1,"b"]"#);
    let back: Sparse = codec::from_json(r#"[1,"b"]"#).unwrap();
    assert_eq!(
        back,
        Sparse {
            a: 1,
            cache: vec![],
            b: "b".into()
        }
    );
    let back: Sparse = codec::from_msgpack(&codec::to_msgpack(&s).unwrap()).unwrap();
    assert_eq!(
        back,
        Sparse {
            a: 1,
            cache: vec![],
            b: "b".into()
        }
    );
}
