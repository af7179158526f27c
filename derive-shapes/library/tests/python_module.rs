//! The README's Python check, as users paste it into `tests/`: it names no
//! item of the library, and still holds the library's types.

#[test]
fn python_classes_are_up_to_date() {
    codec::python_module!()
        .schemas("schemas")
        .check("python/models.py")
        .unwrap();
}

/// A change of a stored type fails the check: the committed module of
/// `library.Chunk` as it was before a field changed type.
#[test]
fn a_changed_type_fails_the_check() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("models.py");
    let committed = std::fs::read_to_string("python/models.py").unwrap();
    let before = committed.replace("    text: str\n", "    text: int\n");
    assert_ne!(before, committed);
    std::fs::write(&path, &before).unwrap();
    let err = codec::python_module!()
        .update(false)
        .check(&path)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("is not what the types generate (line"),
        "{err}"
    );
    assert!(
        err.contains("committed `    text: int`, generated `    text: str`"),
        "{err}"
    );
}
