//! The MessagePack reader at the edges: a value's form followed by more
//! input than its length could reach, truncated values, and the words of
//! its errors.

use codec::{Codec, DecodeErrorKind};

fn msgpack_err<T: Codec + std::fmt::Debug>(bytes: &[u8]) -> codec::DecodeError {
    codec::from_msgpack::<T>(bytes).unwrap_err()
}

fn invalid_type(expected: &'static str, found: &'static str) -> DecodeErrorKind {
    DecodeErrorKind::InvalidType {
        expected: expected.into(),
        found: found.into(),
    }
}

fn eof(expected: &'static str) -> DecodeErrorKind {
    DecodeErrorKind::UnexpectedEof {
        expected: expected.into(),
    }
}

#[test]
fn a_float_of_the_wrong_kind_names_what_was_found() {
    for (bytes, found) in [
        (&[0xa1, 0x61][..], "a string"),
        (&[0xc0], "nil"),
        (&[0xc3], "a boolean"),
        (&[0x90], "an array"),
        (&[0x80], "a map"),
        (&[0xc4, 0x00], "bytes"),
    ] {
        let err = msgpack_err::<f64>(bytes);
        assert_eq!(err.kind(), &invalid_type("a float", found), "{bytes:x?}");
        assert_eq!(err.offset(), Some(0), "{bytes:x?}");
    }
    assert_eq!(codec::from_msgpack::<f64>(&[0xd0, 0xfe]).unwrap(), -2.0);
    assert_eq!(codec::from_msgpack::<f64>(&[0xe0]).unwrap(), -32.0);
}

/// Strings of every form, each followed by far more input than a fixstr's
/// length (at most 31) could reach.
#[test]
fn strings_of_every_form_read_alike_with_input_after_them() {
    let text = "abc";
    let forms: [&[u8]; 4] = [
        &[0xa3],
        &[0xd9, 0x03],
        &[0xda, 0x00, 0x03],
        &[0xdb, 0x00, 0x00, 0x00, 0x03],
    ];
    for form in forms {
        let mut bytes = vec![0xdc, 0x01, 0x00];
        for _ in 0..256 {
            bytes.extend_from_slice(form);
            bytes.extend_from_slice(text.as_bytes());
        }
        let strings: Vec<String> = codec::from_msgpack(&bytes).unwrap();
        assert_eq!(strings, vec![text.to_string(); 256], "{form:x?}");
    }
    let long = "y".repeat(31);
    let mut bytes = vec![0x92, 0xbf];
    bytes.extend_from_slice(long.as_bytes());
    bytes.extend_from_slice(&[0xd9, 0x01, b'z']);
    let pair: (String, String) = codec::from_msgpack(&bytes).unwrap();
    assert_eq!(pair, (long, "z".to_string()));
}

#[test]
fn a_non_string_is_not_read_as_a_string() {
    let mut tail = vec![0u8; 64];
    for marker in [0x40u8, 0x00, 0x7f, 0xc0, 0xc3, 0xcc, 0xe0, 0x90, 0x80] {
        tail[0] = marker;
        let err = msgpack_err::<Vec<String>>(&[&[0x91][..], &tail].concat());
        assert!(
            matches!(err.kind(), DecodeErrorKind::InvalidType { expected, .. } if expected == "a string"),
            "{marker:x}: {err}"
        );
        assert_eq!(err.offset(), Some(1), "{marker:x}");
    }
}

#[test]
fn a_truncated_string_is_the_end_of_input() {
    for bytes in [
        &[0xa3, 0x61, 0x62][..],
        &[0xa3, 0x61],
        &[0xa3],
        &[0xbf, 0x61],
        &[0xd9, 0x03, 0x61, 0x62],
        &[0xda, 0x00, 0x03, 0x61],
    ] {
        let err = msgpack_err::<String>(bytes);
        assert_eq!(err.kind(), &eof("a string"), "{bytes:x?}");
    }
    let err = msgpack_err::<(u8, String)>(&[0x92, 0x01, 0xa3, 0x61, 0x62]);
    assert_eq!(err.kind(), &eof("a string"));
    assert_eq!(err.offset(), Some(3));
}

#[derive(Codec, Debug, PartialEq)]
struct Known {
    a: u8,
}

#[test]
fn a_reserved_marker_in_an_unknown_field_is_refused() {
    // {"x": 0xc1, "a": 5}
    let err = msgpack_err::<Known>(&[0x82, 0xa1, b'x', 0xc1, 0xa1, b'a', 0x05]);
    assert_eq!(
        err.kind(),
        &DecodeErrorKind::Syntax {
            message: "the reserved marker 0xc1 is never valid MessagePack".into()
        }
    );
    assert_eq!(err.offset(), Some(3));
}

#[test]
fn raw_values_keep_their_exact_bytes() {
    #[derive(Codec, Debug, PartialEq)]
    struct Holder {
        first: codec::Raw,
        second: u8,
    }
    // {"first": [1, "s", {"k": nil}], "second": 2}
    let value = [0x93, 0x01, 0xa1, b's', 0x81, 0xa1, b'k', 0xc0];
    let mut bytes = vec![0x82, 0xa5];
    bytes.extend_from_slice(b"first");
    bytes.extend_from_slice(&value);
    bytes.push(0xa6);
    bytes.extend_from_slice(b"second");
    bytes.push(0x02);
    let held: Holder = codec::from_msgpack(&bytes).unwrap();
    assert_eq!(held.first.as_bytes(), value);
    assert_eq!(held.second, 2);
}

/// Integers of every width cut short: the slow path, taken near the end of
/// the input, says the input ended (not that something else was found).
#[test]
fn a_truncated_integer_is_the_end_of_input() {
    for marker in 0xccu8..=0xd3 {
        let width = 1usize << ((marker - 0xcc) & 3);
        for cut in 0..width {
            let bytes = [&[marker][..], &vec![0xff; cut]].concat();
            for err in [msgpack_err::<u64>(&bytes), msgpack_err::<i64>(&bytes)] {
                assert_eq!(err.kind(), &eof("an integer"), "{bytes:x?}");
                assert_eq!(err.offset(), Some(1), "{bytes:x?}");
            }
        }
    }
}

/// A sequence whose input holds all its elements is allocated once, at its
/// length: the reader's capacity hint is the length, not a guess to grow from.
#[test]
fn a_sequence_is_allocated_once_at_its_length() {
    let values: Vec<u16> = (0..100).collect();
    let bytes = codec::to_msgpack(&values).unwrap();
    let decoded: Vec<u16> = codec::from_msgpack(&bytes).unwrap();
    assert_eq!(decoded, values);
    assert_eq!(decoded.capacity(), 100);
}
