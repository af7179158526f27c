//! A type's handler applies wherever the store meets the type: inside a
//! `Vec`, an `Option`, a map, a struct's field, an enum's payload, a
//! sub-value a handler dumps; each value goes to its handler, the payload
//! keeps its place, and a read gives it back (`content/sub_values.rs`).

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use codec::store::{
    Admin, Bounds, DumpContext, DumpSelf, Info, InfoValue, LoadContext, TypedHandler,
};
use codec::{Cache, Codec, PutOptions, StoreError};

use crate::fixtures::child;

/// A text kept in a file of its own by `TextFiles`.
#[derive(Codec, Debug, PartialEq, Clone)]
#[codec(name = "inside.Text", handler = TextFiles)]
struct Text(String);

#[derive(Default)]
struct TextFiles;

impl TypedHandler<Text> for TextFiles {
    fn name(&self) -> &str {
        "inside-text-files"
    }

    fn dump(&self, text: &Text, ctx: &mut DumpContext<'_>) -> Result<Info, StoreError> {
        let file = ctx.write_file("txt", text.0.as_bytes())?;
        Ok(Info::from([("file".to_owned(), file.into())]))
    }

    fn load(&self, info: &Info, ctx: &LoadContext<'_>) -> Result<Text, StoreError> {
        let Some(InfoValue::Text(file)) = info.get("file") else {
            return Err(ctx.corrupt("no file"));
        };
        let text =
            String::from_utf8(ctx.read_file(file)?).map_err(|e| ctx.corrupt(e.to_string()))?;
        Ok(Text(text))
    }
}

#[derive(Codec, Debug, PartialEq, Clone)]
#[codec(name = "inside.Note")]
struct Note {
    title: String,
    body: Text,
}

#[derive(Codec, Debug, PartialEq, Clone)]
#[codec(name = "inside.Shape")]
enum Shape {
    Plain(u32),
    Texted { text: Text, n: u32 },
    Pair(Text, u32),
}

#[derive(Codec, Debug, PartialEq, Clone)]
#[codec(name = "inside.Either", untagged)]
enum Either {
    Number(u64),
    Text(Text),
}

/// A payload the newtype variant's map merges its fields into: a
/// handled type cannot be there.
#[derive(Codec, Debug, PartialEq, Clone)]
#[codec(name = "inside.Fields", handler = FieldsFiles)]
struct Fields {
    a: String,
}

#[derive(Default)]
struct FieldsFiles;

impl TypedHandler<Fields> for FieldsFiles {
    fn name(&self) -> &str {
        "inside-fields"
    }

    fn dump(&self, fields: &Fields, _: &mut DumpContext<'_>) -> Result<Info, StoreError> {
        Ok(Info::from([("a".to_owned(), fields.a.clone().into())]))
    }

    fn load(&self, info: &Info, ctx: &LoadContext<'_>) -> Result<Fields, StoreError> {
        match info.get("a") {
            Some(InfoValue::Text(a)) => Ok(Fields { a: a.clone() }),
            _ => Err(ctx.corrupt("no a")),
        }
    }
}

#[derive(Codec, Debug, PartialEq, Clone)]
#[codec(name = "inside.Merged")]
enum Merged {
    Fields(Fields),
}

fn text(s: &str) -> Text {
    Text(format!("the text {s}"))
}

/// The texts the `.txt` files of the folder hold, sorted.
fn text_files(dir: &Path) -> Vec<String> {
    let mut texts: Vec<String> = std::fs::read_dir(dir.join("data"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect();
    texts.sort();
    texts
}

/// The four puts of the new user, and the other places a value sits.
fn put_every_shape(cache: &Cache) {
    cache.put("text", &text("top")).unwrap();
    cache.put("vec", &vec![text("v0"), text("v1")]).unwrap();
    cache.put("option", &Some(text("opt"))).unwrap();
    let note = Note {
        title: "t".into(),
        body: text("body"),
    };
    cache.put("note", &note).unwrap();
    let map = BTreeMap::from([("k".to_owned(), text("map"))]);
    cache.put("map", &map).unwrap();
    let shapes = vec![
        Shape::Plain(1),
        Shape::Texted {
            text: text("variant"),
            n: 2,
        },
        Shape::Pair(text("pair"), 3),
    ];
    cache.put("shapes", &shapes).unwrap();
    let either = vec![Either::Number(5), Either::Text(text("untagged"))];
    cache.put("either", &either).unwrap();
}

fn read_every_shape(cache: &Cache) {
    assert_eq!(cache.get::<Text>("text").unwrap(), Some(text("top")));
    assert_eq!(
        cache.get::<Vec<Text>>("vec").unwrap(),
        Some(vec![text("v0"), text("v1")])
    );
    assert_eq!(
        cache.get::<Option<Text>>("option").unwrap(),
        Some(Some(text("opt")))
    );
    assert_eq!(
        cache.get::<Note>("note").unwrap().unwrap().body,
        text("body")
    );
    assert_eq!(
        cache.get::<BTreeMap<String, Text>>("map").unwrap().unwrap()["k"],
        text("map")
    );
    let shapes = cache.get::<Vec<Shape>>("shapes").unwrap().unwrap();
    assert_eq!(
        shapes,
        [
            Shape::Plain(1),
            Shape::Texted {
                text: text("variant"),
                n: 2
            },
            Shape::Pair(text("pair"), 3),
        ]
    );
    assert_eq!(
        cache.get::<Vec<Either>>("either").unwrap().unwrap(),
        [Either::Number(5), Either::Text(text("untagged"))]
    );
}

const EVERY_TEXT: [&str; 9] = [
    "body", "map", "opt", "pair", "top", "untagged", "v0", "v1", "variant",
];

#[test]
fn a_types_handler_keeps_it_wherever_it_is_stored() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    put_every_shape(&cache);
    // One file per text, written by its handler: none is inline.
    let expected: Vec<String> = EVERY_TEXT.iter().map(|s| text(s).0).collect();
    assert_eq!(text_files(dir.path()), expected);
    // The entries holding them list the values' tokens, and their bytes.
    let entries = cache.entries().unwrap();
    let vec = entries.iter().find(|e| e.key == "vec").unwrap();
    let Some(InfoValue::List(values)) = vec.info.get("#values") else {
        panic!("the entry lists its values: {:?}", vec.info);
    };
    assert_eq!(values.len(), 2);
    let Some(InfoValue::Map(token)) = values.first() else {
        panic!("a token is a map: {values:?}");
    };
    assert_eq!(token["handler"], InfoValue::from("inside-text-files"));
    assert_eq!(vec.parts.as_ref().map(Vec::len), Some(2));
    let payload_and_files = vec.size;
    assert!(
        payload_and_files >= (text("v0").0.len() + text("v1").0.len()) as u64,
        "the size counts the files: {payload_and_files}"
    );
    for entry in &entries {
        cache.admin().check_entry_bytes(entry).unwrap();
    }
    read_every_shape(&cache);
    // Another handle reads them, and reads each text from its file.
    let other = Cache::open(dir.path()).unwrap();
    read_every_shape(&other);
    let note_file = token_file(&entries, "note");
    std::fs::write(dir.path().join("data").join(&note_file), "changed").unwrap();
    assert_eq!(
        other.get::<Note>("note").unwrap().unwrap().body,
        Text("changed".into())
    );
}

/// The file of the first value the entry `key` holds.
fn token_file(entries: &[codec::store::EntryInfo], key: &str) -> String {
    let entry = entries.iter().find(|e| e.key == key).unwrap();
    let Some(InfoValue::List(values)) = entry.info.get("#values") else {
        panic!("{key} lists its values: {:?}", entry.info);
    };
    let InfoValue::Map(token) = &values[0] else {
        panic!()
    };
    let InfoValue::Map(info) = &token["info"] else {
        panic!()
    };
    info["file"].as_text().unwrap().to_owned()
}

#[test]
#[ignore = "a child process of the test below"]
fn child_reads_every_shape() {
    let Some(dir) = child::var::<std::path::PathBuf>("CODEC_DIR") else {
        return;
    };
    read_every_shape(&Cache::open(&dir).unwrap());
    println!("ok");
}

#[test]
fn another_process_reads_values_kept_by_their_handler() {
    let dir = tempfile::tempdir().unwrap();
    put_every_shape(&Cache::open(dir.path()).unwrap());
    let out = child!(child_reads_every_shape)
        .env("CODEC_DIR", dir.path())
        .output();
    child::ended_well(&out);
    assert!(String::from_utf8_lossy(&out.stdout).contains("ok"));
}

#[test]
fn compaction_copies_the_values_and_removal_deletes_their_files() {
    let dir = tempfile::tempdir().unwrap();
    {
        let cache = Cache::open(dir.path()).unwrap();
        put_every_shape(&cache);
        // Enough data to be kept in the shared file, with its texts.
        let big: Vec<Text> = (0..50).map(|i| text(&format!("big {i:02}"))).collect();
        cache.put("big", &big).unwrap();
    }
    Admin::compact(dir.path(), &[], |_, _| {}).unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    read_every_shape(&cache);
    let big = cache.get::<Vec<Text>>("big").unwrap().unwrap();
    assert_eq!(big[49], text("big 49"));
    assert_eq!(text_files(dir.path()).len(), EVERY_TEXT.len() + 50);
    for entry in cache.entries().unwrap() {
        cache.admin().check_entry_bytes(&entry).unwrap();
    }
    assert!(cache.remove("big").unwrap());
    assert!(cache.remove("vec").unwrap());
    assert_eq!(text_files(dir.path()).len(), EVERY_TEXT.len() - 2);
}

#[test]
fn bounds_count_the_values_files() {
    let dir = tempfile::tempdir().unwrap();
    let long = |i: u32| Text(format!("{i}").repeat(10_000));
    let cache = Cache::open(dir.path()).unwrap();
    for (key, i) in [("a", 1), ("b", 2), ("c", 3)] {
        cache.put(key, &vec![long(i)]).unwrap();
    }
    // Each entry is its small payload and its text's file, which counts.
    for entry in cache.entries().unwrap() {
        let parts = entry.parts.as_deref().unwrap_or_default();
        let files: u64 = parts.iter().map(|p| p.len).sum();
        assert_eq!(files, 10_000, "{entry:?}");
        assert!(entry.size > files && entry.size < files + 100, "{entry:?}");
    }
    let bounds = Bounds::default().max_bytes(25_000);
    let done = cache
        .admin()
        .reduce_size(&bounds, Duration::from_secs(3600))
        .unwrap();
    assert_eq!(done.removed, ["a"], "the least recently used went");
    assert_eq!(cache.get::<Vec<Text>>("c").unwrap(), Some(vec![long(3)]));
}

#[test]
fn json_mode_and_merged_payloads_are_refused_with_the_fix() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    let json = PutOptions::default().mode(codec::store::Mode::Json);
    let err = cache.put_with("json", &vec![text("j")], &json).unwrap_err();
    assert!(err.to_string().contains("MessagePack mode"), "{err}");
    let err = cache
        .put("merged", &Merged::Fields(Fields { a: "x".into() }))
        .unwrap_err();
    let source = std::error::Error::source(&err).map(ToString::to_string);
    assert!(
        source
            .as_ref()
            .is_some_and(|s| s.contains("struct variant")),
        "{err}: {source:?}"
    );
    assert!(cache.keys().unwrap().is_empty());
    // Outside the store, the value encodes as it always did.
    let plain = codec::to_msgpack(&vec![text("p")]).unwrap();
    assert_eq!(
        codec::from_msgpack::<Vec<Text>>(&plain).unwrap(),
        [text("p")]
    );
}

#[test]
fn bytes_read_outside_the_store_name_the_fix() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    cache.put("vec", &vec![text("a")]).unwrap();
    let bytes = cache.get_bytes("vec").unwrap().unwrap();
    let err = codec::from_msgpack::<Vec<Text>>(&bytes).unwrap_err();
    assert!(err.to_string().contains("`get`"), "{err}");
    let err = cache.get_ref::<Vec<Text>>("vec").err().unwrap();
    assert!(err.to_string().contains("Cache::get"), "{err}");
}

/// A shelf that stores itself: its texts as one sub-value, each text of
/// which goes to `TextFiles` in turn.
#[derive(Codec, Debug, PartialEq, Clone)]
#[codec(name = "inside.Shelf", handler = Self)]
struct Shelf {
    label: String,
    texts: Vec<Text>,
}

impl DumpSelf for Shelf {
    const HANDLER: &'static str = "inside-shelf";

    fn dump_info(&self, ctx: &mut DumpContext<'_>) -> Result<Info, StoreError> {
        Ok(Info::from([
            ("label".to_owned(), self.label.as_str().into()),
            ("texts".to_owned(), ctx.dump(&self.texts)?),
        ]))
    }

    fn load_from_info(info: &Info, ctx: &LoadContext<'_>) -> Result<Self, StoreError> {
        let label = info
            .get("label")
            .and_then(InfoValue::as_text)
            .unwrap_or_default();
        let texts = ctx.load(info.get("texts").ok_or_else(|| ctx.corrupt("no texts"))?)?;
        Ok(Shelf {
            label: label.to_owned(),
            texts,
        })
    }
}

#[test]
fn values_inside_a_sub_value_go_to_their_handler_too() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    let shelf = Shelf {
        label: "s".into(),
        texts: vec![text("s0"), text("s1")],
    };
    // A shelf of its own, and shelves in a list: each shelf through its
    // handler, each of its texts through theirs.
    cache.put("shelf", &shelf).unwrap();
    cache
        .put("shelves", &vec![shelf.clone(), shelf.clone()])
        .unwrap();
    assert_eq!(text_files(dir.path()).len(), 6);
    let entries = cache.entries().unwrap();
    let one = entries.iter().find(|e| e.key == "shelf").unwrap();
    let Some(InfoValue::Map(token)) = one.info.get("texts") else {
        panic!("{:?}", one.info);
    };
    assert!(
        matches!(&token["values"], InfoValue::List(v) if v.len() == 2),
        "{token:?}"
    );
    // The list itself is small: its token holds it.
    assert_eq!(one.parts.as_ref().map(Vec::len), Some(2), "the two texts");
    let other = Cache::open(dir.path()).unwrap();
    assert_eq!(other.get::<Shelf>("shelf").unwrap(), Some(shelf.clone()));
    assert_eq!(
        other.get::<Vec<Shelf>>("shelves").unwrap(),
        Some(vec![shelf.clone(), shelf.clone()])
    );
    drop((cache, other));
    // Copied without the handlers: the texts' files renamed at any depth.
    Admin::compact(dir.path(), &[], |_, _| {}).unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    assert_eq!(cache.get::<Shelf>("shelf").unwrap(), Some(shelf.clone()));
    assert_eq!(
        cache.get::<Vec<Shelf>>("shelves").unwrap(),
        Some(vec![shelf.clone(), shelf])
    );
    assert_eq!(text_files(dir.path()).len(), 6);
}

#[test]
fn a_folder_of_the_earlier_layout_is_raised_by_its_first_entry_holding_kept_values() {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/store-v1");
    let dir = tempfile::tempdir().unwrap();
    crate::fixtures::copy_dir(&fixture, dir.path());
    let layout = || std::fs::read_to_string(dir.path().join("codec-store.json")).unwrap();
    assert_eq!(layout(), r#"{"format":1}"#);
    let cache = Cache::open(dir.path()).unwrap();
    // What a codec of layout 1 reads keeps the folder at 1.
    cache.put("plain", &text("plain")).unwrap();
    cache.put("note", &"a note".to_owned()).unwrap();
    assert_eq!(layout(), r#"{"format":1}"#);
    // An entry holding a kept value raises it: such a codec would lose it.
    cache.put("kept", &vec![text("kept")]).unwrap();
    assert_eq!(layout(), r#"{"format":2}"#);
    let other = Cache::open(dir.path()).unwrap();
    assert_eq!(
        other.get::<Vec<Text>>("kept").unwrap(),
        Some(vec![text("kept")])
    );
    assert_eq!(other.get::<Text>("plain").unwrap(), Some(text("plain")));
}

#[test]
fn too_many_kept_values_in_one_value_are_refused_with_the_fix() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    let many: Vec<Text> = (0..1_001).map(|i| text(&i.to_string())).collect();
    let err = cache.put("many", &many).unwrap_err();
    let source = std::error::Error::source(&err).map(ToString::to_string);
    assert!(
        source
            .as_ref()
            .is_some_and(|s| s.contains("entries of their own")),
        "{err}: {source:?}"
    );
    assert!(cache.keys().unwrap().is_empty());
    cache.put("enough", &many[..1_000].to_vec()).unwrap();
    assert_eq!(
        cache.get::<Vec<Text>>("enough").unwrap().unwrap().len(),
        1_000
    );
}
