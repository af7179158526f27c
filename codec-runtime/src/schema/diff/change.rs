//! What a schema diff reports: each change, and whether it breaks old values.

use std::fmt;

/// Whether values written under the old schema still decode under the new one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compatibility {
    /// Old values decode.
    Compatible,
    /// Old values may not decode, or may decode to something else.
    Breaking,
}

/// One difference between two schemas.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Change {
    /// Where: the type's name, then fields, `[i]` elements, `<Variant>`s.
    pub path: String,
    /// What changed, in words (`integer -> string`).
    pub description: String,
    /// Whether old values still decode.
    pub compatibility: Compatibility,
    /// For a breaking change that an attribute can make compatible, that
    /// attribute (`give `port` a #[codec(default)]`). `None` when only
    /// restoring the old shape (or raising the type's version) helps.
    pub fix: Option<String>,
}

impl Change {
    /// Whether old values still decode.
    pub fn is_breaking(&self) -> bool {
        self.compatibility == Compatibility::Breaking
    }
}

impl fmt::Display for Change {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let tag = match self.compatibility {
            Compatibility::Compatible => "compatible",
            Compatibility::Breaking => "breaking",
        };
        write!(f, "{}: {} ({tag})", self.path, self.description)
    }
}
