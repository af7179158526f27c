//! A test that never names the library links none of its types: a drift
//! check there finds nothing, and says so instead of passing.

use codec::schema::DriftCheck;

#[test]
fn a_check_that_finds_no_type_fails_and_says_how_to_link_them() {
    let dir = tempfile::tempdir().unwrap();
    let err = DriftCheck::all(dir.path()).run().unwrap_err().to_string();
    assert!(
        err.starts_with("the schema drift check checks nothing:"),
        "{err}"
    );
    assert!(err.contains("no type to check"), "{err}");
    assert!(err.contains("codec::drift_check!"), "{err}");
}

#[test]
fn a_python_module_of_no_type_fails_and_says_how_to_link_them() {
    let err = codec::python::Module::all()
        .render()
        .unwrap_err()
        .to_string();
    assert!(err.starts_with("no type in the Python module"), "{err}");
    assert!(err.contains("codec::python_module!()"), "{err}");
}

#[test]
fn a_folder_that_does_not_exist_fails_and_says_how_to_create_it() {
    // Neither named nor versioned: not registered, so that the test above
    // finds no type in this binary.
    #[derive(codec::Codec)]
    struct Local {
        _a: u8,
    }
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-such-folder");
    let err = DriftCheck::new(&missing)
        .add::<Local>()
        .run()
        .unwrap_err()
        .to_string();
    assert!(err.contains("does not exist"), "{err}");
    assert!(err.contains("CODEC_UPDATE_SCHEMAS=1"), "{err}");
    assert!(!missing.exists());
    DriftCheck::new(&missing)
        .add::<Local>()
        .update(true)
        .run()
        .unwrap();
    assert!(missing.join("Local.json").exists());
}
