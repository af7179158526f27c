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

/// The changes a stored value's schema went through, as an error: the
/// cause of a refused read, one change a line with its fix.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Changes(pub Vec<Change>);

impl Changes {
    /// The first breaking change on one line, and how many more there
    /// are: `` `Chunk.end`: integer -> string (and 2 more) ``.
    pub fn summary(&self) -> String {
        let mut breaking = self.0.iter().filter(|c| c.is_breaking());
        let Some(first) = breaking.next() else {
            return "no breaking change".to_owned();
        };
        let more = breaking.count();
        let mut text = format!("`{}`: {}", first.path, first.description);
        if more > 0 {
            text.push_str(&format!(" (and {more} more)"));
        }
        text
    }

    /// The fix each breaking change admits, and restoring the old shape
    /// for those that admit none.
    pub fn fixes(&self) -> String {
        let breaking = self.0.iter().filter(|c| c.is_breaking());
        let mut fixes: Vec<&str> = breaking.clone().filter_map(|c| c.fix.as_deref()).collect();
        if breaking.clone().any(|c| c.fix.is_none()) {
            fixes.push("restore the changed types");
        }
        fixes.dedup();
        fixes.join("; ")
    }
}

impl std::ops::Deref for Changes {
    type Target = [Change];

    fn deref(&self) -> &[Change] {
        &self.0
    }
}

impl fmt::Display for Changes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, change) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{change}")?;
            if let Some(fix) = &change.fix {
                write!(f, "; fix: {fix}")?;
            }
        }
        Ok(())
    }
}

impl std::error::Error for Changes {}
