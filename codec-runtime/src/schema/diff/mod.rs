//! Differences between two versions of a schema, each classified as
//! compatible (values written with the old schema decode with the new one)
//! or breaking.
//!
//! Compatible: a field added with a default, a field removed (unless the new
//! type denies unknown fields), int -> float, `T` -> `Option<T>`, a variant
//! added, a field, variant or type renamed with an alias of the old name, an
//! integer range or a constraint (`maxLength`, `pattern`, ...) widened or
//! removed. Anything else is breaking.
//!
//! What comes out is `change`; what each node describes is `shape`;
//! constraint keywords are `bounds`; the walk over both schemas that uses
//! them all is `differ`.

mod bounds;
mod change;
mod differ;
mod shape;

pub use change::{Change, Changes, Compatibility};
pub use differ::diff;
pub(crate) use differ::diff_models;
