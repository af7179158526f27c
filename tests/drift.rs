//! The drift check as CI runs it: renamed types, stale files, the fix that
//! fits each change, and errors that read well through `unwrap()`.

#![cfg(feature = "drift")]

use codec::schema::DriftCheck;

mod before {
    #[derive(codec::Codec)]
    #[codec(name = "Chunk", version = 1)]
    pub struct Chunk {
        pub text: String,
        pub start: u32,
    }
}

mod renamed {
    /// `Chunk` renamed, and `start` changed type: a breaking change.
    #[derive(codec::Codec)]
    #[codec(name = "TextChunk", alias = "Chunk", version = 1)]
    pub struct TextChunk {
        pub text: String,
        pub start: String,
    }
}

mod renamed_only {
    #[derive(codec::Codec)]
    #[codec(name = "TextChunk", alias = "Chunk", version = 1)]
    pub struct TextChunk {
        pub text: String,
        pub start: u32,
    }
}

mod renamed_v2 {
    #[derive(codec::Codec)]
    #[codec(name = "TextChunk", alias = "Chunk", version = 2)]
    pub struct TextChunk {
        pub text: String,
        pub start: String,
    }
}

fn committed() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    DriftCheck::new(dir.path())
        .add::<before::Chunk>()
        .update(true)
        .run()
        .unwrap();
    dir
}

fn files(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    names
}

#[test]
fn a_renamed_type_is_compared_with_the_file_of_its_former_name() {
    let dir = committed();
    let check = |update| {
        DriftCheck::new(dir.path())
            .add::<renamed::TextChunk>()
            .update(update)
            .run()
    };
    let err = check(false).unwrap_err().to_string();
    assert!(
        err.contains("`TextChunk` was renamed and differs from"),
        "{err}"
    );
    assert!(
        err.contains("Chunk.start: integer -> string (breaking)"),
        "{err}"
    );
    assert!(!err.contains("no committed schema"), "{err}");
    // The update refuses it as it refuses any breaking change.
    let err = check(true).unwrap_err().to_string();
    assert!(err.contains("breaking change refused"), "{err}");
    assert_eq!(files(dir.path()), ["Chunk.json"]);

    // Raising the version accepts it, and the file moves.
    DriftCheck::new(dir.path())
        .add::<renamed_v2::TextChunk>()
        .update(true)
        .run()
        .unwrap();
    assert_eq!(files(dir.path()), ["TextChunk.json"]);
    DriftCheck::new(dir.path())
        .add::<renamed_v2::TextChunk>()
        .run()
        .unwrap();
}

#[test]
fn a_rename_alone_asks_for_the_update_that_moves_the_file() {
    let dir = committed();
    let check = |update| {
        DriftCheck::new(dir.path())
            .add::<renamed_only::TextChunk>()
            .update(update)
            .run()
    };
    let err = check(false).unwrap_err().to_string();
    assert!(err.contains("to move the schema from"), "{err}");
    check(true).unwrap();
    assert_eq!(files(dir.path()), ["TextChunk.json"]);
    check(false).unwrap();
}

#[test]
fn files_no_checked_type_claims_are_stale() {
    let dir = committed();
    std::fs::copy(
        dir.path().join("Chunk.json"),
        dir.path().join("TextChunk.json"),
    )
    .unwrap();
    let err = DriftCheck::new(dir.path())
        .add::<before::Chunk>()
        .update(true)
        .run()
        .unwrap_err()
        .to_string();
    assert!(err.contains("TextChunk.json is stale"), "{err}");
    assert!(err.contains("delete it if its type is gone"), "{err}");
    // A former name's file left beside the new one is stale too.
    let err = DriftCheck::new(dir.path())
        .add::<renamed_only::TextChunk>()
        .run()
        .unwrap_err()
        .to_string();
    assert!(err.contains("Chunk.json is stale"), "{err}");
}

#[test]
fn each_breaking_change_gets_the_fix_that_fits_it() {
    mod added {
        #[derive(codec::Codec)]
        #[codec(name = "Chunk", version = 1)]
        pub struct Chunk {
            pub text: String,
            pub start: u32,
            pub end: u32,
        }
    }
    mod retyped {
        #[derive(codec::Codec)]
        #[codec(name = "Chunk", version = 1)]
        pub struct Chunk {
            pub text: String,
            pub start: String,
        }
    }
    let dir = committed();
    let err = DriftCheck::new(dir.path())
        .add::<added::Chunk>()
        .run()
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("Chunk.end: field `end` added without a default (breaking)\n      fix: give `end` a #[codec(default)]"),
        "{err}"
    );
    assert!(err.contains("apply the fixes above"), "{err}");

    let err = DriftCheck::new(dir.path())
        .add::<retyped::Chunk>()
        .run()
        .unwrap_err()
        .to_string();
    assert!(!err.contains("add a default or alias"), "{err}");
    assert!(
        err.contains("no default or alias can make compatible (Chunk.start): restore the old shape, or raise #[codec(version = 2)]"),
        "{err}"
    );
}

#[test]
fn errors_read_through_unwrap_as_their_message() {
    let dir = committed();
    let err = DriftCheck::new(dir.path())
        .add::<renamed::TextChunk>()
        .run()
        .unwrap_err();
    assert_eq!(format!("{err:?}"), err.to_string());
    assert!(!format!("{err:?}").contains("DriftError"));

    let decode = codec::from_json::<u32>(r#""one""#).unwrap_err();
    assert_eq!(format!("{decode:?}"), decode.to_string());
    assert!(format!("{decode:#?}").starts_with("DecodeError {"));
}

#[cfg(feature = "store")]
#[test]
fn store_errors_read_through_unwrap_as_their_message() {
    let store = codec::StoreError::InUse {
        dir: "cache".into(),
    };
    assert_eq!(format!("{store:?}"), store.to_string());
    let compact = || codec::store::Admin::compact("/nonexistent/cache", &[], |_, _| {});
    let panic = std::panic::catch_unwind(|| compact().unwrap()).unwrap_err();
    let message = panic.downcast_ref::<String>().unwrap();
    assert!(
        message.ends_with(
            "cannot open the cache at /nonexistent/cache: \
             it is not a codec cache folder (no codec-store.json)"
        ),
        "{message}"
    );
}

#[test]
fn two_types_under_one_wire_name_are_a_problem() {
    let dir = committed();
    let err = DriftCheck::new(dir.path())
        .add::<before::Chunk>()
        .add::<renamed_only::TextChunk>()
        .add::<renamed::TextChunk>()
        .run()
        .unwrap_err()
        .to_string();
    assert!(err.contains("`TextChunk` is the wire name of"), "{err}");
}

mod twins {
    /// An owned type and its borrowing twin whose fields have drifted apart.
    #[derive(codec::Codec)]
    #[codec(name = "Chunk")]
    pub struct Chunk {
        pub text: String,
        pub start: u32,
    }

    #[derive(codec::Codec)]
    #[codec(name = "Chunk")]
    pub struct ChunkRef<'a> {
        pub text: &'a str,
        pub start: u64,
    }

    #[derive(codec::Codec)]
    #[codec(name = "Chunk")]
    pub struct SameRef<'a> {
        pub text: &'a str,
        pub start: u32,
    }
}

#[test]
fn two_types_of_one_wire_name_and_two_schemas_are_an_error_naming_both() {
    let dir = tempfile::tempdir().unwrap();
    let err = DriftCheck::new(dir.path())
        .add::<twins::Chunk>()
        .add::<twins::ChunkRef<'static>>()
        .update(true)
        .run()
        .unwrap_err()
        .to_string();
    assert!(err.contains("`Chunk` is the wire name of"), "{err}");
    assert!(
        err.contains("twins::Chunk`") && err.contains("twins::ChunkRef"),
        "{err}"
    );
    assert!(
        std::fs::read_dir(dir.path()).unwrap().next().is_none(),
        "nothing written"
    );
    // Twins of one schema are one stored type.
    DriftCheck::new(dir.path())
        .add::<twins::Chunk>()
        .add::<twins::SameRef<'static>>()
        .update(true)
        .run()
        .unwrap();
    DriftCheck::new(dir.path())
        .add::<twins::Chunk>()
        .add::<twins::SameRef<'static>>()
        .run()
        .unwrap();
}

mod half {
    pub mod v1 {
        #[derive(codec::Codec)]
        #[codec(name = "half.Doc")]
        pub struct Doc {
            pub text: String,
        }
        #[derive(codec::Codec)]
        #[codec(name = "half.Span")]
        pub struct Span {
            pub end: u32,
        }
    }
    pub mod v2 {
        /// A compatible change.
        #[derive(codec::Codec)]
        #[codec(name = "half.Doc")]
        pub struct Doc {
            pub text: String,
            #[codec(default)]
            pub lang: String,
        }
        /// A breaking one.
        #[derive(codec::Codec)]
        #[codec(name = "half.Span")]
        pub struct Span {
            pub end: String,
        }
    }
}

#[test]
fn a_refused_update_writes_no_file_of_any_type() {
    use half::{v1, v2};
    let dir = tempfile::tempdir().unwrap();
    DriftCheck::new(dir.path())
        .add::<v1::Doc>()
        .add::<v1::Span>()
        .update(true)
        .run()
        .unwrap();
    let before = |name: &str| std::fs::read_to_string(dir.path().join(name)).unwrap();
    let (doc, span) = (before("half.Doc.json"), before("half.Span.json"));
    let err = DriftCheck::new(dir.path())
        .add::<v2::Doc>()
        .add::<v2::Span>()
        .update(true)
        .run()
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("half.Span.end: integer -> string (breaking)"),
        "{err}"
    );
    assert!(err.contains("nothing was written"), "{err}");
    assert_eq!(
        before("half.Doc.json"),
        doc,
        "the compatible type's file was rewritten"
    );
    assert_eq!(before("half.Span.json"), span);

    // The Python module of the same types stays as it was too.
    let module = dir.path().join("models.py");
    codec::python::Module::new()
        .add::<v1::Doc>()
        .add::<v1::Span>()
        .update(true)
        .check(&module)
        .unwrap();
    let python = std::fs::read_to_string(&module).unwrap();
    let err = codec::python::Module::new()
        .add::<v2::Doc>()
        .add::<v2::Span>()
        .schemas(dir.path())
        .update(true)
        .check(&module)
        .unwrap_err()
        .to_string();
    assert!(err.contains("half.Span.end: integer -> string"), "{err}");
    assert_eq!(std::fs::read_to_string(&module).unwrap(), python);
    // Without the schemas, a changed fingerprint is not the module's to accept.
    let err = codec::python::Module::new()
        .add::<v2::Doc>()
        .add::<v2::Span>()
        .update(true)
        .check(&module)
        .unwrap_err()
        .to_string();
    assert!(err.contains("Module::schemas"), "{err}");
    assert_eq!(std::fs::read_to_string(&module).unwrap(), python);

    // Once the breaking change is gone, both update.
    mod v3 {
        #[derive(codec::Codec)]
        #[codec(name = "half.Span")]
        pub struct Span {
            pub end: u64,
        }
    }
    codec::python::Module::new()
        .add::<v2::Doc>()
        .add::<v3::Span>()
        .schemas(dir.path())
        .update(true)
        .check(&module)
        .unwrap();
    DriftCheck::new(dir.path())
        .add::<v2::Doc>()
        .add::<v3::Span>()
        .update(true)
        .run()
        .unwrap();
    assert_ne!(before("half.Doc.json"), doc);
    // A module of some of the folder's types: the others' files are not
    // its business.
    codec::python::Module::new()
        .add::<v2::Doc>()
        .schemas(dir.path())
        .update(true)
        .check(dir.path().join("docs.py"))
        .unwrap();
}
