//! `codec::Opaque<T, VERSION>`: a serde type without schemars in one line,
//! its schema an opaque node with the version the user declares. A raised
//! version is a breaking change everywhere a schema is compared: the diff,
//! stored values, the drift check; Python reads it as `typing.Any`.

#![cfg(all(feature = "serde", feature = "drift", feature = "python"))]

use codec::schema::{diff, DriftCheck};

/// A foreign type with serde and no `JsonSchema`.
#[derive(serde::Serialize, serde::Deserialize, Debug, PartialEq, Clone)]
struct Point {
    x: i32,
    y: i32,
}

mod v1 {
    #[derive(codec::Codec, Debug, PartialEq)]
    #[codec(name = "Shape")]
    pub struct Shape {
        pub name: String,
        pub at: codec::Opaque<super::Point>,
    }
}

mod v2 {
    /// `Point`'s serde form changed: its version is raised.
    #[derive(codec::Codec, Debug, PartialEq)]
    #[codec(name = "Shape")]
    pub struct Shape {
        pub name: String,
        pub at: codec::Opaque<super::Point, 2>,
    }
}

fn shape() -> v1::Shape {
    v1::Shape {
        name: "dot".into(),
        at: codec::Opaque(Point { x: 1, y: -2 }),
    }
}

#[test]
fn an_opaque_value_round_trips_in_both_formats() {
    let value = shape();
    let msgpack = codec::to_msgpack(&value).unwrap();
    assert_eq!(codec::from_msgpack::<v1::Shape>(&msgpack).unwrap(), value);
    let json = codec::to_json(&value).unwrap();
    assert_eq!(json, r#"{"name":"dot","at":{"x":1,"y":-2}}"#);
    assert_eq!(codec::from_json::<v1::Shape>(&json).unwrap(), value);
}

#[test]
fn a_raised_version_is_a_breaking_change_and_a_stored_value_is_refused() {
    assert_ne!(
        codec::fingerprint_of::<v1::Shape>(),
        codec::fingerprint_of::<v2::Shape>()
    );
    let changes = diff(
        &codec::schema_of::<v1::Shape>(),
        &codec::schema_of::<v2::Shape>(),
    );
    assert!(changes.iter().any(|c| c.is_breaking()), "{changes:?}");
    assert!(
        changes.iter().any(|c| c.path.ends_with(".at")
            && c.description == "opaque serde value (codec::Opaque): version 1 -> 2"),
        "the change says what changed: {changes:?}"
    );
    let stored = codec::to_stored(&shape()).unwrap();
    let refused = codec::from_stored::<v2::Shape>(&stored).unwrap_err();
    assert!(
        matches!(refused, codec::EnvelopeError::Incompatible { .. }),
        "{refused:?}"
    );
    // The same version reads.
    assert_eq!(codec::from_stored::<v1::Shape>(&stored).unwrap(), shape());
}

#[test]
fn the_drift_check_refuses_a_raised_version_unless_the_type_s_is_raised() {
    let dir = tempfile::tempdir().unwrap();
    DriftCheck::new(dir.path())
        .add::<v1::Shape>()
        .update(true)
        .run()
        .unwrap();
    DriftCheck::new(dir.path())
        .add::<v1::Shape>()
        .run()
        .unwrap();
    let drifted = DriftCheck::new(dir.path())
        .add::<v2::Shape>()
        .update(true)
        .run()
        .unwrap_err();
    assert!(
        drifted.to_string().contains("Shape.at"),
        "the change names the field: {drifted}"
    );
}

#[test]
fn python_reads_an_opaque_value_as_any_and_says_why() {
    let module = codec::python::Module::new()
        .add::<v2::Shape>()
        .render()
        .unwrap();
    assert!(module.contains("    at: typing.Any\n"), "{module}");
    assert!(
        module.contains("# A serde value opaque to codec"),
        "{module}"
    );
}

mod deep_v1 {
    #[derive(codec::Codec)]
    pub struct Inner {
        pub title: codec::Opaque<super::Point>,
    }
    #[derive(codec::Codec)]
    pub struct Middle {
        pub items: Vec<Inner>,
    }
    #[derive(codec::Codec)]
    #[codec(name = "Deep")]
    pub struct Deep {
        pub default: Option<Middle>,
    }
}

mod deep_v2 {
    #[derive(codec::Codec, Debug)]
    pub struct Inner {
        pub title: codec::Opaque<super::Point, 2>,
    }
    #[derive(codec::Codec, Debug)]
    pub struct Middle {
        pub items: Vec<Inner>,
    }
    #[derive(codec::Codec, Debug)]
    #[codec(name = "Deep")]
    pub struct Deep {
        pub default: Option<Middle>,
    }
}

/// Three levels down, inside a `Vec` and an `Option`, in fields named like
/// schema keywords (`title`, `default`): a raised version is still seen.
#[test]
fn a_raised_version_deep_inside_a_vec_is_refused() {
    let value = deep_v1::Deep {
        default: Some(deep_v1::Middle {
            items: vec![deep_v1::Inner {
                title: codec::Opaque(Point { x: 1, y: 2 }),
            }],
        }),
    };
    let stored = codec::to_stored(&value).unwrap();
    let refused = codec::from_stored::<deep_v2::Deep>(&stored).unwrap_err();
    assert!(
        matches!(refused, codec::EnvelopeError::Incompatible { .. }),
        "{refused:?}"
    );
    assert!(refused.to_string().contains("title"), "{refused}");
    assert!(refused.to_string().contains("version 1 -> 2"), "{refused}");
}

/// The attribute form, `#[codec(with = "codec::serde_opaque")]`: the
/// wrapper's encoding and schema of version 1, without wrapping the field.
mod attribute {
    #[derive(codec::Codec, Debug, PartialEq)]
    #[codec(name = "Shape")]
    pub struct Shape {
        pub name: String,
        #[codec(with = "codec::serde_opaque")]
        pub at: super::Point,
    }
}

#[test]
fn the_attribute_form_is_the_wrappers_schema_and_bytes() {
    assert_eq!(
        codec::fingerprint_of::<attribute::Shape>(),
        codec::fingerprint_of::<v1::Shape>()
    );
    let plain = attribute::Shape {
        name: "dot".into(),
        at: Point { x: 1, y: -2 },
    };
    let bytes = codec::to_msgpack(&plain).unwrap();
    assert_eq!(bytes, codec::to_msgpack(&shape()).unwrap());
    assert_eq!(codec::from_msgpack::<v1::Shape>(&bytes).unwrap(), shape());
    let stored = codec::to_stored(&plain).unwrap();
    assert_eq!(
        codec::from_stored::<attribute::Shape>(&stored).unwrap(),
        plain
    );
    // Raised to version 2 through the wrapper: breaking, as from the wrapper.
    let err = codec::from_stored::<v2::Shape>(&stored).unwrap_err();
    assert!(format!("{err:?}").contains("version 1 -> 2"), "{err:?}");
}
