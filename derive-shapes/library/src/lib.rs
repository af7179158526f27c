//! A library as users write one: stored types in modules of `src/`, the
//! drift check in `tests/`, which links the library only through
//! `codec::drift_check!`.

pub mod stored;

/// A type declared by a macro, in the crate root.
macro_rules! declare {
    ($name:ident, $wire:literal) => {
        #[derive(codec::Codec, Debug, PartialEq)]
        #[codec(name = $wire, version = 1)]
        pub struct $name {
            pub id: u64,
        }
    };
}
declare!(Marker, "library.Marker");
