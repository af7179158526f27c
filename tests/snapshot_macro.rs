//! `codec::assert_snapshot!`: a value's encodings as an insta snapshot in one line.

#![cfg(feature = "insta")]

#[derive(codec::Codec)]
struct Chunk {
    text: String,
    start: u32,
    weight: f32,
}

#[test]
fn a_value_snapshot_in_one_line() {
    codec::assert_snapshot!(Chunk {
        text: "a chunk of text long enough to be shortened in the hex column".into(),
        start: 7,
        weight: 0.5,
    });
    codec::assert_snapshot!(
        "named_chunk",
        Chunk {
            text: "short".into(),
            start: 0,
            weight: 1.0,
        }
    );
}

#[test]
#[should_panic(expected = "the value does not encode")]
fn a_value_that_does_not_encode_fails_the_test() {
    codec::assert_snapshot!("never_written", u128::MAX);
}
