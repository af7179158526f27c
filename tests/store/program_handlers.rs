//! Handlers a type names once for the whole program
//! (`#[codec(handler = ..)]`): every handle of every process that links
//! the type uses them, without registering anything at run time.

use std::sync::Arc;

use codec::store::{DumpContext, Info, InfoValue, LoadContext, Typed, TypedHandler};
use codec::{Cache, Codec, StoreError};

use crate::fixtures::child;

/// A page kept as a text file of its own, by the handler its type names.
#[derive(Codec, Debug, PartialEq)]
#[codec(name = "test.Sheet", handler = TextSheets)]
struct Sheet {
    lines: Vec<String>,
}

/// Large blobs, each in a file of its own: a built-in handler by name.
#[derive(Codec, Debug, PartialEq)]
#[codec(name = "test.Blob", handler = "file")]
struct Blob(codec::Bytes);

#[derive(Default)]
struct TextSheets;

impl TypedHandler<Sheet> for TextSheets {
    fn name(&self) -> &str {
        "text-sheets"
    }

    fn dump(&self, sheet: &Sheet, ctx: &mut DumpContext<'_>) -> Result<Info, StoreError> {
        let name = ctx.write_file("txt", sheet.lines.join("\n").as_bytes())?;
        Ok(Info::from([("file".to_owned(), name.into())]))
    }

    fn load(&self, info: &Info, ctx: &LoadContext<'_>) -> Result<Sheet, StoreError> {
        let Some(InfoValue::Text(name)) = info.get("file") else {
            return Err(ctx.corrupt("no file"));
        };
        let text =
            String::from_utf8(ctx.read_file(name)?).map_err(|e| ctx.corrupt(e.to_string()))?;
        Ok(Sheet {
            lines: text.lines().map(str::to_owned).collect(),
        })
    }
}

fn sheet(n: u32) -> Sheet {
    Sheet {
        lines: vec![format!("sheet {n}"), "second line".to_owned()],
    }
}

fn handlers(cache: &Cache) -> Vec<(String, String)> {
    let mut entries: Vec<_> = (cache.entries().unwrap().into_iter())
        .map(|e| (e.key, e.handler))
        .collect();
    entries.sort();
    entries
}

#[test]
fn a_handler_named_by_the_type_stores_it_in_every_handle() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    cache.put("s", &sheet(1)).unwrap();
    cache
        .put("b", &Blob(codec::Bytes::from(vec![7; 32])))
        .unwrap();
    assert_eq!(
        handlers(&cache),
        [
            ("b".to_owned(), "file".to_owned()),
            ("s".to_owned(), "text-sheets".to_owned())
        ]
    );
    let txt = std::fs::read_dir(dir.path().join("data")).unwrap();
    assert_eq!(
        txt.filter(|f| f
            .as_ref()
            .unwrap()
            .path()
            .extension()
            .is_some_and(|e| e == "txt"))
            .count(),
        1
    );
    // A handle that registered nothing reads it through the handler.
    let other = Cache::open(dir.path()).unwrap();
    assert_eq!(other.get::<Sheet>("s").unwrap(), Some(sheet(1)));
    assert_eq!(
        other.get::<Blob>("b").unwrap(),
        Some(Blob(codec::Bytes::from(vec![7; 32])))
    );
}

#[test]
fn a_read_in_place_finds_the_handler_its_type_names() {
    let dir = tempfile::tempdir().unwrap();
    Cache::open(dir.path())
        .unwrap()
        .put("s", &sheet(7))
        .unwrap();
    // A handle that registered nothing and never met the type.
    let other = Cache::open(dir.path()).unwrap();
    let entry = other.get_ref::<Sheet>("s").unwrap().unwrap();
    assert!(!entry.is_mapped(), "loaded by the handler: {entry:?}");
    assert_eq!(entry.value().unwrap(), sheet(7));
}

/// Stores sheets inline, as MessagePack, under a name of its own.
struct PlainSheets;

impl TypedHandler<Sheet> for PlainSheets {
    fn name(&self) -> &str {
        "plain-sheets"
    }

    fn dump(&self, sheet: &Sheet, ctx: &mut DumpContext<'_>) -> Result<Info, StoreError> {
        Ok(Info::from([("value".to_owned(), ctx.dump_value(sheet)?)]))
    }

    fn load(&self, info: &Info, ctx: &LoadContext<'_>) -> Result<Sheet, StoreError> {
        ctx.load_value(info.get("value").ok_or_else(|| ctx.corrupt("no value"))?)
    }
}

#[test]
fn put_many_stores_each_value_by_its_types_handler() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    let sheets = [sheet(5), sheet(6)];
    cache
        .put_many([("m/5", &sheets[0]), ("m/6", &sheets[1])])
        .unwrap();
    assert_eq!(
        handlers(&cache),
        [
            ("m/5".to_owned(), "text-sheets".to_owned()),
            ("m/6".to_owned(), "text-sheets".to_owned())
        ]
    );
    let other = Cache::open(dir.path()).unwrap();
    assert_eq!(
        other.get_many::<Sheet>(&["m/5", "m/6"]).unwrap(),
        [Some(sheet(5)), Some(sheet(6))]
    );
}

#[test]
fn a_handler_registered_in_the_handle_wins_over_the_types() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    cache.register_default_handler::<Sheet>(Typed::new(PlainSheets));
    cache.register_default_handler::<Blob>(Arc::new(codec::store::Shared));
    cache.put("s", &sheet(2)).unwrap();
    cache
        .put("b", &Blob(codec::Bytes::from(vec![1; 8])))
        .unwrap();
    assert_eq!(
        handlers(&cache),
        [
            ("b".to_owned(), "shared".to_owned()),
            ("s".to_owned(), "plain-sheets".to_owned())
        ]
    );
    // The type's own handler still reads what it wrote.
    let other = Cache::open(dir.path()).unwrap();
    other.put("t", &sheet(3)).unwrap();
    assert_eq!(cache.get::<Sheet>("t").unwrap(), Some(sheet(3)));
    assert_eq!(cache.get::<Sheet>("s").unwrap(), Some(sheet(2)));
}

#[test]
fn a_handle_that_never_met_the_type_names_the_missing_handler() {
    let dir = tempfile::tempdir().unwrap();
    Cache::open(dir.path())
        .unwrap()
        .put("s", &sheet(4))
        .unwrap();
    // Read as a value without the type, the handler cannot be found: the
    // error says which and how to provide it.
    let other = Cache::open(dir.path()).unwrap();
    match other.get::<codec::Value>("s") {
        Err(e @ StoreError::UnknownHandler { .. }) => {
            assert!(e.to_string().contains("text-sheets"), "{e}");
        }
        other => panic!("expected UnknownHandler, got {other:?}"),
    }
    // Its bytes are what the handler wrote, as the entry recorded them.
    assert_eq!(
        other.get_bytes("s").unwrap().unwrap(),
        sheet(4).lines.join("\n").as_bytes()
    );
    // Once the handle has met the type, the untyped reads are the value's.
    assert_eq!(other.get::<Sheet>("s").unwrap(), Some(sheet(4)));
    assert_eq!(
        other.get_bytes("s").unwrap().unwrap(),
        codec::to_msgpack(&sheet(4)).unwrap()
    );
}

/// Reads the parent's sheet and puts one, in a process of its own that
/// registers nothing.
#[test]
#[ignore = "a child process of the test below"]
fn child_handler_sheets() {
    let Some(dir) = child::var::<std::path::PathBuf>("CODEC_DIR") else {
        return;
    };
    // A get first: this handle has not stored a sheet yet.
    let cache = Cache::open(&dir).unwrap();
    assert_eq!(cache.get::<Sheet>("parent").unwrap(), Some(sheet(20)));
    cache.put("child", &sheet(10)).unwrap();
    println!("ok");
}

#[test]
fn two_processes_share_a_types_handler_without_registering_it() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    cache.put("parent", &sheet(20)).unwrap();
    let out = child!(child_handler_sheets)
        .env("CODEC_DIR", dir.path())
        .output();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("ok"),
        "child failed: {stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let reader = Cache::open(dir.path()).unwrap();
    assert_eq!(reader.get::<Sheet>("child").unwrap(), Some(sheet(10)));
    cache.refresh().unwrap();
    assert_eq!(
        handlers(&cache),
        [
            ("child".to_owned(), "text-sheets".to_owned()),
            ("parent".to_owned(), "text-sheets".to_owned())
        ]
    );
}

#[derive(Codec, Debug, PartialEq)]
#[codec(name = "test.InlineNote", handler = "inline")]
struct InlineNote(String);

#[derive(Codec, Debug, PartialEq)]
#[codec(name = "test.SharedNote", handler = "shared")]
struct SharedNote(String);

#[derive(Codec, Debug, PartialEq)]
#[codec(name = "test.AutoNote", handler = "auto")]
struct AutoNote(String);

/// The derive accepts the built-in names a derived type may take
/// (`codec-derive`'s `check_handler`): each is a handler of every store.
#[test]
fn every_built_in_handler_a_type_may_name_stores_it() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    let text = "a note".repeat(100);
    cache.put("inline", &InlineNote(text.clone())).unwrap();
    cache.put("shared", &SharedNote(text.clone())).unwrap();
    cache.put("auto", &AutoNote(text.clone())).unwrap();
    cache
        .put("file", &Blob(codec::Bytes::from(vec![1; 4])))
        .unwrap();
    for (key, handler) in handlers(&cache) {
        assert_eq!(key, handler);
    }
    let other = Cache::open(dir.path()).unwrap();
    assert_eq!(
        other.get::<InlineNote>("inline").unwrap(),
        Some(InlineNote(text.clone()))
    );
    assert_eq!(
        other.get::<SharedNote>("shared").unwrap(),
        Some(SharedNote(text.clone()))
    );
    assert_eq!(other.get::<AutoNote>("auto").unwrap(), Some(AutoNote(text)));
}

/// A value that stores itself (exca's `__dump_info__`): its text in a
/// file, its title in the info.
#[derive(Codec, Debug, PartialEq)]
#[codec(name = "test.Report", handler = Self)]
struct Report {
    title: String,
    body: String,
}

impl codec::store::DumpSelf for Report {
    const HANDLER: &'static str = "report";

    fn dump_info(&self, ctx: &mut DumpContext<'_>) -> Result<Info, StoreError> {
        let file = ctx.write_file("txt", self.body.as_bytes())?;
        Ok(Info::from([
            ("file".to_owned(), file.into()),
            ("title".to_owned(), self.title.as_str().into()),
        ]))
    }

    fn load_from_info(info: &Info, ctx: &LoadContext<'_>) -> Result<Self, StoreError> {
        let text = |name: &str| match info.get(name) {
            Some(InfoValue::Text(t)) => Ok(t.clone()),
            _ => Err(ctx.corrupt(format!("no `{name}`"))),
        };
        let body = String::from_utf8(ctx.read_file(&text("file")?)?)
            .map_err(|e| ctx.corrupt(e.to_string()))?;
        Ok(Report {
            title: text("title")?,
            body,
        })
    }

    fn delete_info(info: &Info, ctx: &LoadContext<'_>) -> Result<(), StoreError> {
        match info.get("file") {
            Some(InfoValue::Text(file)) => ctx.delete_file(file),
            _ => Ok(()),
        }
    }
}

#[test]
fn a_type_that_dumps_itself_is_its_own_handler() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    let report = Report {
        title: "weekly".into(),
        body: "all good".into(),
    };
    cache.put("r", &report).unwrap();
    let entries = cache.entries().unwrap();
    assert_eq!(entries[0].handler, "report");
    assert_eq!(
        entries[0].info.get("title"),
        Some(&InfoValue::from("weekly"))
    );
    let other = Cache::open(dir.path()).unwrap();
    assert_eq!(other.get::<Report>("r").unwrap(), Some(report));
    let files = || std::fs::read_dir(dir.path().join("data")).unwrap().count();
    assert_eq!(files(), 1);
    other.remove("r").unwrap();
    assert_eq!(files(), 0, "delete_info frees the file");
}

/// A handler entry is as large as the files it wrote: its size counts in
/// listings and bounds as any entry's does.
#[test]
fn a_handler_entrys_size_is_the_bytes_it_wrote() {
    use codec::store::Bounds;
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    let long = Sheet {
        lines: vec!["x".repeat(4000); 3],
    };
    cache.put("long", &long).unwrap();
    cache.put("short", &sheet(1)).unwrap();
    let text_len = |s: &Sheet| s.lines.join("\n").len() as u64;
    let size = |key: &str| {
        let entries = cache.entries().unwrap();
        entries.into_iter().find(|e| e.key == key).unwrap().size
    };
    assert_eq!(size("long"), text_len(&long));
    assert_eq!(size("short"), text_len(&sheet(1)));
    // A bound below the two: the older, larger one goes.
    let grace = std::time::Duration::from_secs(3600);
    let bound = Bounds::default().max_bytes(text_len(&long));
    let done = cache.admin().reduce_size(&bound, grace).unwrap();
    assert_eq!(done.removed, ["long"]);
    assert_eq!(cache.keys().unwrap(), ["short"]);
}
