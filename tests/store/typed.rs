//! Handlers that take values, per-type default handlers, handler aliases,
//! the store's default mode, raw mode and `pop`, on every backend.

use std::sync::Arc;

use codec::store::Admin;
use codec::store::{
    DumpContext, FilePerEntry, Info, InfoValue, LoadContext, Mode, Typed, TypedHandler,
};
use codec::{Cache, CacheOptions, Codec, PutOptions, StoreError};

use crate::fixtures::backends::{each_backend, Store};

#[derive(Codec, Debug, Clone, PartialEq)]
#[codec(name = "test.Page")]
struct Page {
    lines: Vec<String>,
}

fn page() -> Page {
    Page {
        lines: vec!["first line".into(), "second line".into()],
    }
}

/// Writes a page as a plain text file of its own, one line each: a format
/// codec knows nothing of.
struct TextPages {
    name: &'static str,
    aliases: &'static [&'static str],
}

fn text_pages(name: &'static str, aliases: &'static [&'static str]) -> TextPages {
    TextPages { name, aliases }
}

fn file_of<'a>(info: &'a Info, ctx: &LoadContext<'_>) -> Result<&'a str, StoreError> {
    match info.get("file") {
        Some(InfoValue::Text(name)) => Ok(name),
        _ => Err(ctx.corrupt("no `file` in the info")),
    }
}

impl TypedHandler<Page> for TextPages {
    fn name(&self) -> &str {
        self.name
    }

    fn aliases(&self) -> &[&str] {
        self.aliases
    }

    fn dump(&self, page: &Page, ctx: &mut DumpContext<'_>) -> Result<Info, StoreError> {
        let text: String = page.lines.iter().map(|line| format!("{line}\n")).collect();
        let name = ctx.write_file("txt", text.as_bytes())?;
        Ok(Info::from([("file".to_owned(), name.into())]))
    }

    fn load(&self, info: &Info, ctx: &LoadContext<'_>) -> Result<Page, StoreError> {
        let name = file_of(info, ctx)?;
        let text = String::from_utf8(ctx.read_file(name)?)
            .map_err(|e| ctx.corrupt(format!("{name} is not UTF-8: {e}")))?;
        Ok(Page {
            lines: text.lines().map(str::to_owned).collect(),
        })
    }

    fn delete(&self, info: &Info, ctx: &LoadContext<'_>) -> Result<(), StoreError> {
        ctx.delete_file(file_of(info, ctx)?)
    }
}

/// The text files of the handler, under `data/`.
fn text_files(store: &Store) -> Vec<String> {
    store.objects("data", ".txt")
}

#[test]
fn a_typed_handler_writes_the_value_with_its_own_format_and_reads_it_back() {
    each_backend(a_typed_handler_writes_the_value_with_its_own_format_and_reads_it_back_on);
}

fn a_typed_handler_writes_the_value_with_its_own_format_and_reads_it_back_on(store: &Store) {
    let cache = store.open();
    cache.register_handler(Typed::new(text_pages("text-pages", &[])));
    let options = PutOptions::default().handler("text-pages");
    cache.put_with("p", &page(), &options).unwrap();

    let files = text_files(store);
    assert_eq!(files.len(), 1, "{}", store.name);
    let text = String::from_utf8(store.read(&files[0]).unwrap()).unwrap();
    assert_eq!(text, "first line\nsecond line\n");
    assert_eq!(cache.get::<Page>("p").unwrap(), Some(page()));

    // Where codec needs bytes, they are the value's MessagePack encoding.
    let bytes = cache.get_bytes("p").unwrap().unwrap();
    assert_eq!(codec::from_msgpack::<Page>(&bytes).unwrap(), page());

    // Another handle that registered the handler reads it too.
    let reader = store.open();
    reader.register_handler(Typed::new(text_pages("text-pages", &[])));
    assert_eq!(reader.get::<Page>("p").unwrap(), Some(page()));

    // Removing the entry lets the handler delete its file.
    assert!(cache.remove("p").unwrap());
    assert!(text_files(store).is_empty());
}

#[test]
fn a_default_handler_is_chosen_by_type_without_naming_it() {
    each_backend(a_default_handler_is_chosen_by_type_without_naming_it_on);
}

fn a_default_handler_is_chosen_by_type_without_naming_it_on(store: &Store) {
    let cache = store.open();
    cache.register_default_handler::<Page>(Typed::new(text_pages("text-pages", &[])));
    cache.put("p", &page()).unwrap();
    cache.put("n", &7u32).unwrap();

    let handlers: Vec<(String, String)> = cache
        .entries()
        .unwrap()
        .into_iter()
        .map(|e| (e.key, e.handler))
        .collect();
    assert_eq!(
        handlers,
        [
            ("n".to_owned(), "inline".to_owned()),
            ("p".to_owned(), "text-pages".to_owned())
        ]
    );
    assert_eq!(cache.get::<Page>("p").unwrap(), Some(page()));
    assert_eq!(text_files(store).len(), 1);
}

/// A value of its own type, for a built-in default handler.
#[derive(Codec, Debug, PartialEq)]
#[codec(name = "test.Blob")]
struct Blob {
    bytes: Vec<u8>,
}

#[test]
fn a_built_in_handler_may_be_a_types_default() {
    each_backend(a_built_in_handler_may_be_a_types_default_on);
}

fn a_built_in_handler_may_be_a_types_default_on(store: &Store) {
    let cache = store.open();
    cache.register_default_handler::<Blob>(Arc::new(FilePerEntry));
    let blob = Blob { bytes: vec![1, 2] };
    cache.put("b", &blob).unwrap();
    let entry = cache.entries().unwrap().remove(0);
    assert_eq!(entry.handler, "file");
    assert_eq!(cache.get::<Blob>("b").unwrap(), Some(blob));
}

#[test]
fn a_renamed_handler_reads_entries_written_under_its_alias() {
    let dir = tempfile::tempdir().unwrap();
    let old = Cache::open(dir.path()).unwrap();
    old.register_default_handler::<Page>(Typed::new(text_pages("pages-v1", &[])));
    old.put("p", &page()).unwrap();
    drop(old);

    let cache = Cache::open(dir.path()).unwrap();
    cache.register_handler(Typed::new(text_pages("pages", &["pages-v1"])));
    assert_eq!(cache.get::<Page>("p").unwrap(), Some(page()));
    drop(cache);

    // Compaction rewrites the entry under the handler's new name.
    let renamed = Typed::new(text_pages("pages", &["pages-v1"]));
    Admin::compact(dir.path(), &[renamed], |_, _| {}).unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    assert_eq!(cache.entries().unwrap()[0].handler, "pages");
    cache.register_handler(Typed::new(text_pages("pages", &[])));
    assert_eq!(cache.get::<Page>("p").unwrap(), Some(page()));
}

#[test]
fn a_reader_without_the_handler_gets_an_error_naming_it_and_the_fix() {
    each_backend(a_reader_without_the_handler_gets_an_error_naming_it_and_the_fix_on);
}

fn a_reader_without_the_handler_gets_an_error_naming_it_and_the_fix_on(store: &Store) {
    let cache = store.open();
    cache.register_default_handler::<Page>(Typed::new(text_pages("text-pages", &[])));
    cache.put("p", &page()).unwrap();

    let reader = store.open();
    let err = reader.get::<Page>("p").unwrap_err();
    assert!(
        matches!(&err, StoreError::UnknownHandler { key, handler } if key == "p" && handler == "text-pages"),
        "{err}"
    );
    let message = err.to_string();
    assert!(message.contains("`text-pages`"), "{message}");
    assert!(message.contains("Cache::register_handler"), "{message}");

    // A built-in handler of a cargo feature names the feature.
    let err = StoreError::UnknownHandler {
        key: "t".into(),
        handler: "arrow".into(),
    };
    assert!(
        err.to_string().contains("enable codec's `arrow` feature"),
        "{err}"
    );
}

#[test]
fn raw_mode_refuses_a_value_that_is_not_bytes() {
    each_backend(raw_mode_refuses_a_value_that_is_not_bytes_on);
}

fn raw_mode_refuses_a_value_that_is_not_bytes_on(store: &Store) {
    let cache = store.open();
    let raw = PutOptions::default().mode(Mode::Raw);
    let err = cache.put_with("p", &page(), &raw).unwrap_err();
    assert!(
        matches!(&err, StoreError::NotBytes { key, type_name } if key == "p" && type_name == "test.Page"),
        "{err}"
    );
    assert!(err.to_string().contains("put_bytes"), "{err}");
    assert!(!cache.contains("p").unwrap());

    // A byte buffer is stored as its bytes.
    cache.put_with("b", &vec![1u8, 2, 3], &raw).unwrap();
    cache
        .put_with("c", &codec::Bytes::from(vec![4u8]), &raw)
        .unwrap();
    assert_eq!(cache.get_bytes("b").unwrap(), Some(vec![1, 2, 3]));
    assert_eq!(cache.get_bytes("c").unwrap(), Some(vec![4]));
    assert_eq!(cache.entries().unwrap()[0].mode, Mode::Raw);
}

#[test]
fn the_stores_default_mode_applies_to_put() {
    each_backend(the_stores_default_mode_applies_to_put_on);
}

fn the_stores_default_mode_applies_to_put_on(store: &Store) {
    let options = CacheOptions::default().mode(Mode::Json);
    let cache = store.open_with(options);
    cache.put("p", &page()).unwrap();
    assert_eq!(cache.entries().unwrap()[0].mode, Mode::Json);
    assert_eq!(
        cache.get_bytes("p").unwrap().unwrap(),
        codec::to_json(&page()).unwrap().into_bytes()
    );
    assert_eq!(cache.get::<Page>("p").unwrap(), Some(page()));

    let raw = CacheOptions::default().mode(Mode::Raw);
    let cache = store.open_with(raw);
    assert!(matches!(
        cache.put("q", &page()),
        Err(StoreError::NotBytes { .. })
    ));
    cache.put("r", &vec![9u8]).unwrap();
    assert_eq!(cache.get_bytes("r").unwrap(), Some(vec![9]));
}

#[test]
fn pop_removes_and_returns_the_value() {
    each_backend(pop_removes_and_returns_the_value_on);
}

fn pop_removes_and_returns_the_value_on(store: &Store) {
    let cache = store.open();
    cache.put("n", &5u64).unwrap();
    assert_eq!(cache.pop::<u64>("n").unwrap(), Some(5));
    assert_eq!(cache.pop::<u64>("n").unwrap(), None);
    assert!(!cache.contains("n").unwrap());
    assert!(!store.open().contains("n").unwrap());

    // An entry of a typed handler: its file goes with it.
    cache.register_default_handler::<Page>(Typed::new(text_pages("text-pages", &[])));
    cache.put("p", &page()).unwrap();
    assert_eq!(cache.pop::<Page>("p").unwrap(), Some(page()));
    assert!(text_files(store).is_empty());

    // A value that does not read as the type asked for stays.
    cache.put("s", &"text".to_owned()).unwrap();
    assert!(cache.pop::<u64>("s").is_err());
    assert!(cache.contains("s").unwrap());
}

/// A type that is not `Codec`, kept through a mirror that is.
#[derive(Debug, PartialEq)]
struct Celsius(f64);

#[derive(Codec)]
#[codec(name = "test.Temperature")]
struct Temperature {
    celsius: f64,
}

/// What a later `Temperature` would be: a breaking change.
#[derive(Codec)]
#[codec(name = "test.Temperature")]
struct TemperatureAsText {
    celsius: String,
}

#[test]
fn a_converted_value_is_stored_with_its_schema_and_converted_back() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    let to_mirror = |c: &Celsius| Ok::<_, std::io::Error>(Temperature { celsius: c.0 });
    cache.put_converted("t", &Celsius(21.5), to_mirror).unwrap();
    let entry = &cache.entries().unwrap()[0];
    assert_eq!(entry.type_name.as_deref(), Some("test.Temperature"));
    let back = cache.get_converted("t", |t: Temperature| {
        Ok::<_, std::io::Error>(Celsius(t.celsius))
    });
    assert_eq!(back.unwrap(), Some(Celsius(21.5)));
    // The schema check of a get: a breaking change is an error, not a value.
    let later = cache.get_converted("t", |t: TemperatureAsText| {
        Ok::<_, std::io::Error>(t.celsius)
    });
    assert!(matches!(later, Err(StoreError::Schema { .. })), "{later:?}");
    // The function's error comes back as a typed error.
    let failed = cache.put_converted("u", &Celsius(f64::NAN), |_| {
        Err::<Temperature, _>("not a temperature")
    });
    assert!(matches!(
        failed,
        Err(StoreError::Function {
            action: "converting",
            ..
        })
    ));
    assert_eq!(
        cache
            .get_converted("missing", |t: Temperature| Ok::<_, std::io::Error>(
                t.celsius
            ))
            .unwrap(),
        None
    );
}
