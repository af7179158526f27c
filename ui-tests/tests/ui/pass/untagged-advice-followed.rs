//! An untagged union whose variants clash (`fail/untagged-two-int-payloads.rs`), with
//! the advice followed: without `untagged` the enum is tagged and compiles.
use codec::Codec;

#[derive(Codec, Debug, PartialEq)]
enum E {
    A(u32),
    B(i64),
}

pub fn main() {
    for e in [E::A(1), E::B(2)] {
        let text = codec::to_json(&e).unwrap();
        assert_eq!(codec::from_json::<E>(&text).unwrap(), e);
    }
}
