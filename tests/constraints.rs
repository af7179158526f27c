//! msgspec's constraints as field attributes: checked while decoding in
//! both formats, emitted in the JSON Schema, compared by the schema diff.

use std::collections::{BTreeMap, HashSet};

use codec::{Codec, DecodeErrorKind};
use serde_json::json;

#[derive(Codec, Debug, PartialEq)]
struct Limits {
    #[codec(ge = 0, le = 100)]
    percent: i64,
    #[codec(gt = 0.0, lt = 1.0)]
    ratio: f64,
    #[codec(multiple_of = 5)]
    step: u32,
    #[codec(min_length = 1, max_length = 3)]
    name: String,
    #[codec(pattern = "^[a-z]+[0-9]?$")]
    login: String,
    #[codec(max_length = 2)]
    tags: Vec<String>,
    #[codec(min_length = 1)]
    scores: BTreeMap<String, i64>,
    #[codec(max_length = 2)]
    ids: HashSet<u8>,
    #[codec(max_length = 4)]
    data: codec::Bytes,
    #[codec(ge = 1)]
    maybe: Option<i64>,
}

fn valid() -> Limits {
    Limits {
        percent: 100,
        ratio: 0.5,
        step: 15,
        name: "éé✓".into(),
        login: "ada1".into(),
        tags: vec!["a".into(), "b".into()],
        scores: [("x".to_owned(), 1)].into_iter().collect(),
        ids: [1, 2].into_iter().collect(),
        data: codec::Bytes::from(vec![0; 4]),
        maybe: None,
    }
}

/// The error of decoding `value` with one field replaced, in both formats:
/// both must fail alike, and the JSON error's text is returned.
fn refused(field: &str, bad: serde_json::Value) -> String {
    let mut doc: serde_json::Value =
        serde_json::from_str(&codec::to_json(&valid()).unwrap()).unwrap();
    doc[field] = bad.clone();
    let json_err = codec::from_json::<Limits>(&doc.to_string()).unwrap_err();
    // The same change in MessagePack, through codec's dynamic value.
    let mut value: codec::Value =
        codec::from_msgpack(&codec::to_msgpack(&valid()).unwrap()).unwrap();
    let codec::Value::Map(entries) = &mut value else {
        unreachable!()
    };
    for (key, v) in entries {
        if key.as_str() == Some(field) {
            *v = codec::from_json(&bad.to_string()).unwrap();
        }
    }
    let bytes = codec::to_msgpack(&value).unwrap();
    let msgpack_err = codec::from_msgpack::<Limits>(&bytes).unwrap_err();
    for err in [&json_err, &msgpack_err] {
        assert!(
            matches!(err.kind(), DecodeErrorKind::Constraint { .. }),
            "{field}: {err}"
        );
        assert_eq!(err.path(), format!("$.{field}"), "{err}");
    }
    assert_eq!(json_err.kind(), msgpack_err.kind());
    json_err.kind().to_string()
}

#[test]
fn values_within_their_bounds_decode_in_both_formats() {
    let v = valid();
    assert_eq!(
        codec::from_json::<Limits>(&codec::to_json(&v).unwrap()).unwrap(),
        v
    );
    assert_eq!(
        codec::from_msgpack::<Limits>(&codec::to_msgpack(&v).unwrap()).unwrap(),
        v
    );
    let edge = Limits {
        percent: 0,
        maybe: Some(1),
        login: "x".into(),
        ..valid()
    };
    assert_eq!(
        codec::from_json::<Limits>(&codec::to_json(&edge).unwrap()).unwrap(),
        edge
    );
}

#[test]
fn each_bound_is_checked_and_named_in_the_error() {
    assert_eq!(
        refused("percent", json!(101)),
        "expected a value <= 100 (#[codec(le = 100)]), found 101"
    );
    assert_eq!(
        refused("percent", json!(-1)),
        "expected a value >= 0 (#[codec(ge = 0)]), found -1"
    );
    assert_eq!(
        refused("ratio", json!(0.0)),
        "expected a value > 0.0 (#[codec(gt = 0.0)]), found 0.0"
    );
    assert_eq!(
        refused("ratio", json!(1.0)),
        "expected a value < 1.0 (#[codec(lt = 1.0)]), found 1.0"
    );
    assert_eq!(
        refused("step", json!(12)),
        "expected a multiple of 5 (#[codec(multiple_of = 5)]), found 12"
    );
    assert_eq!(
        refused("name", json!("")),
        "expected a length >= 1 (#[codec(min_length = 1)]), found a length of 0"
    );
    // Characters, not bytes, as Python counts them.
    assert_eq!(
        refused("name", json!("abcd")),
        "expected a length <= 3 (#[codec(max_length = 3)]), found a length of 4"
    );
    assert_eq!(
        refused("login", json!("Ada")),
        r#"expected a string matching `^[a-z]+[0-9]?$` (#[codec(pattern = "^[a-z]+[0-9]?$")]), found "Ada""#
    );
    assert!(refused("tags", json!(["a", "b", "c"])).contains("found a length of 3"));
    assert!(refused("scores", json!({})).contains("min_length = 1"));
    assert!(refused("ids", json!([1, 2, 3])).contains("max_length = 2"));
    assert!(refused("maybe", json!(0)).contains("ge = 1"));
}

#[test]
fn byte_buffers_count_bytes() {
    let mut doc: serde_json::Value =
        serde_json::from_str(&codec::to_json(&valid()).unwrap()).unwrap();
    doc["data"] = json!("AAAAAAA="); // 5 bytes
    let err = codec::from_json::<Limits>(&doc.to_string()).unwrap_err();
    assert!(err.to_string().contains("found a length of 5"), "{err}");
}

#[test]
fn pattern_searches_anywhere_as_python_re_search() {
    #[derive(Codec, Debug)]
    struct Tagged {
        #[codec(pattern = "[0-9]")]
        text: Option<String>,
    }
    assert!(codec::from_json::<Tagged>(r#"{"text":"ab1cd"}"#).is_ok());
    assert!(codec::from_json::<Tagged>(r#"{"text":null}"#).is_ok());
    assert!(codec::from_json::<Tagged>(r#"{"text":"abc"}"#).is_err());
}

#[test]
fn tuple_newtype_and_variant_fields_are_checked_too() {
    #[derive(Codec, Debug)]
    struct Percent(#[codec(ge = 0, le = 100)] u8);
    #[derive(Codec, Debug)]
    enum Shape {
        Circle {
            #[codec(gt = 0)]
            r: f64,
        },
    }
    assert!(codec::from_json::<Percent>("100").is_ok());
    let err = codec::from_json::<Percent>("101").unwrap_err();
    assert!(err.to_string().contains("le = 100"), "{err}");
    let err = codec::from_json::<Shape>(r#"{"type":"Circle","r":-1}"#).unwrap_err();
    assert_eq!(err.path(), "$.r", "{err}");
    assert!(
        codec::from_msgpack::<Shape>(&codec::to_msgpack(&Shape::Circle { r: 0.0 }).unwrap())
            .is_err()
    );
}

#[test]
fn a_constrained_newtype_is_checked_as_a_map_key_too() {
    #[derive(Codec, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
    struct Port(#[codec(ge = 1, le = 1000)] u16);
    type Ports = std::collections::BTreeMap<Port, String>;
    let ok: Ports = codec::from_json(r#"{"80":"http"}"#).unwrap();
    assert_eq!(ok.keys().collect::<Vec<_>>(), [&Port(80)]);
    let err = codec::from_json::<Ports>(r#"{"8080":"alt"}"#).unwrap_err();
    assert!(err.to_string().contains("le = 1000"), "{err}");
    assert!(codec::from_json::<Ports>(r#"{"0":"none"}"#).is_err());
    // MessagePack keys are values: the same check.
    let bytes = codec::to_msgpack(&std::collections::BTreeMap::from([(
        8080u16,
        "alt".to_string(),
    )]))
    .unwrap();
    assert!(codec::from_msgpack::<Ports>(&bytes).is_err());
}

#[test]
fn the_schema_carries_each_constraint() {
    let schema = codec::schema_of::<Limits>();
    let props = &schema["properties"];
    assert_eq!(props["percent"]["minimum"], 0);
    assert_eq!(props["percent"]["maximum"], 100);
    assert_eq!(props["ratio"]["exclusiveMinimum"], 0.0);
    assert_eq!(props["ratio"]["exclusiveMaximum"], 1.0);
    assert_eq!(props["step"]["multipleOf"], 5);
    assert_eq!(props["step"]["minimum"], 0, "the type's own range stays");
    assert_eq!(props["name"]["minLength"], 1);
    assert_eq!(props["name"]["maxLength"], 3);
    assert_eq!(props["login"]["pattern"], "^[a-z]+[0-9]?$");
    assert_eq!(props["tags"]["maxItems"], 2);
    assert_eq!(props["scores"]["minProperties"], 1);
    assert_eq!(props["ids"]["maxItems"], 2);
    assert_eq!(
        props["data"]["maxLength"], 8,
        "4 bytes are 8 base64 characters"
    );
    let maybe = &props["maybe"]["anyOf"];
    assert!(
        maybe.as_array().unwrap().iter().any(|s| s["minimum"] == 1),
        "{maybe}"
    );
    // Every value codec writes validates against it, and a value out of bounds does not.
    let validator = jsonschema::validator_for(&schema).unwrap();
    let good: serde_json::Value = serde_json::from_str(&codec::to_json(&valid()).unwrap()).unwrap();
    assert!(validator.is_valid(&good));
    let mut bad = good.clone();
    bad["login"] = json!("ADA");
    assert!(!validator.is_valid(&bad));
}

#[test]
fn the_diff_calls_a_narrowed_bound_breaking_and_a_widened_one_compatible() {
    mod v1 {
        #[derive(codec::Codec)]
        #[codec(name = "Item")]
        pub struct Item {
            #[codec(max_length = 10)]
            pub name: String,
            #[codec(ge = 0)]
            pub count: i64,
            pub tags: Vec<String>,
            #[codec(pattern = "^a")]
            pub code: String,
        }
    }
    mod v2 {
        #[derive(codec::Codec)]
        #[codec(name = "Item")]
        pub struct Item {
            #[codec(max_length = 20)]
            pub name: String,
            #[codec(ge = 1)]
            pub count: i64,
            #[codec(max_length = 3)]
            pub tags: Vec<String>,
            pub code: String,
        }
    }
    let old = codec::schema_of::<v1::Item>();
    let new = codec::schema_of::<v2::Item>();
    let changes = codec::schema::diff(&old, &new);
    let find = |path: &str| {
        changes
            .iter()
            .find(|c| c.path == path)
            .unwrap_or_else(|| panic!("no change at {path}: {changes:?}"))
    };
    assert!(!find("Item.name").is_breaking(), "{changes:?}");
    assert!(find("Item.count").is_breaking(), "{changes:?}");
    assert!(find("Item.tags").is_breaking(), "{changes:?}");
    assert!(!find("Item.code").is_breaking(), "{changes:?}");
    // And back: each reversed.
    let back = codec::schema::diff(&new, &old);
    let mut breaking: Vec<&str> = back
        .iter()
        .filter(|c| c.is_breaking())
        .map(|c| c.path.as_str())
        .collect();
    breaking.sort_unstable();
    assert_eq!(breaking, ["Item.code", "Item.name"], "{back:?}");
}

#[cfg(feature = "decimal")]
#[test]
fn decimals_take_numeric_bounds() {
    #[derive(Codec, Debug)]
    struct Price {
        #[codec(ge = 0, lt = 100.5, multiple_of = 5)]
        amount: rust_decimal::Decimal,
    }
    assert!(codec::from_json::<Price>(r#"{"amount":"95.0"}"#).is_ok());
    let err = codec::from_json::<Price>(r#"{"amount":"-5"}"#).unwrap_err();
    assert_eq!(
        err.kind().to_string(),
        "expected a value >= 0 (#[codec(ge = 0)]), found -5"
    );
    let err = codec::from_json::<Price>(r#"{"amount":"100.5"}"#).unwrap_err();
    assert!(err.to_string().contains("lt = 100.5"), "{err}");
    let err = codec::from_json::<Price>(r#"{"amount":"12.5"}"#).unwrap_err();
    assert!(err.to_string().contains("multiple_of = 5"), "{err}");
}

#[test]
fn boxed_and_borrowed_strings_take_lengths_and_patterns() {
    use std::borrow::Cow;
    #[derive(Codec, Debug)]
    struct Names {
        #[codec(min_length = 2, max_length = 3, pattern = "^b")]
        boxed: Box<str>,
        #[codec(min_length = 2, max_length = 3, pattern = "^c")]
        cow: Cow<'static, str>,
    }
    let names = |boxed: &str, cow: &str| format!(r#"{{"boxed":"{boxed}","cow":"{cow}"}}"#);
    codec::from_json::<Names>(&names("bé", "cé✓")).unwrap();
    for (text, bound) in [
        (names("b", "cc"), "min_length = 2"),
        (names("bbbb", "cc"), "max_length = 3"),
        (names("ab", "cc"), "pattern"),
        (names("bb", "c"), "min_length = 2"),
        (names("bb", "cccc"), "max_length = 3"),
        (names("bb", "ac"), "pattern"),
    ] {
        let err = codec::from_json::<Names>(&text).unwrap_err();
        assert!(err.to_string().contains(bound), "{text}: {err}");
    }
}

#[test]
fn the_schema_keeps_the_types_own_range_where_it_is_tighter() {
    #[derive(Codec)]
    struct Small {
        #[codec(ge = -1, le = 300)]
        loose: u8,
        #[codec(ge = 10, le = 20)]
        tight: u8,
    }
    let schema = codec::schema_of::<Small>();
    let props = &schema["properties"];
    assert_eq!(props["loose"]["minimum"], 0, "{schema}");
    assert_eq!(props["loose"]["maximum"], 255, "{schema}");
    assert_eq!(props["tight"]["minimum"], 10, "{schema}");
    assert_eq!(props["tight"]["maximum"], 20, "{schema}");
}

#[test]
fn a_bound_next_to_the_types_limit_is_kept_although_equal_as_a_float() {
    // Each bound is a float's rounding away from the type's limit, and tighter.
    #[derive(Codec)]
    struct Wide {
        #[codec(ge = -9223372036854775500)]
        low: i64,
        #[codec(le = 18446744073709551000)]
        high: u64,
    }
    let schema = codec::schema_of::<Wide>();
    let props = &schema["properties"];
    assert_eq!(props["low"]["minimum"], -9223372036854775500i64, "{schema}");
    assert_eq!(
        props["high"]["maximum"], 18446744073709551000u64,
        "{schema}"
    );
}
