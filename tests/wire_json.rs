//! The JSON reader at the edges: numbers at the limits of their types,
//! strings and escapes, object and array syntax, and the words and offsets
//! of its errors.

use codec::msgpack::Integer;
use codec::{Codec, DecodeErrorKind, JsonReader};

fn json_err<T: Codec + std::fmt::Debug>(text: &str) -> codec::DecodeError {
    codec::from_json::<T>(text).unwrap_err()
}

fn out_of_range(value: &str, target: &'static str) -> DecodeErrorKind {
    DecodeErrorKind::IntOutOfRange {
        value: value.into(),
        target,
    }
}

fn syntax(message: &'static str) -> DecodeErrorKind {
    DecodeErrorKind::Syntax {
        message: message.into(),
    }
}

#[derive(Codec, Debug, PartialEq)]
#[codec(untagged)]
enum Any {
    Nothing,
    Flag(bool),
    Int(i64),
    Float(f64),
    Text(String),
    List(Vec<i64>),
    Record { a: i64 },
}

#[test]
fn untagged_variants_of_every_json_kind_are_told_apart() {
    let cases = [
        ("null", Any::Nothing),
        (" true", Any::Flag(true)),
        ("false", Any::Flag(false)),
        ("7", Any::Int(7)),
        ("-7", Any::Int(-7)),
        ("0", Any::Int(0)),
        ("2.5", Any::Float(2.5)),
        ("-1e2", Any::Float(-100.0)),
        (r#""s""#, Any::Text("s".into())),
        ("[1, 2]", Any::List(vec![1, 2])),
        (r#"{"a": 3}"#, Any::Record { a: 3 }),
    ];
    for (text, want) in cases {
        assert_eq!(codec::from_json::<Any>(text).unwrap(), want, "{text}");
    }
}

#[test]
fn integers_at_the_limits_of_64_bits_decode() {
    assert_eq!(
        codec::from_json::<i64>("-9223372036854775808").unwrap(),
        i64::MIN
    );
    assert_eq!(
        codec::from_json::<i64>("-9223372036854775807").unwrap(),
        i64::MIN + 1
    );
    assert_eq!(
        codec::from_json::<i64>("9223372036854775807").unwrap(),
        i64::MAX
    );
    assert_eq!(
        codec::from_json::<u64>("18446744073709551615").unwrap(),
        u64::MAX
    );
    assert_eq!(
        codec::from_json::<u64>("9999999999999999999").unwrap(),
        9_999_999_999_999_999_999
    );
    assert_eq!(
        codec::from_json::<u64>("10000000000000000000").unwrap(),
        10_000_000_000_000_000_000
    );
    assert_eq!(
        codec::from_json::<u64>("1234567890").unwrap(),
        1_234_567_890
    );
    assert_eq!(codec::from_json::<i32>("-45").unwrap(), -45);
    assert_eq!(codec::from_json::<i64>("-0").unwrap(), 0);
    assert_eq!(codec::from_json::<u64>(" 0 ").unwrap(), 0);
}

#[test]
fn integers_of_every_digit_count_decode_alone_and_in_arrays() {
    // Digits are read eight at a time where they can be: every count from
    // 1 to 26 meets that read at each of its boundaries; past 19 digits,
    // each must be checked for overflow.
    let digits = "98765432109876543210987654";
    for n in 1..=26 {
        let text = &digits[..n];
        let expected: u64 = text.parse().unwrap_or(0);
        if n < 20 {
            assert_eq!(codec::from_json::<u64>(text).unwrap(), expected, "{text}");
            let array = format!("[{text},{text}1,-{text}]");
            if n < 18 {
                let decoded = codec::from_json::<Vec<i64>>(&array).unwrap();
                let e = expected as i64;
                assert_eq!(decoded, [e, e * 10 + 1, -e], "{array}");
            }
            let mut followed = text.to_owned();
            followed.push_str("12345678x");
            assert!(codec::from_json::<u64>(&followed).is_err(), "{followed}");
        } else {
            assert!(codec::from_json::<u64>(text).is_err(), "{text} is past u64");
        }
        let float = format!("{text}.5");
        assert!(codec::from_json::<u64>(&float).is_err(), "{float}");
    }
}

#[test]
fn integers_past_64_bits_are_out_of_range_with_their_text() {
    for (text, target) in [
        ("18446744073709551616", "u64"),
        ("99999999999999999999", "u64"),
        ("123456789012345678901234", "u64"),
        ("-9223372036854775809", "i64"),
        ("-99999999999999999999", "i64"),
        ("18446744073709551616", "u8"),
    ] {
        let err = match target {
            "u64" => json_err::<u64>(text),
            "i64" => json_err::<i64>(text),
            _ => json_err::<u8>(text),
        };
        assert_eq!(err.kind(), &out_of_range(text, target), "{text}");
        assert_eq!(err.offset(), Some(0), "{text}");
    }
    let err = json_err::<Vec<u16>>("[1, 70000]");
    assert_eq!(err.kind(), &out_of_range("70000", "u16"));
    assert_eq!(err.offset(), Some(4));
    assert_eq!(err.path(), "$[1]");
    let err = json_err::<u32>("-1");
    assert_eq!(err.kind(), &out_of_range("-1", "u32"));
    let value = json_err::<codec::Value>("-9223372036854775809");
    assert!(matches!(
        value.kind(),
        DecodeErrorKind::IntOutOfRange { .. }
    ));
}

#[test]
fn a_negative_zero_is_read_as_zero() {
    let mut r = JsonReader::new("-0");
    assert_eq!(r.read_integer().unwrap(), Integer::Pos(0));
    let mut r = JsonReader::new("-5");
    assert_eq!(r.read_integer().unwrap(), Integer::Neg(-5));
    let mut r = JsonReader::new("5");
    assert_eq!(r.read_integer().unwrap(), Integer::Pos(5));
    assert_eq!(r.position(), 1);
}

#[test]
fn malformed_integers_are_syntax_errors() {
    let leading_zero = syntax("malformed number: leading zero");
    assert_eq!(json_err::<u32>("01").kind(), &leading_zero);
    assert_eq!(json_err::<i32>("-01").kind(), &leading_zero);
    assert_eq!(json_err::<u32>("00").kind(), &leading_zero);
    assert_eq!(json_err::<i32>("-").kind(), &syntax("malformed number"));
    assert_eq!(json_err::<i32>("-x").kind(), &syntax("malformed number"));
    assert_eq!(json_err::<u32>("1e").kind(), &syntax("malformed number"));
    assert_eq!(codec::from_json::<u32>("10").unwrap(), 10);
    assert_eq!(codec::from_json::<u32>("[0]").ok(), None);
    assert_eq!(codec::from_json::<Vec<u32>>("[0,10]").unwrap(), vec![0, 10]);
}

#[test]
fn a_value_of_the_wrong_kind_is_named_in_the_error() {
    for (text, found) in [
        ("null", "null"),
        ("true", "a boolean"),
        ("false", "a boolean"),
        (r#""7""#, "a string"),
        ("[7]", "an array"),
        (r#"{"a": 7}"#, "an object"),
        ("x", "invalid JSON"),
        ("1.5", "a float"),
    ] {
        let err = json_err::<u32>(text);
        assert_eq!(
            err.kind(),
            &DecodeErrorKind::InvalidType {
                expected: "an integer".into(),
                found: found.into(),
            },
            "{text}"
        );
    }
    let err = json_err::<bool>(" 1");
    assert_eq!(
        err.kind(),
        &DecodeErrorKind::InvalidType {
            expected: "a boolean".into(),
            found: "an integer".into(),
        }
    );
    assert_eq!(err.offset(), Some(1));
    let err = json_err::<f64>(r#""1.5""#);
    assert_eq!(
        err.kind(),
        &DecodeErrorKind::InvalidType {
            expected: "a float".into(),
            found: "a string".into(),
        }
    );
    let err = json_err::<i128>("true");
    assert_eq!(
        err.kind(),
        &DecodeErrorKind::InvalidType {
            expected: "a number".into(),
            found: "a boolean".into(),
        }
    );
    let err = json_err::<()>("0");
    assert_eq!(
        err.kind(),
        &DecodeErrorKind::InvalidType {
            expected: "null".into(),
            found: "an integer".into(),
        }
    );
}

#[test]
fn literals_must_be_whole() {
    assert!(codec::from_json::<bool>("true").unwrap());
    assert!(!codec::from_json::<bool>(" false ").unwrap());
    for bad in ["tru", "fals", "t", "nul", "True", "f0"] {
        assert!(codec::from_json::<bool>(bad).is_err(), "{bad}");
        assert!(codec::from_json::<Option<bool>>(bad).is_err(), "{bad}");
    }
    assert_eq!(codec::from_json::<Option<bool>>(" null").unwrap(), None);
    assert_eq!(codec::from_json::<Option<u8>>("4").unwrap(), Some(4));
    assert_eq!(codec::from_json::<()>("null").unwrap(), ());
    assert_eq!(
        codec::from_json::<Vec<Option<bool>>>("[null,true,null,false]").unwrap(),
        vec![None, Some(true), None, Some(false)]
    );
}

#[test]
fn floats_and_wide_integers_read_their_whole_text() {
    assert_eq!(codec::from_json::<f64>("-1.5e3").unwrap(), -1500.0);
    assert_eq!(codec::from_json::<f64>(" 2").unwrap(), 2.0);
    assert_eq!(codec::from_json::<f64>("0.25").unwrap(), 0.25);
    assert_eq!(
        codec::from_json::<Vec<f64>>("[1,-2.5]").unwrap(),
        vec![1.0, -2.5]
    );
    assert_eq!(
        codec::from_json::<i128>("-170141183460469231731687303715884105728").unwrap(),
        i128::MIN
    );
    assert_eq!(
        codec::from_json::<u128>("340282366920938463463374607431768211455").unwrap(),
        u128::MAX
    );
    assert_eq!(codec::from_json::<i128>("-12").unwrap(), -12);
    assert_eq!(codec::from_json::<i128>("3").unwrap(), 3);
    let err = json_err::<Vec<u128>>("[1, 2, 1.5]");
    assert_eq!(err.kind(), &out_of_range("1.5", "u128"));
    assert_eq!(err.offset(), Some(7));
}

#[test]
fn trailing_bytes_are_counted() {
    assert_eq!(
        json_err::<u32>("1  xyz").kind(),
        &DecodeErrorKind::TrailingBytes { count: 3 }
    );
    assert_eq!(
        json_err::<Vec<u32>>("[1] [2]").kind(),
        &DecodeErrorKind::TrailingBytes { count: 3 }
    );
    assert_eq!(codec::from_json::<u32>(" 1 \n\t\r ").unwrap(), 1);
}

#[test]
fn raw_json_values_keep_their_exact_text() {
    for text in [
        "[1, 2]",
        r#"{"a": [true, null], "b": "x\"y"}"#,
        "-1.5e3",
        "null",
        r#""plain""#,
    ] {
        let raw = codec::Raw::from_json(&format!(" \n{text} ")).unwrap();
        assert_eq!(raw.as_bytes(), text.as_bytes(), "{text}");
    }
    #[derive(Codec, Debug, PartialEq)]
    struct Holder {
        first: codec::Raw,
        second: u8,
    }
    let held: Holder = codec::from_json(r#"{"first": {"k": [1]}, "second": 2}"#).unwrap();
    assert_eq!(held.first.as_bytes(), br#"{"k": [1]}"#);
    assert_eq!(held.second, 2);
}

#[test]
fn strings_of_every_length_end_at_their_quote() {
    // The scan takes 8 bytes at a time and the rest one by one: every
    // length puts the closing quote, an escape and a multi-byte character
    // in the word part and in the tail.
    for len in 0..20 {
        let plain: String = "abcdéfghijklmnopqrstuvwxyz".chars().take(len).collect();
        let text = format!(r#"["{plain}", 1]"#);
        let (s, n): (String, u8) = codec::from_json(&text).unwrap();
        assert_eq!((s.as_str(), n), (plain.as_str(), 1), "{text}");
        for at in 0..=plain.chars().count() {
            let mut escaped: String = plain.chars().take(at).collect();
            escaped.push_str(r"\n");
            escaped.extend(plain.chars().skip(at));
            let mut want: String = plain.chars().take(at).collect();
            want.push('\n');
            want.extend(plain.chars().skip(at));
            let text = format!(r#"["{escaped}", 2]"#);
            let (s, n): (String, u8) = codec::from_json(&text).unwrap();
            assert_eq!((s.as_str(), n), (want.as_str(), 2), "{text}");
        }
    }
}

#[test]
fn every_escape_reads_as_its_character() {
    assert_eq!(
        codec::from_json::<String>(r#""\"\\\/\b\f\n\r\t""#).unwrap(),
        "\"\\/\u{8}\u{c}\n\r\t"
    );
    assert_eq!(
        codec::from_json::<String>(r#""a\u00e9b\u00C9\u0041\u20ac""#).unwrap(),
        "aébÉA€"
    );
    assert_eq!(
        codec::from_json::<String>(r#""x\ud834\udd1ey\uDBFF\uDFFF""#).unwrap(),
        "x𝄞y\u{10ffff}"
    );
    assert_eq!(
        codec::from_json::<String>(r#""\uffff\u0000\ue000""#).unwrap(),
        "\u{ffff}\u{0}\u{e000}"
    );
    assert_eq!(
        codec::from_json::<Vec<String>>(r#"["\\", "é\"", "tail after\t an escape"]"#).unwrap(),
        vec!["\\", "é\"", "tail after\t an escape"]
    );
}

#[test]
fn bad_strings_say_what_and_where() {
    let cases: [(&str, DecodeErrorKind, usize); 12] = [
        (r#""abc"#, eof("a string"), 4),
        (r#""abcdefghijk"#, eof("a string"), 12),
        (r#""ab\ncd"#, eof("a string"), 7),
        ("\"ab\\", eof("a string"), 3),
        (
            "\"ab\u{1}c\"",
            syntax("control character inside a string; escape it"),
            3,
        ),
        (
            "\"a\\tb\u{1f}\"",
            syntax("control character inside a string; escape it"),
            5,
        ),
        (r#""ab\x""#, syntax("invalid escape in a string"), 3),
        (
            r#""ab\u12x""#,
            syntax("invalid \\u escape: expected 4 hex digits"),
            3,
        ),
        (
            r#""\u12G4""#,
            syntax("invalid \\u escape: expected 4 hex digits"),
            1,
        ),
        (r#""\u12"#, eof("a \\u escape"), 1),
        (r#""a\ud800x""#, syntax("lone surrogate in a \\u escape"), 2),
        (r#""\udc00""#, syntax("lone surrogate in a \\u escape"), 1),
    ];
    for (text, kind, offset) in cases {
        let err = json_err::<String>(text);
        assert_eq!(err.kind(), &kind, "{text}");
        assert_eq!(err.offset(), Some(offset), "{text}");
    }
    for text in [r#""\ud800\u0041""#, r#""\ud800\ue000""#, r#""\ud800\""#] {
        let err = json_err::<String>(text);
        assert!(
            matches!(
                err.kind(),
                DecodeErrorKind::Syntax { .. } | DecodeErrorKind::UnexpectedEof { .. }
            ),
            "{text}: {err}"
        );
    }
}

fn eof(expected: &'static str) -> DecodeErrorKind {
    DecodeErrorKind::UnexpectedEof {
        expected: expected.into(),
    }
}

#[derive(Codec, Debug, PartialEq)]
struct Pair {
    a: u8,
    b: Vec<u16>,
}

#[test]
fn objects_and_arrays_take_whitespace_anywhere() {
    let want = Pair {
        a: 1,
        b: vec![2, 3],
    };
    for text in [
        r#"{"a":1,"b":[2,3]}"#,
        " { \"a\" : 1 , \"b\" : [ 2 , 3 ] } ",
        "{\n\t\"b\"\r\n:[2,\n3],\"a\":1}",
        r#"{"b":[2,3],"a":1}"#,
    ] {
        assert_eq!(codec::from_json::<Pair>(text).unwrap(), want, "{text}");
    }
    assert_eq!(
        codec::from_json::<Vec<u16>>("[ ]").unwrap(),
        Vec::<u16>::new()
    );
    assert_eq!(
        codec::from_json::<Vec<Vec<u16>>>("[[],[1],[ 2 ,3 ]]").unwrap(),
        vec![vec![], vec![1], vec![2, 3]]
    );
    let map: std::collections::BTreeMap<String, u8> =
        codec::from_json(r#"{ "x" : 1 , "y":2 }"#).unwrap();
    assert_eq!(
        map.into_iter().collect::<Vec<_>>(),
        [("x".into(), 1), ("y".into(), 2)]
    );
    assert_eq!(
        codec::from_json::<std::collections::BTreeMap<String, u8>>("{}")
            .unwrap()
            .len(),
        0
    );
}

#[test]
fn object_and_array_syntax_errors_say_what_and_where() {
    let cases: [(&str, DecodeErrorKind, usize); 11] = [
        (
            r#"{"a":1 "b":[]}"#,
            syntax("expected `,` or `}` after an object entry"),
            7,
        ),
        (
            r#"{"a":1 x"b":[]}"#,
            syntax("expected `,` or `}` after an object entry"),
            7,
        ),
        (r#"{"a":1,}"#, syntax("expected a string key after `,`"), 7),
        (
            r#"{"a":1, 2}"#,
            syntax("expected a string key after `,`"),
            8,
        ),
        (r#"{,"a":1}"#, syntax("expected a string key or `}`"), 1),
        (r#"{"a" 1}"#, syntax("expected `:` after an object key"), 5),
        (
            r#"{"a":1,"b":[2 3]}"#,
            syntax("expected `,` or `]` after an array element"),
            14,
        ),
        (
            r#"{"a":1,"b":[2,]}"#,
            syntax("trailing comma in an array"),
            14,
        ),
        (
            r#"{"a":1,"b":[2,3}"#,
            syntax("expected `,` or `]` after an array element"),
            15,
        ),
        (r#"{"a":1,"b":[2"#, eof("a value"), 13),
        (r#"{"a":1"#, eof("a value"), 6),
    ];
    for (text, kind, offset) in cases {
        let err = json_err::<Pair>(text);
        assert_eq!(err.kind(), &kind, "{text}");
        assert_eq!(err.offset(), Some(offset), "{text}");
    }
    let err = json_err::<Pair>(r#"["a"]"#);
    assert_eq!(
        err.kind(),
        &DecodeErrorKind::InvalidType {
            expected: "an object".into(),
            found: "an array".into(),
        }
    );
    let err = json_err::<Vec<u16>>(r#"{"a": 1}"#);
    assert_eq!(
        err.kind(),
        &DecodeErrorKind::InvalidType {
            expected: "an array".into(),
            found: "an object".into(),
        }
    );
}
