//! The README's drift check, as users paste it into `tests/`: it names no
//! item of the library, and still checks the library's types.

#[test]
fn stored_types_have_not_drifted() {
    codec::drift_check!("schemas").run().unwrap();
}

/// The same check against an empty folder fails for each of the library's
/// types: they are linked into this test, though it names none of them.
#[test]
fn the_check_sees_the_library_types_without_naming_them() {
    let dir = tempfile::tempdir().unwrap();
    let err = codec::drift_check!(dir.path())
        .run()
        .unwrap_err()
        .to_string();
    for name in ["library.Chunk", "Event", "library.Marker"] {
        assert!(
            err.contains(&format!("`{name}`: no committed schema")),
            "{name}: {err}"
        );
    }
    assert!(err.contains("schema drift in 3 type(s)"), "{err}");
}

/// A breaking edit of a stored type fails the check, as a library type
/// would: the committed file of `Event` with a changed field.
#[test]
fn a_breaking_edit_of_a_library_type_fails_the_check() {
    let dir = tempfile::tempdir().unwrap();
    for file in ["library.Chunk.json", "Event.json", "library.Marker.json"] {
        std::fs::copy(format!("schemas/{file}"), dir.path().join(file)).unwrap();
    }
    codec::drift_check!(dir.path()).run().unwrap();
    let path = dir.path().join("library.Chunk.json");
    let edited = std::fs::read_to_string(&path)
        .unwrap()
        .replace("\"string\"", "\"integer\"");
    std::fs::write(&path, edited).unwrap();
    let err = codec::drift_check!(dir.path())
        .run()
        .unwrap_err()
        .to_string();
    assert!(err.contains("library.Chunk.text"), "{err}");
    assert!(err.contains("(breaking)"), "{err}");
}
