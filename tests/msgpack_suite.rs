//! Every encoding width of a value decodes to the same value (in the spirit
//! of kawanet's msgpack-test-suite), and codec writes the shortest.

use std::time::{Duration, UNIX_EPOCH};

use codec::Codec;

fn hex(s: &str) -> Vec<u8> {
    let s: String = s.split_whitespace().collect();
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// All `forms` decode to `value`; codec writes the first one.
fn check<T: Codec + PartialEq + std::fmt::Debug>(value: T, forms: &[&str]) {
    for form in forms {
        assert_eq!(
            codec::from_msgpack::<T>(&hex(form)).unwrap(),
            value,
            "{form}"
        );
    }
    assert_eq!(
        codec::to_msgpack(&value).unwrap(),
        hex(forms[0]),
        "shortest form of {value:?}"
    );
}

#[test]
fn nil_and_bool() {
    check((), &["c0"]);
    check(Option::<u8>::None, &["c0"]);
    check(false, &["c2"]);
    check(true, &["c3"]);
}

#[test]
fn integers_in_every_width() {
    check(
        0u64,
        &[
            "00",
            "cc 00",
            "cd 0000",
            "ce 00000000",
            "cf 0000000000000000",
            "d0 00",
            "d1 0000",
            "d2 00000000",
            "d3 0000000000000000",
        ],
    );
    check(
        1i64,
        &[
            "01",
            "cc 01",
            "cd 0001",
            "ce 00000001",
            "cf 0000000000000001",
            "d0 01",
            "d1 0001",
            "d2 00000001",
            "d3 0000000000000001",
        ],
    );
    check(
        127u8,
        &["7f", "cc 7f", "cd 007f", "ce 0000007f", "d0 7f", "d1 007f"],
    );
    check(
        128u16,
        &[
            "cc 80",
            "cd 0080",
            "ce 00000080",
            "cf 0000000000000080",
            "d1 0080",
            "d2 00000080",
        ],
    );
    check(
        65535u32,
        &[
            "cd ffff",
            "ce 0000ffff",
            "cf 000000000000ffff",
            "d2 0000ffff",
            "d3 000000000000ffff",
        ],
    );
    check(
        4294967295u64,
        &["ce ffffffff", "cf 00000000ffffffff", "d3 00000000ffffffff"],
    );
    check(u64::MAX, &["cf ffffffffffffffff"]);
    check(
        -1i64,
        &[
            "ff",
            "d0 ff",
            "d1 ffff",
            "d2 ffffffff",
            "d3 ffffffffffffffff",
        ],
    );
    check(-32i8, &["e0", "d0 e0", "d1 ffe0"]);
    check(-33i16, &["d0 df", "d1 ffdf", "d2 ffffffdf"]);
    check(
        -128i32,
        &["d0 80", "d1 ff80", "d2 ffffff80", "d3 ffffffffffffff80"],
    );
    check(-129i32, &["d1 ff7f", "d2 ffffff7f"]);
    check(-32768i64, &["d1 8000", "d2 ffff8000"]);
    check(i32::MIN as i64, &["d2 80000000", "d3 ffffffff80000000"]);
    check(i64::MIN, &["d3 8000000000000000"]);
}

#[test]
fn floats() {
    check(0.5f64, &["cb 3fe0000000000000", "ca 3f000000"]);
    check(-0.0f64, &["cb 8000000000000000", "ca 80000000"]);
    check(0.5f32, &["ca 3f000000", "cb 3fe0000000000000"]);
    check(1.0f64, &["cb 3ff0000000000000", "01", "cc 01", "d0 01"]);
}

#[test]
fn strings_and_binaries_in_every_width() {
    check(String::new(), &["a0", "d9 00", "da 0000", "db 00000000"]);
    check(
        "a".to_string(),
        &["a1 61", "d9 01 61", "da 0001 61", "db 00000001 61"],
    );
    let long = "x".repeat(32);
    let long_hex = "78".repeat(32);
    check(
        long.clone(),
        &[
            &format!("d9 20 {long_hex}"),
            &format!("da 0020 {long_hex}"),
            &format!("db 00000020 {long_hex}"),
        ],
    );
    check("✓".to_string(), &["a3 e29c93"]);
    check(Vec::<u8>::new(), &["c4 00", "c5 0000", "c6 00000000"]);
    check(vec![1u8], &["c4 01 01", "c5 0001 01", "c6 00000001 01"]);
}

#[test]
fn arrays_and_maps_in_every_width() {
    check(
        Vec::<u8>::new()
            .into_iter()
            .map(u16::from)
            .collect::<Vec<u16>>(),
        &["90", "dc 0000", "dd 00000000"],
    );
    check(
        vec![1u16, 2],
        &["92 01 02", "dc 0002 01 02", "dd 00000002 01 02"],
    );
    let many: Vec<u16> = (0..16).collect();
    let many_hex: String = (0..16).map(|i| format!("{i:02x}")).collect();
    check(
        many,
        &[
            &format!("dc 0010 {many_hex}"),
            &format!("dd 00000010 {many_hex}"),
        ],
    );
    let map: std::collections::BTreeMap<String, u8> = [("a".to_string(), 1)].into_iter().collect();
    check(
        map,
        &["81 a1 61 01", "de 0001 a1 61 01", "df 00000001 a1 61 01"],
    );
}

#[test]
fn timestamps_in_every_form() {
    let t = UNIX_EPOCH + Duration::from_secs(1);
    check(
        t,
        &[
            "d6 ff 00000001",
            "d7 ff 0000000000000001",
            "c7 0c ff 00000000 0000000000000001",
        ],
    );
    let with_nanos = UNIX_EPOCH + Duration::new(1, 1);
    check(
        with_nanos,
        &[
            "d7 ff 0000000400000001",
            "c7 0c ff 00000001 0000000000000001",
        ],
    );
    let before = UNIX_EPOCH - Duration::from_secs(1);
    check(before, &["c7 0c ff 00000000 ffffffffffffffff"]);
}

#[derive(Codec, Debug, PartialEq)]
struct Known {
    a: u8,
}

/// An unknown field's value of any form is skipped whole, before or after
/// the known field.
#[test]
fn unknown_fields_of_every_form_are_skipped() {
    let forms = [
        "c0",
        "c3",
        "05",
        "e0",
        "cc 01",
        "cd 00 01",
        "ce 00 00 00 01",
        "cf 00 00 00 00 00 00 00 01",
        "d0 ff",
        "d1 ff ff",
        "d2 ff ff ff ff",
        "d3 ff ff ff ff ff ff ff ff",
        "ca 00 00 00 00",
        "cb 00 00 00 00 00 00 00 00",
        "a2 68 69",
        "d9 02 68 69",
        "da 00 02 68 69",
        "db 00 00 00 02 68 69",
        "c4 01 ff",
        "c5 00 01 ff",
        "c6 00 00 00 01 ff",
        "d4 01 00",
        "d5 01 00 00",
        "d6 ff 00 00 00 00",
        "d7 01 00 00 00 00 00 00 00 00",
        "d8 01 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00",
        "c7 01 05 00",
        "c8 00 01 05 00",
        "c9 00 00 00 01 05 00",
        "93 01 02 03",
        "dc 00 03 01 02 03",
        "dd 00 00 00 03 01 02 03",
        "83 01 02 03 04 05 06",
        "de 00 03 01 02 03 04 05 06",
        "df 00 00 00 03 01 02 03 04 05 06",
        "82 a1 6b 92 c0 c3 a1 6c 80",
        "dc 00 02 de 00 01 01 90 dd 00 00 00 01 91 c0",
    ];
    for form in forms {
        for bytes in [
            format!("82 a1 78 {form} a1 61 05"),
            format!("82 a1 61 05 a1 78 {form}"),
        ] {
            assert_eq!(
                codec::from_msgpack::<Known>(&hex(&bytes)).unwrap(),
                Known { a: 5 },
                "{bytes}"
            );
        }
    }
}
