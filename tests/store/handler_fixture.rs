//! A cache folder with entries of a program's own handler, written before
//! entries recorded their bytes (`tests/fixtures/store-handlers-v1`): it
//! opens, reads, takes new entries (which record theirs) and compacts,
//! with the handler the type brings. (Without the handler, the `codec`
//! command lists them as their handler's to check: `codec-cli`'s tests.)

use std::path::Path;

use codec::store::{Admin, DumpContext, Info, InfoValue, LoadContext, TypedHandler};
use codec::{Cache, Codec, StoreError};

use crate::fixtures::copy_dir;

/// The type and handler of the folder, as they were.
#[derive(Codec, Debug, PartialEq, Clone)]
#[codec(name = "fixture.Text", handler = TextFiles)]
struct Text(String);

#[derive(Default)]
struct TextFiles;

impl TypedHandler<Text> for TextFiles {
    fn name(&self) -> &str {
        "text-files"
    }

    fn dump(&self, text: &Text, ctx: &mut DumpContext<'_>) -> Result<Info, StoreError> {
        let file = ctx.write_file("txt", text.0.as_bytes())?;
        let note = ctx.dump_bytes(&[b'n'; 200])?;
        Ok(Info::from([
            ("file".to_owned(), file.into()),
            ("note".to_owned(), note),
        ]))
    }

    fn load(&self, info: &Info, ctx: &LoadContext<'_>) -> Result<Text, StoreError> {
        let Some(InfoValue::Text(file)) = info.get("file") else {
            return Err(ctx.corrupt("no file"));
        };
        let note = ctx.load_bytes(info.get("note").ok_or_else(|| ctx.corrupt("no note"))?)?;
        if note != vec![b'n'; 200] {
            return Err(ctx.corrupt("the note changed"));
        }
        let text =
            String::from_utf8(ctx.read_file(file)?).map_err(|e| ctx.corrupt(e.to_string()))?;
        Ok(Text(text))
    }
}

fn text(i: u32) -> Text {
    Text(format!("text number {i}"))
}

#[test]
fn a_folder_of_handler_entries_written_before_parts_reads_and_compacts() {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/store-handlers-v1");
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixture, dir.path());
    {
        let cache = Cache::open(dir.path()).unwrap();
        assert_eq!(cache.keys().unwrap(), ["plain", "text/0", "text/1"]);
        assert_eq!(cache.get::<Text>("text/0").unwrap(), Some(text(0)));
        assert_eq!(cache.get::<Text>("text/1").unwrap(), Some(text(1)));
        assert_eq!(cache.get::<u32>("plain").unwrap(), Some(42));
        // Its entries recorded no parts; a new one does.
        let entries = cache.entries().unwrap();
        let old = entries.iter().find(|e| e.key == "text/0").unwrap();
        assert!(old.parts.is_none());
        assert_eq!(cache.admin().check_entry_bytes(old).unwrap(), None);
        cache.put("text/3", &text(3)).unwrap();
        let entries = cache.entries().unwrap();
        let new = entries.iter().find(|e| e.key == "text/3").unwrap();
        let parts = new.parts.as_ref().unwrap();
        assert_eq!(
            parts.len(),
            1,
            "the file; the note is in the info: {parts:?}"
        );
        assert_eq!(parts[0].len, text(3).0.len() as u64);
        assert_eq!(cache.admin().check_entry_bytes(new).unwrap(), Some(1));
    }
    let handler: std::sync::Arc<dyn codec::store::Handler> = codec::store::Typed::new(TextFiles);
    Admin::compact(dir.path(), &[handler], |_, _| {}).unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    for i in [0, 1, 3] {
        assert_eq!(
            cache.get::<Text>(&format!("text/{i}")).unwrap(),
            Some(text(i))
        );
    }
    assert_eq!(cache.get::<Text>("text/2").unwrap(), None);
    // The compaction wrote them again through the handler: they record
    // their parts now.
    for entry in cache.entries().unwrap() {
        if entry.handler == "text-files" {
            assert_eq!(cache.admin().check_entry_bytes(&entry).unwrap(), Some(1));
        }
    }
}
