//! The wire kinds of values: what an encoding can start with. Both wire
//! formats report the kind of the next value, and the [`Codec`](crate::Codec)
//! trait declares the kinds of each type, so this module sits below both.

/// A set of wire kinds: what a type's encoding can start with.
///
/// Untagged unions use it to tell their variants apart, and tagged unions to
/// decide whether a newtype variant's payload merges into the tagged map.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct WireKind(u16);

impl WireKind {
    /// No kind (the reserved MessagePack marker, invalid JSON).
    pub const NONE: WireKind = WireKind(0);
    /// `nil` / `null`.
    pub const NIL: WireKind = WireKind(1);
    /// `true` / `false`.
    pub const BOOL: WireKind = WireKind(1 << 1);
    /// An integer.
    pub const INT: WireKind = WireKind(1 << 2);
    /// A float.
    pub const FLOAT: WireKind = WireKind(1 << 3);
    /// A string (and string-like values: chars, unit enums, uuids, durations).
    pub const STR: WireKind = WireKind(1 << 4);
    /// A byte buffer (MessagePack `bin`, a base64 string in JSON).
    pub const BYTES: WireKind = WireKind(1 << 5);
    /// An array (sequences, tuples, sets, tuple structs, `array_like` structs).
    pub const ARRAY: WireKind = WireKind(1 << 6);
    /// A map (structs, maps, tagged unions).
    pub const MAP: WireKind = WireKind(1 << 7);
    /// A MessagePack extension (timestamps).
    pub const EXT: WireKind = WireKind(1 << 8);
    /// Any kind: a foreign type whose encoding codec cannot see.
    pub const ANY: WireKind = WireKind(0x1ff);

    /// The set as bits (one per kind, in the order of the constants).
    pub(crate) const fn bits(self) -> u16 {
        self.0
    }

    /// The set of `bits`, those of no kind dropped.
    pub(crate) const fn from_bits(bits: u16) -> WireKind {
        WireKind(bits & WireKind::ANY.0)
    }

    /// Both sets.
    pub const fn union(self, other: WireKind) -> WireKind {
        WireKind(self.0 | other.0)
    }

    /// Whether the two sets share a kind.
    pub const fn overlaps(self, other: WireKind) -> bool {
        self.0 & other.0 != 0
    }

    /// Whether every kind of `other` is in `self`.
    pub const fn contains(self, other: WireKind) -> bool {
        self.0 & other.0 == other.0
    }

    /// Whether the set is exactly `other`.
    pub const fn is(self, other: WireKind) -> bool {
        self.0 == other.0
    }

    /// The kinds in both sets.
    pub const fn intersection(self, other: WireKind) -> WireKind {
        WireKind(self.0 & other.0)
    }

    /// The kinds as they appear in JSON, where bytes (base64) and timestamps
    /// (RFC 3339) are strings: the set untagged unions must keep apart.
    pub const fn in_json(self) -> WireKind {
        if self.overlaps(WireKind(WireKind::BYTES.0 | WireKind::EXT.0)) {
            WireKind(self.0 | WireKind::STR.0)
        } else {
            self
        }
    }

    const NAMES: [(WireKind, &'static str); 9] = [
        (WireKind::NIL, "nil"),
        (WireKind::BOOL, "bool"),
        (WireKind::INT, "int"),
        (WireKind::FLOAT, "float"),
        (WireKind::STR, "string-like"),
        (WireKind::BYTES, "bytes"),
        (WireKind::ARRAY, "array-like"),
        (WireKind::MAP, "map-like"),
        (WireKind::EXT, "extension"),
    ];
}

impl std::fmt::Display for WireKind {
    /// The kinds in words: `int or float`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.is(WireKind::ANY) {
            return f.write_str("any kind");
        }
        let mut first = true;
        for (kind, name) in WireKind::NAMES {
            if self.overlaps(kind) {
                if !first {
                    f.write_str(" or ")?;
                }
                f.write_str(name)?;
                first = false;
            }
        }
        if first {
            f.write_str("no kind")?;
        }
        Ok(())
    }
}
