//! Differences between two versions of a schema, each classified as
//! compatible (values written with the old schema decode with the new one)
//! or breaking.
//!
//! Compatible: a field added with a default, a field removed (unless the new
//! type denies unknown fields, or the field is in the elements of a set,
//! where elements that differed by it would become one), int -> float,
//! `f32` -> `f64`, `T` -> `Option<T>`, a variant added, a field, variant or
//! type renamed with an alias of the old name, an integer range or a
//! constraint (`maxLength`, `pattern`, ...) widened or removed. Anything
//! else is breaking. The rules hold at every depth: both schemas are read
//! as resolved models (`super::model`), every reference followed.
//!
//! What comes out is `change`; what each node describes is `shape`;
//! constraint keywords are `bounds`; the walk over both models that uses
//! them all is `differ`.

mod bounds;
mod change;
mod differ;
mod shape;

pub use change::{Change, Changes, Compatibility};
pub use differ::diff;
pub(crate) use differ::diff_models;
