//! The drift check: the committed schemas match the types, and a change
//! of the committed file or of a type is found.

use serde_json::Value;

use crate::corpus::{Color, Command, Document, Level, Point, Row, Scalar, Shape};

#[test]
fn committed_schemas_have_not_drifted() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/schemas");
    let check = codec::schema::DriftCheck::new(dir)
        .add::<Point>()
        .add::<Shape>()
        .add::<Color>()
        .add::<Level>()
        .add::<Scalar>()
        .add::<Row>()
        .add::<Command>()
        .add::<Document>();
    if let Err(e) = check.run() {
        panic!("{e}");
    }
}

#[test]
fn drift_check_refuses_a_breaking_change_unless_the_version_was_raised() {
    let dir = std::env::temp_dir().join(format!("codec-drift-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    mod v1 {
        #[derive(codec::Codec)]
        #[codec(name = "Drifting", version = 1)]
        pub struct Drifting {
            pub a: u8,
        }
    }
    mod v2 {
        #[derive(codec::Codec)]
        #[codec(name = "Drifting", version = 1)]
        pub struct Drifting {
            pub a: String,
        }
    }
    mod v3 {
        #[derive(codec::Codec)]
        #[codec(name = "Drifting", version = 2)]
        pub struct Drifting {
            pub a: String,
        }
    }
    let missing = codec::schema::DriftCheck::new(&dir)
        .add::<v1::Drifting>()
        .update(false)
        .run()
        .unwrap_err();
    assert!(
        missing.to_string().contains("no committed schema"),
        "{missing}"
    );
    // `update(true)` is what CODEC_UPDATE_SCHEMAS=1 does.
    codec::schema::DriftCheck::new(&dir)
        .add::<v1::Drifting>()
        .update(true)
        .run()
        .unwrap();
    let refused = codec::schema::DriftCheck::new(&dir)
        .add::<v2::Drifting>()
        .update(true)
        .run()
        .unwrap_err();
    codec::schema::DriftCheck::new(&dir)
        .add::<v3::Drifting>()
        .update(true)
        .run()
        .unwrap();
    assert!(
        refused.to_string().contains("breaking change refused"),
        "{refused}"
    );
    assert!(
        refused
            .to_string()
            .contains("Drifting.a: integer -> string (breaking)"),
        "{refused}"
    );
    let changed = codec::schema::DriftCheck::new(&dir)
        .add::<v1::Drifting>()
        .update(false)
        .run()
        .unwrap_err();
    assert!(changed.to_string().contains("differs from"), "{changed}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn drift_check_fails_on_any_difference_of_the_committed_file() {
    let committed = concat!(env!("CARGO_MANIFEST_DIR"), "/schemas/corpus.Document.json");
    let original: Value =
        serde_json::from_str(&std::fs::read_to_string(committed).unwrap()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let check = || {
        codec::schema::DriftCheck::new(dir.path())
            .add::<Document>()
            .update(false)
            .run()
    };
    // None of these edits changes the wire shape: each is still drift.
    // (What is edited, the edit, the drift reported.)
    type Edit = (&'static str, fn(&mut Value), &'static str);
    let edits: [Edit; 4] = [
        (
            "version raised",
            |v| v["x-codec-version"] = 7.into(),
            "/x-codec-version: 7 -> 1",
        ),
        (
            "unknown fields allowed",
            |v| drop(v.as_object_mut().unwrap().remove("additionalProperties")),
            "/additionalProperties: absent -> false",
        ),
        (
            "aliases emptied",
            |v| v["properties"]["title"]["x-codec-aliases"] = serde_json::json!([]),
            r#"/properties/title/x-codec-aliases: [] -> ["name"]"#,
        ),
        (
            "alias changed",
            |v| v["properties"]["title"]["x-codec-aliases"][0] = "heading".into(),
            r#"/properties/title/x-codec-aliases/0: "heading" -> "name""#,
        ),
    ];
    for (what, edit, expected) in edits {
        let mut schema = original.clone();
        edit(&mut schema);
        let path = dir.path().join("corpus.Document.json");
        std::fs::write(&path, serde_json::to_string_pretty(&schema).unwrap()).unwrap();
        let err = check().unwrap_err().to_string();
        assert!(
            err.contains("`corpus.Document` differs from"),
            "{what}: {err}"
        );
        assert!(err.contains("not in its wire shape"), "{what}: {err}");
        assert!(err.contains(expected), "{what}: {err}");
        // Updating rewrites the file, which then passes.
        codec::schema::DriftCheck::new(dir.path())
            .add::<Document>()
            .update(true)
            .run()
            .unwrap();
        check().unwrap();
        let rewritten: Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(rewritten, original, "{what}");
    }
    // Layout is not a difference.
    let path = dir.path().join("corpus.Document.json");
    std::fs::write(&path, serde_json::to_string(&original).unwrap()).unwrap();
    check().unwrap();
    // A file that cannot be read is not a missing one.
    std::fs::remove_file(&path).unwrap();
    std::fs::create_dir(&path).unwrap();
    let err = check().unwrap_err().to_string();
    assert!(err.contains("cannot read"), "{err}");
}
