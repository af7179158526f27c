//! Items used by the code `#[derive(Codec)]` generates. Not a public interface.

pub use crate::__forward_decode as forward_decode;
pub use crate::__forward_encode as forward_encode;
pub use crate::__forward_shape as forward_shape;
pub use crate::codec::{Codec, CodecSchema, Schema};
pub use crate::decode::{BorrowCow, Decode};

pub use crate::constraints::{self, Bound, Bounds, CheckLength, CheckNumber, CheckPattern};
pub use crate::encode::Encode;
pub use crate::error::{DecodeError, DecodeErrorKind, EncodeError};
pub use crate::json::{JsonReader, JsonWriter};
pub use crate::kind::WireKind;
pub use crate::msgpack::read::MsgpackReader;
pub use crate::msgpack::write::MsgpackWriter;
pub use core::cmp::PartialEq;
pub use core::convert::From;
pub use core::default::Default;
pub use core::option::Option::{self, None, Some};
pub use core::result::Result::{self, Err, Ok};
pub use inventory;
pub use schemars;
pub use serde_json;
pub use std::borrow::Cow;
pub use std::string::{String, ToString};
pub use std::sync::LazyLock;
#[cfg(feature = "serde")]
pub use {crate::serde_traits, serde};

/// The pieces of schemas that generated code assembles.
pub mod schema {
    pub use crate::schema::build::*;
    pub use crate::schema::registry::Registered;
    pub use crate::schema::{subschema, wire_name};
}

/// The variant of an untagged union that takes input of kind `found`: the first
/// whose kinds contain it; an integer may also go to a float variant.
#[inline]
pub fn untagged_variant(kinds: &[WireKind], found: WireKind) -> Option<usize> {
    kinds
        .iter()
        .position(|k| k.contains(found) && !found.is(WireKind::NONE))
        .or_else(|| {
            if found.is(WireKind::INT) {
                kinds.iter().position(|k| k.contains(WireKind::FLOAT))
            } else {
                None
            }
        })
}

/// The error for untagged input no variant takes: each variant and what it takes.
#[cold]
pub fn untagged_mismatch(
    type_name: &'static str,
    variants: &[(&'static str, WireKind)],
    found: WireKind,
) -> DecodeError {
    let mut message = format!("no variant of untagged `{type_name}` takes {found}:");
    for (i, (name, kind)) in variants.iter().enumerate() {
        let sep = if i == 0 { " " } else { ", " };
        message.push_str(&format!("{sep}`{name}` takes {kind}"));
    }
    DecodeError::invalid_value(message)
}

/// The kinds untagged variants may clash on, in the order of the codes
/// [`untagged_clash`] returns (code `i + 2`).
pub const CLASH_KINDS: [&str; 7] = [
    "nil",
    "bool",
    "int",
    "float",
    "string-like",
    "array-like",
    "map-like",
];

/// Const-evaluated check that two untagged variants cannot take the same input:
/// 0 when they are apart, 1 when either kind is unknown (a foreign bridge),
/// else 2 + the index in [`CLASH_KINDS`] of a kind they share.
pub const fn untagged_clash(a: WireKind, b: WireKind) -> u8 {
    if a.is(WireKind::ANY) || b.is(WireKind::ANY) {
        return 1;
    }
    let shared = a.in_json().intersection(b.in_json());
    let kinds = [
        WireKind::NIL,
        WireKind::BOOL,
        WireKind::INT,
        WireKind::FLOAT,
        WireKind::STR,
        WireKind::ARRAY,
        WireKind::MAP,
    ];
    let mut i = 0;
    while i < kinds.len() {
        if shared.overlaps(kinds[i]) {
            return 2 + i as u8;
        }
        i += 1;
    }
    0
}

/// Whether `names` holds `name`, in const context.
pub const fn names_contain(names: &[&str], name: &str) -> bool {
    let mut i = 0;
    while i < names.len() {
        let (a, b) = (names[i].as_bytes(), name.as_bytes());
        if a.len() == b.len() {
            let mut j = 0;
            while j < a.len() && a[j] == b[j] {
                j += 1;
            }
            if j == a.len() {
                return true;
            }
        }
        i += 1;
    }
    false
}

/// Whether a field whose type has the kinds `kind` may be missing from a
/// map: its type takes nil (`Option`, a union with a nil variant, `()`), as
/// serde lets an `Option` field be missing. A type of unknown kind (a serde
/// bridge) may not.
#[inline]
pub const fn may_be_missing(kind: WireKind) -> bool {
    kind.contains(WireKind::NIL) && !kind.is(WireKind::ANY)
}

/// The value of a missing field of type `T`, of the kinds `kind`, that
/// [`may_be_missing`]: what nil decodes to (`None` for an `Option`);
/// `None` here when it does not decode.
#[cold]
pub fn decode_missing<'de, T: Decode<'de>>(kind: WireKind) -> Option<T> {
    if !may_be_missing(kind) {
        return None;
    }
    const NIL: &[u8] = &[0xc0];
    T::decode_msgpack(&mut MsgpackReader::new(NIL)).ok()
}

/// The value of a missing field with `#[codec(default)]` or `#[codec(skip)]`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` does not implement `Default`, which a field with #[codec(default)] or #[codec(skip)] needs",
    label = "this field's type has no `Default`",
    note = "implement `Default` for `{Self}`, or write #[codec(default = \"path\")] naming a function that returns one"
)]
pub trait DefaultForMissing: Sized {
    /// `Default::default()`.
    fn default_for_missing() -> Self;
}

impl<T: Default> DefaultForMissing for T {
    #[inline]
    fn default_for_missing() -> Self {
        T::default()
    }
}

/// Where a failed constraint's value starts, in the reader's format.
pub trait Located {
    /// Puts the error at `start` in this reader's input.
    fn located(&self, start: usize, err: DecodeError) -> DecodeError;
}

impl Located for MsgpackReader<'_> {
    fn located(&self, start: usize, err: DecodeError) -> DecodeError {
        err.at(crate::error::Format::MsgPack, start)
    }
}

impl Located for JsonReader<'_> {
    fn located(&self, start: usize, err: DecodeError) -> DecodeError {
        err.at(crate::error::Format::Json, start)
    }
}

#[cfg(feature = "snapshot")]
/// [`crate::snapshot::render`] for a test: a value that does not encode panics with the
/// error, as a failed assertion does. `codec::assert_snapshot!` uses it.
#[track_caller]
pub fn render_for_test<T: Codec>(value: &T) -> String {
    match crate::snapshot::render(value) {
        Ok(text) => text,
        Err(e) => panic!("the value does not encode: {e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn untagged_clash_names_the_first_shared_kind() {
        let kinds = [
            WireKind::NIL,
            WireKind::BOOL,
            WireKind::INT,
            WireKind::FLOAT,
            WireKind::STR,
            WireKind::ARRAY,
            WireKind::MAP,
        ];
        for (i, kind) in kinds.into_iter().enumerate() {
            assert_eq!(
                untagged_clash(kind, kind),
                2 + i as u8,
                "{}",
                CLASH_KINDS[i]
            );
            // Only the shared part counts, however much else either takes.
            let wider = kind.union(WireKind::EXT);
            assert_eq!(untagged_clash(wider, kind), 2 + i as u8);
        }
        assert_eq!(untagged_clash(WireKind::INT, WireKind::STR), 0);
        assert_eq!(untagged_clash(WireKind::NIL, WireKind::MAP), 0);
        assert_eq!(untagged_clash(WireKind::MAP, WireKind::ARRAY), 0);
        // In JSON a byte buffer is a string: the two clash.
        assert_eq!(untagged_clash(WireKind::BYTES, WireKind::STR), 6);
        // A foreign bridge's kind is unknown, on either side.
        assert_eq!(untagged_clash(WireKind::ANY, WireKind::INT), 1);
        assert_eq!(untagged_clash(WireKind::INT, WireKind::ANY), 1);
        assert_eq!(untagged_clash(WireKind::NONE, WireKind::INT), 0);
    }

    #[test]
    fn names_contain_matches_whole_names() {
        let names = ["id", "kind", "kinds"];
        assert!(names_contain(&names, "kind"));
        assert!(names_contain(&names, "kinds"));
        assert!(names_contain(&names, "id"));
        assert!(!names_contain(&names, "ki"));
        assert!(!names_contain(&names, "kin d"));
        assert!(!names_contain(&names, "idx"));
        assert!(!names_contain(&["kine"], "kind"));
        assert!(!names_contain(&["dind"], "kind"));
        assert!(!names_contain(&[], "kind"));
        assert!(names_contain(&[""], ""));
    }
}
