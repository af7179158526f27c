//! `codec python`: the Python module of committed schema files is the one
//! `codec::python::Module` renders from the Rust types.

use std::process::Command;

use codec::python::Module;
use codec::schema::DriftCheck;
use codec::Codec;

#[derive(Codec)]
#[codec(name = "app.Chunk", version = 1)]
struct Chunk {
    text: String,
    #[codec(ge = 0)]
    start: i64,
    kind: Kind,
}

#[derive(Codec)]
#[codec(name = "app.Kind")]
enum Kind {
    Prose,
    Code { language: String },
}

/// A type only the drift check's program links (a type of its test
/// binary, say), not the program that checks the Python module.
#[derive(Codec)]
#[codec(name = "app.PageChunk")]
struct PageChunk {
    page: u32,
}

fn run(args: &[&std::ffi::OsStr]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_codec"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The schemas as the drift check commits them.
fn schemas() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    DriftCheck::new(dir.path())
        .add::<Chunk>()
        .add::<Kind>()
        .update(true)
        .run()
        .unwrap();
    dir
}

#[test]
fn python_writes_what_the_types_render_from_their_committed_schemas() {
    let dir = schemas();
    // Files by name: app.Chunk.json, then app.Kind.json.
    let expected = Module::new().add::<Chunk>().add::<Kind>().render().unwrap();
    let (code, stdout, stderr) = run(&["python".as_ref(), dir.path().as_os_str()]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout, expected);

    let out = tempfile::tempdir().unwrap();
    let models = out.path().join("python").join("models.py");
    let (code, stdout, stderr) = run(&[
        "python".as_ref(),
        dir.path().as_os_str(),
        "-o".as_ref(),
        models.as_os_str(),
    ]);
    assert_eq!((code, stdout.as_str()), (0, ""), "{stderr}");
    assert_eq!(std::fs::read_to_string(&models).unwrap(), expected);
    assert!(expected.contains("__codec_fingerprint__: typing.ClassVar[str] = \""));
    assert!(expected.contains(&codec::fingerprint_of::<Chunk>().to_string()));
    assert!(expected.contains(&codec::fingerprint_of::<Kind>().to_string()));
}

#[test]
fn python_check_fails_on_a_stale_module_and_passes_on_a_fresh_one() {
    let dir = schemas();
    let out = tempfile::tempdir().unwrap();
    let models = out.path().join("models.py");
    let check = |models: &std::path::Path| {
        run(&[
            "python".as_ref(),
            dir.path().as_os_str(),
            "-o".as_ref(),
            models.as_os_str(),
            "--check".as_ref(),
        ])
    };
    let (code, _, stderr) = check(&models);
    assert_eq!(code, 1);
    assert!(stderr.contains("no Python module at"), "{stderr}");
    assert!(!models.exists());

    let fresh = Module::new().add::<Chunk>().add::<Kind>().render().unwrap();
    std::fs::write(&models, fresh.replace("    text: str\n", "    text: int\n")).unwrap();
    let (code, _, stderr) = check(&models);
    assert_eq!(code, 1);
    assert!(
        stderr.contains("committed `    text: int`, generated `    text: str`"),
        "{stderr}"
    );
    // The fix it gives is the command's, not a Rust test's.
    let rewrite = format!(
        "run `codec python {} -o {}` to rewrite it",
        dir.path().display(),
        models.display()
    );
    assert!(stderr.contains(&rewrite), "{stderr}");
    assert!(!stderr.contains("CODEC_UPDATE_SCHEMAS"), "{stderr}");
    std::fs::write(&models, &fresh).unwrap();
    let (code, _, stderr) = check(&models);
    assert_eq!(code, 0, "{stderr}");
}

#[test]
fn python_names_the_file_it_cannot_use() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("odd.json"), r#"{"type": "string"}"#).unwrap();
    let (code, _, stderr) = run(&["python".as_ref(), dir.path().as_os_str()]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("odd.json: a schema without a \"title\""),
        "{stderr}"
    );
    let empty = tempfile::tempdir().unwrap();
    let (code, _, stderr) = run(&["python".as_ref(), empty.path().as_os_str()]);
    assert_eq!(code, 2);
    assert!(stderr.contains("no schema file"), "{stderr}");
}

/// The repository's own committed schemas (the corpus' and the store's
/// records) make a module: `corpus.Value` recurses through an untagged
/// union only.
#[test]
fn python_renders_the_repositorys_committed_schemas() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../schemas");
    let (code, stdout, stderr) = run(&["python".as_ref(), dir.as_ref()]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains("\nclass Document(msgspec.Struct"),
        "{stdout}"
    );
    assert!(
        stdout.contains("\nif typing.TYPE_CHECKING:\n    Value: typing.TypeAlias = "),
        "{stdout}"
    );
}

/// A module of a program's types and the folder of committed schemas
/// (`codec::python_module!().schemas("schemas")`) has the types of the
/// schema files it does not link: it is the module `codec python` writes
/// from the folder, and each one's `--check` passes on the other's file.
#[test]
fn a_module_with_its_schemas_folder_is_the_one_codec_python_writes() {
    let dir = tempfile::tempdir().unwrap();
    DriftCheck::new(dir.path())
        .add::<Chunk>()
        .add::<Kind>()
        .add::<PageChunk>()
        .update(true)
        .run()
        .unwrap();
    let linked = Module::new().add::<Chunk>().add::<Kind>();
    let module = linked.clone().schemas(dir.path()).render().unwrap();
    assert!(
        module.contains("\nclass PageChunk(msgspec.Struct"),
        "{module}"
    );
    assert!(!linked.render().unwrap().contains("class PageChunk("));
    let (code, stdout, stderr) = run(&["python".as_ref(), dir.path().as_os_str()]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout, module);

    let out = tempfile::tempdir().unwrap();
    let models = out.path().join("models.py");
    std::fs::write(&models, &module).unwrap();
    let args = [
        "python".as_ref(),
        dir.path().as_os_str(),
        "-o".as_ref(),
        models.as_os_str(),
    ];
    let (code, _, stderr) = run(&[&args[..], &["--check".as_ref()]].concat());
    assert_eq!(code, 0, "{stderr}");
    let checked = Module::new()
        .add::<Chunk>()
        .add::<Kind>()
        .schemas(dir.path());
    checked.update(false).check(&models).unwrap();
}

/// What `app.Kind` was before it had `Code`, held by a type the program
/// no longer links.
mod before {
    #[derive(codec::Codec)]
    #[codec(name = "app.Kind")]
    pub enum Kind {
        Prose,
    }

    #[derive(codec::Codec)]
    #[codec(name = "app.Holder")]
    pub struct Holder {
        pub kind: Kind,
    }
}

/// A committed schema file that holds an older version of a linked type
/// does not replace the linked type's class.
#[test]
fn a_schema_file_holding_an_older_linked_type_leaves_its_class_as_linked() {
    let dir = tempfile::tempdir().unwrap();
    let schema = codec::schema_of::<before::Holder>();
    let file = dir.path().join("app.Holder.json");
    std::fs::write(&file, serde_json::to_string_pretty(&schema).unwrap()).unwrap();
    let module = Module::new()
        .add::<Chunk>()
        .schemas(dir.path())
        .render()
        .unwrap();
    assert!(module.contains("\nclass Holder(msgspec.Struct"), "{module}");
    assert!(module.contains("    language: str\n"), "{module}");
}
