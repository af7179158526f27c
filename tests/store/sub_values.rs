//! Sub-values through their own handlers (`DumpContext::dump`,
//! `LoadContext::load`): arrays kept apart and viewed in the memory map,
//! user handlers, schemas checked.

use codec::store::{DumpContext, Info, InfoValue, LoadContext, MappedArray, Typed, TypedHandler};
use codec::{Cache, Codec, StoreError};

/// A scan: a name and its pixels, stored by `Scans`.
#[derive(Codec)]
#[codec(name = "test.Scan")]
struct Scan {
    name: String,
    pixels: MappedArray<f32>,
}

struct Scans;

fn part<'a>(
    info: &'a Info,
    name: &str,
    ctx: &LoadContext<'_>,
) -> Result<&'a InfoValue, StoreError> {
    info.get(name)
        .ok_or_else(|| ctx.corrupt(format!("no `{name}`")))
}

impl TypedHandler<Scan> for Scans {
    fn name(&self) -> &str {
        "scans"
    }

    fn dump(&self, scan: &Scan, ctx: &mut DumpContext<'_>) -> Result<Info, StoreError> {
        let pixels: ndarray::Array2<f32> = scan.pixels.to_owned().map_err(|e| ctx_error(&e))?;
        Ok(Info::from([
            ("name".to_owned(), ctx.dump(&scan.name)?),
            ("pixels".to_owned(), ctx.dump(&pixels)?),
        ]))
    }

    fn load(&self, info: &Info, ctx: &LoadContext<'_>) -> Result<Scan, StoreError> {
        Ok(Scan {
            name: ctx.load(part(info, "name", ctx)?)?,
            pixels: ctx.load(part(info, "pixels", ctx)?)?,
        })
    }
}

fn ctx_error(e: &ndarray::ShapeError) -> StoreError {
    StoreError::Handler {
        key: String::new(),
        handler: "scans".into(),
        message: e.to_string(),
    }
}

fn pixels() -> ndarray::Array2<f32> {
    ndarray::Array2::from_shape_fn((200, 100), |(i, j)| (i * 100 + j) as f32)
}

#[test]
fn an_array_sub_value_dumped_through_the_context_reads_back_from_the_map() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    cache.register_default_handler::<Scan>(Typed::new(Scans));
    let scan = Scan {
        name: "first".into(),
        pixels: MappedArray::from_array(&pixels()),
    };
    cache.put("scan", &scan).unwrap();
    let entry = &cache.entries().unwrap()[0];
    let Some(InfoValue::Map(token)) = entry.info.get("pixels") else {
        panic!("the pixels' token is a map: {:?}", entry.info);
    };
    assert_eq!(token["handler"], InfoValue::from("auto"));
    assert_eq!(
        token["type"].as_text(),
        Some(codec::schema::wire_name::<ndarray::Array2<f32>>().as_ref())
    );

    let other = Cache::open(dir.path()).unwrap();
    other.register_default_handler::<Scan>(Typed::new(Scans));
    let back = other.get::<Scan>("scan").unwrap().unwrap();
    assert_eq!(back.name, "first");
    assert!(
        back.pixels.is_mapped(),
        "the pixels are viewed in the data file's map"
    );
    #[cfg(target_os = "linux")]
    crate::fixtures::assert_in_a_map_of(back.pixels.view().as_ptr().cast(), dir.path());
    assert_eq!(back.pixels.to_owned::<ndarray::Ix2>().unwrap(), pixels());
}

/// Stored as a text file by the handler its type names.
#[derive(Codec, Debug, PartialEq)]
#[codec(name = "test.Note", handler = TextNotes)]
struct Note {
    text: String,
}

/// What a later version of `Note` would be: its text became a number.
#[derive(Codec, Debug, PartialEq)]
#[codec(name = "test.Note")]
struct NoteAsNumber {
    text: u64,
}

#[derive(Default)]
struct TextNotes;

impl TypedHandler<Note> for TextNotes {
    fn name(&self) -> &str {
        "text-notes"
    }

    fn dump(&self, note: &Note, ctx: &mut DumpContext<'_>) -> Result<Info, StoreError> {
        Ok(Info::from([(
            "file".to_owned(),
            ctx.write_file("txt", note.text.as_bytes())?.into(),
        )]))
    }

    fn load(&self, info: &Info, ctx: &LoadContext<'_>) -> Result<Note, StoreError> {
        let file = part(info, "file", ctx)?
            .as_text()
            .ok_or_else(|| ctx.corrupt("no file"))?;
        let text =
            String::from_utf8(ctx.read_file(file)?).map_err(|e| ctx.corrupt(e.to_string()))?;
        Ok(Note { text })
    }
}

/// A pair of notes: the first through `ctx.dump`, the second as
/// `dump_value` stores sub-values (MessagePack).
#[derive(Codec, Debug, PartialEq)]
#[codec(name = "test.Notes")]
struct Notes(Note, Note);

struct NotePairs;

impl TypedHandler<Notes> for NotePairs {
    fn name(&self) -> &str {
        "note-pairs"
    }

    fn dump(&self, notes: &Notes, ctx: &mut DumpContext<'_>) -> Result<Info, StoreError> {
        Ok(Info::from([
            ("first".to_owned(), ctx.dump(&notes.0)?),
            ("second".to_owned(), ctx.dump_value(&notes.1)?),
        ]))
    }

    fn load(&self, info: &Info, ctx: &LoadContext<'_>) -> Result<Notes, StoreError> {
        Ok(Notes(
            ctx.load(part(info, "first", ctx)?)?,
            ctx.load(part(info, "second", ctx)?)?,
        ))
    }
}

/// Reads the first note as the later version of its type.
struct NumberPairs;

impl TypedHandler<Notes> for NumberPairs {
    fn name(&self) -> &str {
        "note-pairs"
    }

    fn dump(&self, _: &Notes, ctx: &mut DumpContext<'_>) -> Result<Info, StoreError> {
        Err(ctx.io_error("none", std::io::ErrorKind::Unsupported.into()))
    }

    fn load(&self, info: &Info, ctx: &LoadContext<'_>) -> Result<Notes, StoreError> {
        let number: NoteAsNumber = ctx.load(part(info, "first", ctx)?)?;
        Ok(Notes(
            Note {
                text: number.text.to_string(),
            },
            Note {
                text: String::new(),
            },
        ))
    }
}

#[test]
fn a_sub_value_goes_through_its_types_handler_and_its_schema_is_checked() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    cache.register_default_handler::<Notes>(Typed::new(NotePairs));
    let notes = Notes(Note { text: "one".into() }, Note { text: "two".into() });
    cache.put("n", &notes).unwrap();
    let entry = &cache.entries().unwrap()[0];
    let Some(InfoValue::Map(first)) = entry.info.get("first") else {
        panic!("{:?}", entry.info);
    };
    assert_eq!(first["handler"], InfoValue::from("text-notes"));
    let data = std::fs::read_dir(dir.path().join("data")).unwrap();
    assert_eq!(data.count(), 1, "the note's text file");

    let other = Cache::open(dir.path()).unwrap();
    other.register_default_handler::<Notes>(Typed::new(NotePairs));
    assert_eq!(other.get::<Notes>("n").unwrap(), Some(notes));

    // A breaking change of the sub-value's type is the schema error of a get.
    let later = Cache::open(dir.path()).unwrap();
    later.register_default_handler::<Notes>(Typed::new(NumberPairs));
    match later.get::<Notes>("n") {
        Err(e @ StoreError::Schema { .. }) => assert!(format!("{e:?}").contains("text"), "{e:?}"),
        other => panic!("expected a schema error, got {other:?}"),
    }
}

/// A frame whose type names its handler, which keeps its pixels as an
/// array sub-value.
#[derive(Codec)]
#[codec(name = "test.Frame", handler = Frames)]
struct Frame {
    pixels: MappedArray<f32>,
}

#[derive(Default)]
struct Frames;

impl TypedHandler<Frame> for Frames {
    fn name(&self) -> &str {
        "frames"
    }

    fn dump(&self, frame: &Frame, ctx: &mut DumpContext<'_>) -> Result<Info, StoreError> {
        let pixels: ndarray::Array2<f32> = frame.pixels.to_owned().map_err(|e| ctx_error(&e))?;
        Ok(Info::from([("pixels".to_owned(), ctx.dump(&pixels)?)]))
    }

    fn load(&self, info: &Info, ctx: &LoadContext<'_>) -> Result<Frame, StoreError> {
        Ok(Frame {
            pixels: ctx.load(part(info, "pixels", ctx)?)?,
        })
    }
}

#[test]
fn values_of_a_zero_copy_handler_inside_a_list_are_read_from_the_map() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    let frames: Vec<Frame> = (0..2)
        .map(|_| Frame {
            pixels: MappedArray::from_array(&pixels()),
        })
        .collect();
    cache.put("frames", &frames).unwrap();
    let other = Cache::open(dir.path()).unwrap();
    let back = other.get::<Vec<Frame>>("frames").unwrap().unwrap();
    assert_eq!(back.len(), 2);
    for frame in &back {
        assert!(frame.pixels.is_mapped(), "viewed in the data file's map");
        #[cfg(target_os = "linux")]
        crate::fixtures::assert_in_a_map_of(frame.pixels.view().as_ptr().cast(), dir.path());
        assert_eq!(frame.pixels.to_owned::<ndarray::Ix2>().unwrap(), pixels());
    }
}

/// A page whose body its handler stores through a handler it names.
#[derive(Codec, Debug, PartialEq)]
#[codec(name = "test.Page")]
struct Page {
    title: String,
    body: Vec<u8>,
}

struct Pages(&'static str);

impl TypedHandler<Page> for Pages {
    fn name(&self) -> &str {
        "pages"
    }

    fn dump(&self, page: &Page, ctx: &mut DumpContext<'_>) -> Result<Info, StoreError> {
        Ok(Info::from([
            ("title".to_owned(), ctx.dump(&page.title)?),
            ("body".to_owned(), ctx.dump_as(&page.body, self.0)?),
        ]))
    }

    fn load(&self, info: &Info, ctx: &LoadContext<'_>) -> Result<Page, StoreError> {
        Ok(Page {
            title: ctx.load(part(info, "title", ctx)?)?,
            body: ctx.load(part(info, "body", ctx)?)?,
        })
    }

    fn delete(&self, info: &Info, ctx: &LoadContext<'_>) -> Result<(), StoreError> {
        for name in ["title", "body"] {
            ctx.delete(part(info, name, ctx)?)?;
        }
        Ok(())
    }
}

#[test]
fn a_sub_value_dumped_as_a_named_handler_is_stored_and_read_by_it() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    cache.register_default_handler::<Page>(Typed::new(Pages("file")));
    let page = Page {
        title: "first".into(),
        body: vec![7; 5000],
    };
    cache.put("page", &page).unwrap();
    let entry = &cache.entries().unwrap()[0];
    let Some(InfoValue::Map(token)) = entry.info.get("body") else {
        panic!("the body's token is a map: {:?}", entry.info);
    };
    assert_eq!(token["handler"], InfoValue::from("file"));
    let files = || std::fs::read_dir(dir.path().join("data")).unwrap().count();
    let with_body = files();

    let other = Cache::open(dir.path()).unwrap();
    other.register_default_handler::<Page>(Typed::new(Pages("file")));
    assert_eq!(other.get::<Page>("page").unwrap(), Some(page));
    // The body's file goes with its entry.
    assert!(cache.remove("page").unwrap());
    assert_eq!(files(), with_body - 1);

    // A name the handle does not know.
    cache.register_default_handler::<Page>(Typed::new(Pages("no-such")));
    let page = Page {
        title: "t".into(),
        body: vec![1],
    };
    let err = cache.put("page", &page).unwrap_err();
    assert!(
        matches!(&err, StoreError::UnknownHandler { handler, .. } if handler == "no-such"),
        "{err}"
    );
}
