//! Exact bytes of the wire conventions, as msgspec writes them.

use std::collections::{BTreeMap, HashMap, HashSet};

use codec::Codec;

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn msgpack_hex<T: Codec>(value: &T) -> String {
    hex(&codec::to_msgpack(value).unwrap())
}

#[derive(Codec, Debug, PartialEq)]
enum Tagged {
    A {
        x: i64,
    },
    #[codec(rename = "bee")]
    B {
        y: String,
    },
}

#[derive(Codec, Debug, PartialEq)]
#[codec(array_like)]
enum Arrays {
    AL(i64, String),
}

#[derive(Codec, Debug, PartialEq)]
#[codec(array_like)]
enum ArrayStructs {
    AL { a: i64, b: String },
}

#[test]
fn tagged_struct_variant_writes_the_tag_first() {
    assert_eq!(msgpack_hex(&Tagged::A { x: 1 }), "82a474797065a141a17801");
    assert_eq!(
        codec::to_json(&Tagged::A { x: 1 }).unwrap(),
        r#"{"type":"A","x":1}"#
    );
}

#[test]
fn renamed_variant_uses_its_wire_name() {
    let v = Tagged::B { y: "hi".into() };
    assert_eq!(msgpack_hex(&v), "82a474797065a3626565a179a26869");
    assert_eq!(codec::to_json(&v).unwrap(), r#"{"type":"bee","y":"hi"}"#);
}

#[test]
fn array_like_enum_puts_the_tag_first_in_the_array() {
    assert_eq!(msgpack_hex(&Arrays::AL(1, "x".into())), "93a2414c01a178");
    assert_eq!(
        msgpack_hex(&ArrayStructs::AL {
            a: 1,
            b: "x".into()
        }),
        "93a2414c01a178"
    );
    assert_eq!(
        codec::to_json(&Arrays::AL(1, "x".into())).unwrap(),
        r#"["AL",1,"x"]"#
    );
}

#[test]
fn integers_take_the_shortest_form() {
    assert_eq!(msgpack_hex(&127u32), "7f");
    assert_eq!(msgpack_hex(&128u32), "cc80");
    assert_eq!(msgpack_hex(&-33i32), "d0df");
    assert_eq!(msgpack_hex(&-32i64), "e0");
    assert_eq!(msgpack_hex(&65536u64), "ce00010000");
    assert_eq!(msgpack_hex(&(1u64 << 32)), "cf0000000100000000");
    assert_eq!(msgpack_hex(&i64::MIN), "d38000000000000000");
}

#[test]
fn floats_bytes_and_none() {
    assert_eq!(msgpack_hex(&1.5f64), "cb3ff8000000000000");
    assert_eq!(msgpack_hex(&1.5f32), "ca3fc00000");
    assert_eq!(msgpack_hex(&vec![1u8, 2, 3]), "c403010203");
    assert_eq!(msgpack_hex(&Option::<u32>::None), "c0");
    assert_eq!(codec::to_json(&vec![1u8, 2, 3]).unwrap(), r#""AQID""#);
}

#[test]
fn non_finite_floats_are_json_null_as_msgspec_writes_them() {
    for v in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        assert_eq!(codec::to_json(&v).unwrap(), "null");
        assert_eq!(codec::to_json(&(v as f32)).unwrap(), "null");
    }
    assert_eq!(codec::to_json(&vec![1.5, f64::NAN]).unwrap(), "[1.5,null]");
    assert_eq!(codec::to_json(&-0.0f64).unwrap(), "-0.0");
    // MessagePack keeps them.
    assert_eq!(msgpack_hex(&f64::INFINITY), "cb7ff0000000000000");
}

#[test]
fn sets_and_hash_maps_are_sorted() {
    let set: HashSet<u32> = [300, 5, 70, 1].into_iter().collect();
    assert_eq!(msgpack_hex(&set), "94010546cd012c");
    let map: HashMap<String, u32> = [("b".to_string(), 2), ("a".to_string(), 1)]
        .into_iter()
        .collect();
    assert_eq!(codec::to_json(&map).unwrap(), r#"{"a":1,"b":2}"#);
    let ints: BTreeMap<i32, bool> = [(2, true), (-1, false)].into_iter().collect();
    assert_eq!(codec::to_json(&ints).unwrap(), r#"{"-1":false,"2":true}"#);
    assert_eq!(
        codec::from_json::<BTreeMap<i32, bool>>(r#"{"-1":false,"2":true}"#).unwrap(),
        ints
    );
}

#[derive(Codec, Debug, PartialEq)]
struct Point {
    x: i64,
    y: i64,
}

#[derive(Codec, Debug, PartialEq)]
enum Shape {
    Dot(Point),
    Label(String),
    Pair(u8, u8),
    Empty,
}

#[test]
fn newtype_variants_merge_struct_payloads_and_nest_others() {
    let dot = Shape::Dot(Point { x: 1, y: 2 });
    assert_eq!(
        codec::to_json(&dot).unwrap(),
        r#"{"type":"Dot","x":1,"y":2}"#
    );
    assert_eq!(msgpack_hex(&dot), "83a474797065a3446f74a17801a17902");
    let label = Shape::Label("hi".into());
    assert_eq!(
        codec::to_json(&label).unwrap(),
        r#"{"type":"Label","value":"hi"}"#
    );
    assert_eq!(
        codec::to_json(&Shape::Pair(1, 2)).unwrap(),
        r#"{"type":"Pair","value":[1,2]}"#
    );
    assert_eq!(
        codec::to_json(&Shape::Empty).unwrap(),
        r#"{"type":"Empty"}"#
    );
    for shape in [dot, label, Shape::Pair(1, 2), Shape::Empty] {
        let bytes = codec::to_msgpack(&shape).unwrap();
        assert_eq!(codec::from_msgpack::<Shape>(&bytes).unwrap(), shape);
        let text = codec::to_json(&shape).unwrap();
        assert_eq!(codec::from_json::<Shape>(&text).unwrap(), shape);
    }
}

#[test]
fn the_tag_may_come_anywhere_in_the_map() {
    let v: Shape = codec::from_json(r#"{"x":1,"y":2,"type":"Dot"}"#).unwrap();
    assert_eq!(v, Shape::Dot(Point { x: 1, y: 2 }));
    let v: Tagged = codec::from_json(r#"{"y":"hi","type":"bee"}"#).unwrap();
    assert_eq!(v, Tagged::B { y: "hi".into() });
    // {"x": 1, "type": "A"}
    let v: Tagged = codec::from_msgpack(&[
        0x82, 0xa1, b'x', 0x01, 0xa4, b't', b'y', b'p', b'e', 0xa1, b'A',
    ])
    .unwrap();
    assert_eq!(v, Tagged::A { x: 1 });
}

#[derive(Codec, Debug, PartialEq)]
struct Three {
    a: i64,
    #[codec(alias = "bb")]
    b: String,
    #[codec(default)]
    c: Option<i64>,
}

#[test]
fn keys_in_any_order_spelling_or_spacing_decode_alike() {
    let want = Three {
        a: 1,
        b: "x".into(),
        c: Some(3),
    };
    for text in [
        r#"{"a":1,"b":"x","c":3}"#,
        r#"{ "a" : 1 , "b" : "x" , "c" : 3 }"#,
        r#"{"c":3,"b":"x","a":1}"#,
        r#"{"a":1,"c":3,"b":"x"}"#,
        r#"{"a":1,"bb":"x","c":3}"#,
        r#"{"\u0061":1,"b":"x","c":3}"#,
        r#"{"a":1,"zz":[1,{"b":2}],"b":"x","c":3}"#,
    ] {
        assert_eq!(codec::from_json::<Three>(text).unwrap(), want, "{text}");
    }
    for bytes in [
        &b"\x83\xa1a\x01\xa1b\xa1x\xa1c\x03"[..],
        b"\x83\xa1c\x03\xa1b\xa1x\xa1a\x01",
        b"\x83\xa1a\x01\xa2bb\xa1x\xa1c\x03",
        // "a" as str8 instead of fixstr, and an unknown key in the middle.
        b"\x84\xd9\x01a\x01\xa2zz\x91\x80\xa1b\xa1x\xa1c\x03",
    ] {
        assert_eq!(
            codec::from_msgpack::<Three>(bytes).unwrap(),
            want,
            "{bytes:x?}"
        );
    }
    let partial = codec::from_json::<Three>(r#"{"a":1,"b":"x"}"#).unwrap();
    assert_eq!(partial.c, None);
    // A key repeated right after its in-order read is still a duplicate.
    let err = codec::from_json::<Three>(r#"{"a":1,"a":2,"b":"x"}"#).unwrap_err();
    assert!(err.to_string().contains("duplicate"), "{err}");
    let err = codec::from_msgpack::<Three>(b"\x83\xa1a\x01\xa1a\x02\xa1b\xa1x").unwrap_err();
    assert!(err.to_string().contains("duplicate"), "{err}");
    // A map shorter than its in-order fields.
    let err = codec::from_msgpack::<Three>(b"\x81\xa1a\x01").unwrap_err();
    assert!(err.to_string().contains("missing"), "{err}");
}

#[derive(Codec, Debug, PartialEq)]
enum Color {
    Red,
    #[codec(rename = "verde")]
    Green,
}

#[derive(Codec, Debug, PartialEq)]
enum Level {
    #[codec(tag = 1)]
    Low,
    #[codec(tag = 2)]
    High,
}

#[test]
fn unit_only_enums_are_their_names_or_ints() {
    assert_eq!(codec::to_json(&Color::Green).unwrap(), r#""verde""#);
    assert_eq!(msgpack_hex(&Color::Red), "a3526564");
    assert_eq!(msgpack_hex(&Level::High), "02");
    assert_eq!(codec::from_json::<Level>("1").unwrap(), Level::Low);
    let map: BTreeMap<String, Color> = [("a".into(), Color::Red)].into_iter().collect();
    assert_eq!(codec::to_json(&map).unwrap(), r#"{"a":"Red"}"#);
}

#[test]
fn errors_say_what_where_and_what_was_found() {
    #[derive(Codec, Debug)]
    struct Log {
        events: Vec<Tagged>,
    }
    let err = codec::from_json::<Log>(r#"{"events":[{"type":"A","x":1},{"type":"bee","y":5}]}"#)
        .unwrap_err();
    assert_eq!(err.path(), "$.events[1].y");
    assert!(
        err.to_string()
            .contains("expected a string, found an integer"),
        "{err}"
    );
    let err = codec::from_json::<Tagged>(r#"{"type":"C"}"#).unwrap_err();
    assert!(
        err.to_string()
            .contains("unknown tag `C`, expected one of `A`, `bee`"),
        "{err}"
    );
    let err = codec::from_json::<Point>(r#"{"x":1}"#).unwrap_err();
    assert!(err.to_string().contains("missing field `y`"), "{err}");
    let err = codec::from_msgpack::<u32>(&[0x01, 0x02]).unwrap_err();
    assert!(err.to_string().contains("1 trailing bytes"), "{err}");
}

#[test]
fn borrowed_text_and_slices_encode_as_the_owned_values() {
    let text: &str = "héllo";
    let owned = text.to_string();
    assert_eq!(codec::to_json(text).unwrap(), r#""héllo""#);
    assert_eq!(
        codec::to_json(&text).unwrap(),
        codec::to_json(&owned).unwrap()
    );
    assert_eq!(
        codec::to_msgpack(&text).unwrap(),
        codec::to_msgpack(&owned).unwrap()
    );
    let ids = [1u32, 300, 70_000];
    let slice: &[u32] = &ids;
    assert_eq!(
        codec::to_msgpack(&slice).unwrap(),
        codec::to_msgpack(&ids.to_vec()).unwrap()
    );
    assert_eq!(codec::to_json(slice).unwrap(), "[1,300,70000]");
    // Bytes stay `bin` / base64 when borrowed.
    let bytes: &[u8] = b"\x00\xff";
    assert_eq!(hex(&codec::to_msgpack(&bytes).unwrap()), "c40200ff");
    assert_eq!(codec::to_json(&bytes).unwrap(), r#""AP8=""#);
    let mut buf = Vec::new();
    codec::to_msgpack_into(&text, &mut buf).unwrap();
    assert_eq!(buf, codec::to_msgpack(&owned).unwrap());
    assert_eq!(
        codec::to_json_vec(&slice).unwrap(),
        codec::to_json_vec(&ids.to_vec()).unwrap()
    );
}

/// Both encodings of `borrowed` equal those of `owned`.
#[track_caller]
fn encodes_as<B: codec::Encode + ?Sized, O: Codec>(borrowed: &B, owned: &O) {
    assert_eq!(
        hex(&codec::to_msgpack(borrowed).unwrap()),
        hex(&codec::to_msgpack(owned).unwrap())
    );
    assert_eq!(
        codec::to_json(borrowed).unwrap(),
        codec::to_json(owned).unwrap()
    );
}

#[test]
fn tuples_and_containers_of_references_encode_as_the_owned_values() {
    assert_eq!(codec::to_json(&("x", 1u8)).unwrap(), r#"["x",1]"#);
    encodes_as(&("x", 1u8), &("x".to_string(), 1u8));

    let model = Tagged::A { x: 3 };
    let words: &[&str] = &["a", "bc"];
    encodes_as(&words, &vec!["a".to_string(), "bc".to_string()]);
    encodes_as(
        &(&model, words, 2u64),
        &(
            Tagged::A { x: 3 },
            vec!["a".to_string(), "bc".to_string()],
            2u64,
        ),
    );
    // References to references, boxes of borrowed text, `Option`s, `Vec`s
    // and arrays of references.
    let text: &&&str = &&"t";
    encodes_as(&text, &"t".to_string());
    encodes_as(&(&&model,), &(Tagged::A { x: 3 },));
    encodes_as(&Some("t"), &Some("t".to_string()));
    encodes_as(
        &(None::<&str>, [Some(&1u8)]),
        &(None::<String>, [Some(1u8)]),
    );
    encodes_as(&vec!["a", "b"], &vec!["a".to_string(), "b".to_string()]);
    encodes_as(&["a", "b"], &["a".to_string(), "b".to_string()]);
    let boxed: Box<str> = "t".into();
    encodes_as(
        &(&boxed, std::rc::Rc::<str>::from("u")),
        &("t".to_string(), "u".to_string()),
    );

    // Borrowed bytes stay `bin` / base64, inside a tuple too.
    let bytes: &[u8] = b"\x00\xff";
    encodes_as(&(bytes, "k"), &(vec![0u8, 0xff], "k".to_string()));
    assert_eq!(hex(&codec::to_msgpack(&(bytes,)).unwrap()), "91c40200ff");

    let mut buf = Vec::new();
    codec::to_msgpack_into(&("x", 1u8), &mut buf).unwrap();
    assert_eq!(buf, codec::to_msgpack(&("x".to_string(), 1u8)).unwrap());
    assert_eq!(
        codec::content_hash(&("x", words)).unwrap(),
        codec::content_hash(&("x".to_string(), vec!["a".to_string(), "bc".to_string()])).unwrap()
    );
}

#[test]
fn content_hashes_take_borrowed_text_as_the_owned_text() {
    let text: &str = "some text";
    let owned = text.to_string();
    assert_eq!(
        codec::ContentHash::new().part(&text).finish().unwrap(),
        codec::ContentHash::new().part(&owned).finish().unwrap()
    );
    assert_eq!(
        codec::content_hash(&text).unwrap(),
        codec::content_hash(&owned).unwrap()
    );
    let ids: &[u32] = &[1, 2];
    assert_eq!(
        codec::ContentHash::new().part(&ids).finish().unwrap(),
        codec::content_hash(&(vec![1u32, 2],)).unwrap()
    );
}

#[test]
fn unknown_json_fields_of_every_form_are_skipped() {
    #[derive(Codec, Debug, PartialEq)]
    struct Known {
        a: u8,
    }
    let forms = [
        "null",
        "true",
        "false",
        "0",
        "-1.5e3",
        r#""h\"i\u00e9""#,
        "[]",
        "{}",
        r#"[null, true, false, 1, "s", [[]], {"k": [false]}]"#,
        r#"{"k": null, "l": {"m": [true, 2.5, "x"]}}"#,
    ];
    for form in forms {
        for text in [
            format!(r#"{{"x": {form}, "a": 5}}"#),
            format!(r#"{{"a": 5, "x": {form}}}"#),
        ] {
            assert_eq!(
                codec::from_json::<Known>(&text).unwrap(),
                Known { a: 5 },
                "{text}"
            );
        }
    }
}

#[test]
fn markers_next_to_the_fixint_ranges_are_not_integers() {
    // 0x7f is the last positive fixint and 0xe0 the first negative one;
    // 0x80 (an empty map) and 0xdf (a map32) border them.
    assert_eq!(codec::from_msgpack::<u64>(&[0x7f]).unwrap(), 127);
    assert_eq!(codec::from_msgpack::<i64>(&[0xe0]).unwrap(), -32);
    for bytes in [&[0x80][..], &[0xdf, 0, 0, 0, 0]] {
        let err = codec::from_msgpack::<u64>(bytes).unwrap_err().to_string();
        assert!(err.contains("integer"), "{bytes:x?}: {err}");
        assert!(codec::from_msgpack::<i64>(bytes).is_err(), "{bytes:x?}");
    }
}

#[test]
fn untagged_variants_of_json_null_and_booleans_are_told_apart() {
    #[derive(Codec, Debug, PartialEq)]
    #[codec(untagged)]
    enum Loose {
        Nothing,
        Flag(bool),
        Text(String),
    }
    assert_eq!(codec::from_json::<Loose>("null").unwrap(), Loose::Nothing);
    assert_eq!(
        codec::from_json::<Loose>("true").unwrap(),
        Loose::Flag(true)
    );
    assert_eq!(
        codec::from_json::<Loose>("false").unwrap(),
        Loose::Flag(false)
    );
    assert_eq!(
        codec::from_json::<Loose>(r#""n""#).unwrap(),
        Loose::Text("n".into())
    );
}

#[test]
fn a_json_number_of_the_wrong_kind_is_named_in_the_error() {
    let err = codec::from_json::<u32>("1.5").unwrap_err().to_string();
    assert!(err.contains("found a float"), "{err}");
    let err = codec::from_json::<String>("1.5").unwrap_err().to_string();
    assert!(err.contains("found a float"), "{err}");
    let err = codec::from_json::<String>("-3").unwrap_err().to_string();
    assert!(err.contains("found an integer"), "{err}");
}
