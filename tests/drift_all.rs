//! `DriftCheck::all`: every type with a `name` or `version` registers itself.
//! In a binary of its own, so that the registered types are exactly these.

#![cfg(feature = "drift")]

use codec::schema::DriftCheck;
use codec::Codec;

#[derive(Codec)]
#[codec(name = "all.Named")]
pub struct Named {
    pub a: u32,
}

#[derive(Codec)]
#[codec(version = 3)]
pub enum Versioned {
    A,
    B { x: f64 },
}

/// Neither: not registered.
#[derive(Codec)]
pub struct Plain {
    pub a: u32,
}

/// Generic: no one schema, so not registered (listed with `add`).
#[derive(Codec)]
#[codec(name = "all.Wrapper")]
pub struct Wrapper<T> {
    pub inner: T,
}

macro_rules! declare {
    ($name:ident) => {
        #[derive(Codec)]
        #[codec(name = "all.Declared")]
        pub struct $name {
            pub b: bool,
        }
    };
}
declare!(Declared);

fn files(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    names
}

#[test]
fn all_checks_every_named_or_versioned_type_without_listing_them() {
    let dir = tempfile::tempdir().unwrap();
    let err = DriftCheck::all(dir.path()).run().unwrap_err().to_string();
    assert!(err.contains("schema drift in 4 type(s)"), "{err}");
    DriftCheck::all(dir.path()).update(true).run().unwrap();
    // codec's own records are not among them.
    assert_eq!(
        files(dir.path()),
        [
            "Versioned.json",
            "all.Declared.json",
            "all.Named.json",
            "all.Text.json"
        ]
    );
    DriftCheck::all(dir.path()).run().unwrap();

    // `add` covers the rest; a file of a type no longer checked is stale.
    DriftCheck::all(dir.path())
        .add::<Wrapper<u8>>()
        .update(true)
        .run()
        .unwrap();
    let err = DriftCheck::all(dir.path()).run().unwrap_err().to_string();
    assert!(err.contains("all.Wrapper_u8_.json is stale"), "{err}");
}

/// An owned type and its borrowing twin: one stored type, one file.
#[derive(Codec)]
#[codec(name = "all.Text")]
pub struct Text {
    pub text: String,
}

#[derive(Codec)]
#[codec(name = "all.Text")]
pub struct TextRef<'a> {
    pub text: &'a str,
}
