//! An integer as read from the wire, before conversion to the target type.

/// An integer as read from the wire, before conversion to the target type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Integer {
    /// A non-negative integer.
    Pos(u64),
    /// A negative integer.
    Neg(i64),
}

impl Integer {
    /// `-0` (which JSON text can spell) as `0`: every integer has one form.
    #[inline]
    pub(crate) fn normalize(self) -> Integer {
        match self {
            Integer::Neg(0) => Integer::Pos(0),
            other => other,
        }
    }
}

impl std::fmt::Display for Integer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Integer::Pos(v) => write!(f, "{v}"),
            Integer::Neg(v) => write!(f, "{v}"),
        }
    }
}
