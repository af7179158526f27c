//! Stored types in a module of their own: an integration test links this
//! module's registrations only with the rest of the library.

/// A named stored type.
#[derive(codec::Codec, Debug, PartialEq)]
#[codec(name = "library.Chunk")]
pub struct Chunk {
    pub text: String,
    pub start: u32,
}

/// A versioned stored type.
#[derive(codec::Codec, Debug, PartialEq)]
#[codec(version = 2)]
pub enum Event {
    Click { x: i64, y: i64 },
    Key { code: String },
}
