use super::*;

#[test]
fn integers_of_every_width_read_alike_near_the_end_and_far_from_it() {
    let values: [i64; 10] = [
        0,
        127,
        200,
        -5,
        -100,
        40_000,
        -30_000,
        1 << 31,
        -(1 << 40),
        i64::MIN,
    ];
    for v in values {
        let mut w = crate::msgpack::MsgpackWriter::default();
        w.write_i64(v);
        let exact = w.into_inner();
        let mut padded = exact.clone();
        padded.extend_from_slice(&[0xff; 9]);
        for bytes in [&exact, &padded] {
            let mut r = MsgpackReader::new(bytes);
            let got = match r.read_integer().unwrap() {
                Integer::Pos(p) => p as i64,
                Integer::Neg(n) => n,
            };
            assert_eq!(got, v);
            assert_eq!(r.position(), exact.len());
        }
    }
    let mut r = MsgpackReader::new(b"\xcf\xff\xff\xff\xff\xff\xff\xff\xff\xc0");
    assert_eq!(r.read_integer().unwrap(), Integer::Pos(u64::MAX));
}

#[test]
fn nested_gives_its_level_back_whether_the_read_succeeds_or_fails() {
    let mut r = MsgpackReader::with_depth_limit(&[0xc0], 1);
    let failed: Result<(), DecodeError> = r.nested(|r| Err(r.unexpected("an integer")));
    assert!(failed.is_err());
    // The level the failed read took is free again: one more fits, two do not.
    assert!(r.nested(|r| r.read_nil()).is_ok());
    r.seek(0);
    let too_deep = r.nested(|r| r.nested(|r| r.read_nil())).unwrap_err();
    assert!(matches!(
        too_deep.kind(),
        DecodeErrorKind::DepthLimitExceeded { limit: 1 }
    ));
}
