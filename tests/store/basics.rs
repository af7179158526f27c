//! The cache store: every handler and mode round-trips, user handlers work,
//! drift is detected at load, and damage stays confined to what was damaged.

use std::sync::Arc;

use codec::store::STORE_FORMAT;
use codec::store::{DumpContext, Handler, Info, InfoValue, LoadContext, Mode};
use codec::{Cache, CacheOptions, PutOptions, StoreError};

use crate::fixtures::backends::{each_backend, Store};
use crate::fixtures::{child, chunk, logs, truncate_data_file, Chunk};

fn open() -> (tempfile::TempDir, Cache) {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    (dir, cache)
}

#[test]
fn every_handler_and_mode_round_trips() {
    each_backend(every_handler_and_mode_round_trips_on);
}

fn every_handler_and_mode_round_trips_on(store: &Store) {
    let cache = store.open();
    for handler in ["inline", "shared", "file", "auto"] {
        for mode in [Mode::MsgPack, Mode::Json] {
            let key = format!("{handler}/{mode:?}");
            let options = PutOptions::default().mode(mode).handler(handler);
            cache.put_with(&key, &chunk(1), &options).unwrap();
            assert_eq!(cache.get::<Chunk>(&key).unwrap(), Some(chunk(1)), "{key}");
            let entry = cache
                .entries()
                .unwrap()
                .into_iter()
                .find(|e| e.key == key)
                .unwrap();
            assert_eq!(entry.handler, handler);
            assert_eq!(entry.mode, mode);
        }
    }
    // Auto: small values inline, large ones in the shared file.
    cache.put("small", &chunk(2)).unwrap();
    let big = Chunk {
        text: "x".repeat(5000),
        ..chunk(0)
    };
    cache.put("big", &big).unwrap();
    let entries = cache.entries().unwrap();
    assert_eq!(
        entries.iter().find(|e| e.key == "small").unwrap().handler,
        "inline"
    );
    assert_eq!(
        entries.iter().find(|e| e.key == "big").unwrap().handler,
        "shared"
    );
    assert_eq!(cache.get::<Chunk>("big").unwrap(), Some(big));
}

#[test]
fn raw_bytes_and_custom_functions() {
    each_backend(raw_bytes_and_custom_functions_on);
}

fn raw_bytes_and_custom_functions_on(store: &Store) {
    let cache = store.open();
    cache.put_bytes("raw", b"\xff\x01binary").unwrap();
    assert_eq!(cache.get_bytes("raw").unwrap().unwrap(), b"\xff\x01binary");
    cache
        .put_with_fn("custom", &42u32, |v| {
            Ok::<_, String>(v.to_string().into_bytes())
        })
        .unwrap();
    let back: Option<u32> = cache
        .get_with_fn("custom", |b| std::str::from_utf8(b).unwrap().parse::<u32>())
        .unwrap();
    assert_eq!(back, Some(42));
    let err = cache
        .get_with_fn("raw", |b| std::str::from_utf8(b).map(str::to_owned))
        .unwrap_err();
    // The function's error is kept whole, as the source: the message says
    // what failed, the report (Debug) adds the cause, once.
    let StoreError::Function {
        action: "deserializing",
        ref source,
        ..
    } = err
    else {
        panic!("{err:?}")
    };
    let cause = source.to_string();
    assert!(
        source.downcast_ref::<std::str::Utf8Error>().is_some(),
        "{err:?}"
    );
    assert!(!err.to_string().contains(&cause), "{err}");
    assert_eq!(format!("{err:?}").matches(&cause).count(), 1, "{err:?}");
}

#[test]
fn keys_len_contains_remove_and_overwrite() {
    each_backend(keys_len_contains_remove_and_overwrite_on);
}

fn keys_len_contains_remove_and_overwrite_on(store: &Store) {
    let cache = store.open();
    for i in 0..5 {
        cache.put(&format!("k{i}"), &chunk(i)).unwrap();
    }
    cache.put("k1", &chunk(100)).unwrap();
    assert_eq!(cache.get::<Chunk>("k1").unwrap(), Some(chunk(100)));
    assert!(cache.remove("k2").unwrap());
    assert!(!cache.remove("k2").unwrap());
    assert!(!cache.contains("k2").unwrap());
    assert_eq!(cache.keys().unwrap(), ["k0", "k1", "k3", "k4"]);
    assert_eq!(cache.len().unwrap(), 4);
    // A fresh reader sees the same.
    let reader = store.open();
    assert_eq!(reader.keys().unwrap(), ["k0", "k1", "k3", "k4"]);
    assert_eq!(reader.get::<Chunk>("k1").unwrap(), Some(chunk(100)));
    assert_eq!(reader.get::<Chunk>("k2").unwrap(), None);
    // Iteration in key order; an entry of another type is an error item.
    reader.put("k5", &7u32).unwrap();
    let items: Vec<_> = reader.iter::<Chunk>().unwrap().collect();
    assert_eq!(items.len(), 5);
    let values: Vec<(String, Chunk)> = items[..4]
        .iter()
        .map(|i| i.as_ref().unwrap().clone())
        .collect();
    let expected = [(0, 0), (1, 100), (3, 3), (4, 4)].map(|(k, v)| (format!("k{k}"), chunk(v)));
    assert_eq!(values, expected);
    assert!(matches!(items[4], Err(StoreError::Schema { ref key, .. }) if key == "k5"));
    // Clearing removes every key for every reader.
    assert_eq!(reader.clear().unwrap(), 5);
    assert!(reader.is_empty().unwrap());
    assert_eq!(store.open().len().unwrap(), 0);
    cache.refresh().unwrap();
    assert_eq!(cache.keys().unwrap(), Vec::<String>::new());
}

#[test]
fn keys_the_cache_does_not_store_are_refused_by_every_write_and_read() {
    let (_dir, cache) = open();
    let long = "k".repeat(4097);
    for key in [
        "",
        "a\nb",
        "tab\there",
        "nul\0",
        "esc\u{1b}[31m",
        "\u{85}",
        &long,
    ] {
        let refusals = [
            cache.put(key, &1u32),
            cache.put_bytes(key, b"x"),
            cache.put_many([(key, &1u32)]),
            cache.get_or_insert_with(key, || 1u32).map(drop),
        ];
        // Nor is it a miss to read or remove: a mistake.
        let reads = [
            cache.get::<u32>(key).map(drop),
            cache.get_bytes(key).map(drop),
            cache.contains(key).map(drop),
            cache.remove(key).map(drop),
        ];
        for err in refusals.into_iter().chain(reads).map(Result::unwrap_err) {
            let StoreError::InvalidKey { key: ref shown, .. } = err else {
                panic!("{key:?}: {err}");
            };
            let message = err.to_string();
            assert!(message.contains(&format!("key \"{shown}\"")), "{message}");
            assert!(!message.contains('\n'), "{message}");
        }
    }
    // A batch with one refused key stores none of its entries.
    let err = cache.put_many([("fine", &1u32), ("a\rb", &2)]).unwrap_err();
    assert!(
        err.to_string()
            .contains("key \"a\\rb\" is not a cache key: it holds a control character"),
        "{err}"
    );
    assert!(cache.is_empty().unwrap());

    // Spaces, any script, slashes and the longest key are keys.
    let longest = "k".repeat(4096);
    for key in ["a b", " lead", "ключ/é/𝄞", "\"quoted\"", &longest] {
        cache.put(key, &2u32).unwrap();
        assert_eq!(cache.get::<u32>(key).unwrap(), Some(2), "{key}");
    }
    assert_eq!(cache.len().unwrap(), 5);
}

#[test]
fn memoization_keyed_by_content_hash() {
    each_backend(memoization_keyed_by_content_hash_on);
}

fn memoization_keyed_by_content_hash_on(store: &Store) {
    let cache = store.open();
    let input = ("embed".to_string(), chunk(7));
    let key = codec::content_hash(&input).unwrap();
    let mut calls = 0;
    let v1: Vec<f32> = cache
        .get_or_insert_with(&key, || {
            calls += 1;
            vec![0.5, 0.25]
        })
        .unwrap();
    let v2: Vec<f32> = cache
        .get_or_insert_with(&key, || {
            calls += 1;
            vec![9.0]
        })
        .unwrap();
    assert_eq!((v1, v2, calls), (vec![0.5, 0.25], vec![0.5, 0.25], 1));
    assert_ne!(
        key,
        codec::content_hash(&("embed".to_string(), chunk(8))).unwrap()
    );
    // A computation that fails stores nothing and returns its error.
    #[derive(Debug)]
    enum Failed {
        Embed(&'static str),
        Store(StoreError),
    }
    impl From<StoreError> for Failed {
        fn from(e: StoreError) -> Self {
            Failed::Store(e)
        }
    }
    let failed = cache
        .get_or_try_insert_with::<Vec<f32>, _>("other", || Err(Failed::Embed("model offline")));
    assert!(matches!(failed, Err(Failed::Embed("model offline"))));
    assert!(!cache.contains("other").unwrap());
    let made = cache.get_or_try_insert_with::<Vec<f32>, Failed>("other", || Ok(vec![1.0]));
    assert_eq!(made.unwrap(), vec![1.0]);
    let kept = cache.get_or_try_insert_with::<Vec<f32>, Failed>("other", || Ok(vec![2.0]));
    assert_eq!(kept.unwrap(), vec![1.0]);
    // The store's own errors come through `From` (an entry of another
    // type is one for a strict handle; for others, a miss).
    cache.put("wrong type", &"text".to_string()).unwrap();
    let strict = CacheOptions::default().memo_strict(true);
    let strict = store.open_with(strict);
    let wrong = strict.get_or_try_insert_with::<Vec<f32>, Failed>("wrong type", || Ok(vec![]));
    assert!(matches!(
        wrong,
        Err(Failed::Store(StoreError::Schema { .. }))
    ));
}

#[test]
fn two_handles_in_one_thread_keep_their_own_files() {
    let (dir, a) = open();
    let b = Cache::open(dir.path()).unwrap();
    assert_ne!(a.writer_id(), b.writer_id());
    for i in 0..50 {
        a.put(&format!("a{i}"), &chunk(i)).unwrap();
        b.put(&format!("b{i}"), &chunk(i + 1000)).unwrap();
    }
    let reader = Cache::open(dir.path()).unwrap();
    assert_eq!(reader.len().unwrap(), 100);
    for i in 0..50 {
        assert_eq!(
            reader.get::<Chunk>(&format!("a{i}")).unwrap(),
            Some(chunk(i))
        );
        assert_eq!(
            reader.get::<Chunk>(&format!("b{i}")).unwrap(),
            Some(chunk(i + 1000))
        );
    }
    assert!(reader.warnings().is_empty(), "{:?}", reader.warnings());
}

#[test]
fn a_torn_last_line_then_more_appends_loses_nothing() {
    let (dir, cache) = open();
    cache.put("before", &chunk(1)).unwrap();
    let index = dir.path().join(format!("{}-info.jsonl", cache.writer_id()));
    // A crash mid-write leaves half a line at the end of the index.
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&index)
        .unwrap();
    std::io::Write::write_all(&mut f, br##"{"#key":"torn","#type":"test.Ch"##).unwrap();
    drop(f);
    let reader = Cache::open(dir.path()).unwrap();
    assert_eq!(reader.get::<Chunk>("before").unwrap(), Some(chunk(1)));
    assert_eq!(reader.get::<Chunk>("torn").unwrap(), None);
    // A new writer appends to its own file; the torn one never glues onto it.
    reader.put("after", &chunk(2)).unwrap();
    let again = Cache::open(dir.path()).unwrap();
    assert_eq!(again.get::<Chunk>("before").unwrap(), Some(chunk(1)));
    assert_eq!(again.get::<Chunk>("after").unwrap(), Some(chunk(2)));
}

#[test]
fn a_corrupt_middle_line_is_skipped_with_a_warning() {
    let (dir, cache) = open();
    for i in 0..3 {
        cache.put(&format!("k{i}"), &chunk(i)).unwrap();
    }
    let index = dir.path().join(format!("{}-info.jsonl", cache.writer_id()));
    let mut text = std::fs::read(&index).unwrap();
    let second_starts = text.iter().position(|&b| b == b'\n').unwrap() + 1;
    text[second_starts + 9] ^= 0x20; // flip a bit in the second line
    std::fs::write(&index, text).unwrap();
    let reader = Cache::open(dir.path()).unwrap();
    assert_eq!(reader.get::<Chunk>("k0").unwrap(), Some(chunk(0)));
    assert_eq!(reader.get::<Chunk>("k1").unwrap(), None);
    assert_eq!(reader.get::<Chunk>("k2").unwrap(), Some(chunk(2)));
    let warnings = reader.warnings();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].contains("checksum mismatch"), "{warnings:?}");
    let at = format!("skipped the line at byte {second_starts}:");
    assert!(warnings[0].contains(&at), "{warnings:?}");
}

/// A chunk too large to be inline: its entry is in the shared data file.
fn big(i: u32) -> Chunk {
    Chunk {
        text: "y".repeat(3000),
        ..chunk(i)
    }
}

#[test]
fn a_truncated_data_file_fails_only_its_entries() {
    let (dir, cache) = open();
    cache.put("first", &big(1)).unwrap();
    cache.put("second", &big(2)).unwrap();
    cache.put("small", &chunk(3)).unwrap();
    truncate_data_file(dir.path(), &cache, 100);
    let reader = Cache::open(dir.path()).unwrap();
    assert_eq!(reader.get::<Chunk>("first").unwrap(), Some(big(1)));
    let err = reader.get::<Chunk>("second").unwrap_err();
    assert!(
        matches!(err, StoreError::Corrupt { ref key, .. } if key == "second"),
        "{err}"
    );
    assert!(err.to_string().contains("past its end"), "{err}");
    assert_eq!(reader.get::<Chunk>("small").unwrap(), Some(chunk(3)));
}

/// A power cut can leave a gone writer's shared data file shorter than
/// its log says (two files, neither synced without `fsync`). The handle
/// that takes up the log appends its own data elsewhere: appended at the
/// cut, it read as the older entries' values.
#[test]
fn data_written_after_a_gone_writers_data_file_was_cut_never_reads_as_its_entries() {
    let (dir, cache) = open();
    cache.put("first", &big(1)).unwrap();
    cache.put("second", &big(2)).unwrap();
    let writer = cache.writer_id().to_owned();
    truncate_data_file(dir.path(), &cache, 2000);
    drop(cache);
    let next = Cache::open(dir.path()).unwrap();
    assert_eq!(
        next.writer_id(),
        writer,
        "the gone writer's log is taken up"
    );
    next.put("third", &big(3)).unwrap();
    next.put("fourth", &big(4)).unwrap();
    for reader in [next, Cache::open(dir.path()).unwrap()] {
        assert_eq!(reader.get::<Chunk>("first").unwrap(), Some(big(1)));
        let err = reader.get::<Chunk>("second").unwrap_err();
        assert!(err.to_string().contains("past its end"), "{err}");
        assert_eq!(reader.get::<Chunk>("third").unwrap(), Some(big(3)));
        assert_eq!(reader.get::<Chunk>("fourth").unwrap(), Some(big(4)));
    }
}

#[test]
fn drift_is_detected_at_load() {
    each_backend(drift_is_detected_at_load_on);
}

fn drift_is_detected_at_load_on(store: &Store) {
    mod v1 {
        #[derive(codec::Codec)]
        #[codec(name = "test.Settings")]
        pub struct Settings {
            pub port: u16,
        }
    }
    mod v2 {
        #[derive(codec::Codec, Debug, PartialEq)]
        #[codec(name = "test.Settings")]
        pub struct Settings {
            pub port: u16,
            #[codec(default)]
            pub verbose: bool,
        }
    }
    mod v3 {
        #[derive(codec::Codec, Debug, PartialEq)]
        #[codec(name = "test.Settings")]
        pub struct Settings {
            pub port: String,
        }
    }
    let cache = store.open();
    cache.put("s", &v1::Settings { port: 80 }).unwrap();
    let reader = store.open();
    assert_eq!(
        reader.get::<v2::Settings>("s").unwrap(),
        Some(v2::Settings {
            port: 80,
            verbose: false
        })
    );
    let err = reader.get::<v3::Settings>("s").unwrap_err();
    assert!(
        format!("{err:?}").contains("test.Settings.port: integer -> string (breaking)"),
        "{err}"
    );
    let err = reader.get::<Chunk>("s").unwrap_err();
    assert!(
        format!("{err:?}").contains("is a `test.Settings`, not a `test.Chunk`"),
        "{err}"
    );
}

/// Stores payloads reversed in a per-entry file, and counts loads through a
/// cached read-side resource.
struct Reversed;

impl Handler for Reversed {
    fn name(&self) -> &str {
        "reversed"
    }

    fn dump(&self, payload: &[u8], ctx: &mut DumpContext<'_>) -> Result<Info, StoreError> {
        let reversed: Vec<u8> = payload.iter().rev().copied().collect();
        let name = ctx.write_file("rev", &reversed)?;
        Ok([("file".to_owned(), InfoValue::from(name))]
            .into_iter()
            .collect())
    }

    fn load(&self, info: &Info, ctx: &LoadContext<'_>) -> Result<Vec<u8>, StoreError> {
        let Some(InfoValue::Text(name)) = info.get("file") else {
            return Err(ctx.corrupt("no file"));
        };
        let loads = ctx.resource("loads", || Ok(std::sync::atomic::AtomicUsize::new(0)))?;
        loads.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let mut bytes = ctx.read_file(name)?;
        bytes.reverse();
        Ok(bytes)
    }
}

struct Reserved;

impl Handler for Reserved {
    fn name(&self) -> &str {
        "reserved"
    }

    fn dump(&self, _: &[u8], _: &mut DumpContext<'_>) -> Result<Info, StoreError> {
        Ok([("#key".to_owned(), InfoValue::from("mine"))]
            .into_iter()
            .collect())
    }

    fn load(&self, _: &Info, ctx: &LoadContext<'_>) -> Result<Vec<u8>, StoreError> {
        Err(ctx.corrupt("never stored"))
    }
}

#[test]
fn a_standard_type_reads_widened_and_a_narrowed_one_is_refused_plainly() {
    let (_dir, cache) = open();
    cache.put("n", &7u32).unwrap();
    cache.put("f", &1.5f32).unwrap();
    assert_eq!(cache.get::<u64>("n").unwrap(), Some(7));
    assert_eq!(cache.get::<Option<u32>>("n").unwrap(), Some(Some(7)));
    assert_eq!(cache.get::<f64>("f").unwrap(), Some(1.5));
    let err = format!("{:?}", cache.get::<u16>("n").unwrap_err());
    assert!(err.contains("not a `u16`; read it as `u32`"), "{err}");
    assert!(!err.contains("alias"), "{err}");
}

#[test]
fn user_handlers_and_reserved_info_keys() {
    each_backend(user_handlers_and_reserved_info_keys_on);
}

fn user_handlers_and_reserved_info_keys_on(store: &Store) {
    let cache = store.open();
    cache.register_handler(Arc::new(Reversed));
    cache.register_handler(Arc::new(Reserved));
    let options = PutOptions::default().handler("reversed");
    cache.put_with("r", &chunk(5), &options).unwrap();
    assert_eq!(cache.get::<Chunk>("r").unwrap(), Some(chunk(5)));
    let err = cache
        .put_with("x", &chunk(1), &PutOptions::default().handler("reserved"))
        .unwrap_err();
    assert!(
        matches!(err, StoreError::ReservedInfoKey { ref key, .. } if key == "#key"),
        "{err}"
    );
    // A reader without the handler says which one to register.
    let reader = store.open();
    let err = reader.get::<Chunk>("r").unwrap_err();
    assert!(
        matches!(err, StoreError::UnknownHandler { ref handler, .. } if handler == "reversed"),
        "{err}"
    );
}

#[test]
fn a_newer_folder_layout_is_refused() {
    each_backend(|store| {
        // The next layout version, and one far ahead.
        for format in [STORE_FORMAT + 1, 99] {
            let meta = format!(r#"{{"format":{format}}}"#);
            store.write("codec-store.json", meta.as_bytes());
            let Err(err) = store.try_open(Default::default()) else {
                panic!("{}: layout version {format} opened", store.name);
            };
            assert!(
                matches!(err, StoreError::Format { found } if found == format),
                "{}, format {format}: {err}",
                store.name
            );
        }
    });
}

#[test]
fn later_write_wins_across_writers() {
    each_backend(later_write_wins_across_writers_on);
}

fn later_write_wins_across_writers_on(store: &Store) {
    let a = store.open();
    let b = store.open();
    a.put("k", &chunk(1)).unwrap();
    b.put("k", &chunk(2)).unwrap();
    a.refresh().unwrap();
    assert_eq!(a.get::<Chunk>("k").unwrap(), Some(chunk(2)));
    a.remove("k").unwrap();
    b.refresh().unwrap();
    assert_eq!(b.get::<Chunk>("k").unwrap(), None);
    let reader = store.open();
    assert_eq!(reader.get::<Chunk>("k").unwrap(), None);
}

#[test]
fn a_line_read_half_written_is_read_whole_on_the_next_refresh() {
    read_half_written_then_whole(0);
}

#[test]
fn a_line_read_half_written_after_a_long_log_is_read_whole_on_the_next_refresh() {
    // Past 64 KiB of unread log, a refresh maps the log rather than reading it.
    read_half_written_then_whole(1000);
}

/// A line as another writer appends it, in two writes, after `before` other
/// entries.
fn read_half_written_then_whole(before: u32) {
    let (source_dir, source) = open();
    for i in 0..before {
        source.put(&format!("before {i}"), &chunk(i)).unwrap();
    }
    source.put("a", &chunk(1)).unwrap();
    source.put("k", &chunk(3)).unwrap();
    let source_index = source_dir
        .path()
        .join(format!("{}-info.jsonl", source.writer_id()));
    let lines = std::fs::read(source_index).unwrap();
    drop(source);
    let (dir, reader) = open();
    std::fs::create_dir_all(dir.path().join("schemas")).unwrap();
    for schema in std::fs::read_dir(source_dir.path().join("schemas")).unwrap() {
        let schema = schema.unwrap();
        std::fs::copy(
            schema.path(),
            dir.path().join("schemas").join(schema.file_name()),
        )
        .unwrap();
    }
    let index = dir.path().join("other-info.jsonl");
    // Every line but the last whole, the last cut in its middle.
    let last = lines[..lines.len() - 1]
        .iter()
        .rposition(|&b| b == b'\n')
        .unwrap()
        + 1;
    let (first, rest) = lines.split_at(last + (lines.len() - last) / 2);
    std::fs::write(&index, first).unwrap();
    reader.refresh().unwrap();
    assert_eq!(reader.get::<Chunk>("a").unwrap(), Some(chunk(1)));
    assert_eq!(reader.get::<Chunk>("k").unwrap(), None);
    for i in 0..before {
        assert_eq!(
            reader.get::<Chunk>(&format!("before {i}")).unwrap(),
            Some(chunk(i))
        );
    }
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&index)
        .unwrap();
    std::io::Write::write_all(&mut file, rest).unwrap();
    reader.refresh().unwrap();
    assert_eq!(reader.get::<Chunk>("k").unwrap(), Some(chunk(3)));
    assert!(reader.warnings().is_empty(), "{:?}", reader.warnings());
}

#[test]
fn every_handler_round_trips_with_fsync() {
    let dir = tempfile::tempdir().unwrap();
    let options = CacheOptions::default().fsync(true);
    let cache = Cache::open_with(dir.path(), options.clone()).unwrap();
    let big = Chunk {
        text: "x".repeat(5000),
        ..chunk(0)
    };
    let apart = vec![7u8; 70_000];
    for handler in ["inline", "shared", "file", "auto"] {
        let options = PutOptions::default().handler(handler);
        cache.put_with(handler, &big, &options).unwrap();
    }
    cache
        .put("apart", &codec::Bytes::from(apart.clone()))
        .unwrap();
    cache.put_bytes("raw", b"raw bytes").unwrap();
    cache.remove("inline").unwrap();
    let reader = Cache::open_with(dir.path(), options).unwrap();
    for handler in ["shared", "file", "auto"] {
        assert_eq!(
            reader.get::<Chunk>(handler).unwrap().as_ref(),
            Some(&big),
            "{handler}"
        );
    }
    assert_eq!(reader.get::<Chunk>("inline").unwrap(), None);
    assert_eq!(
        reader
            .get::<codec::Bytes>("apart")
            .unwrap()
            .map(|b| b.to_vec()),
        Some(apart)
    );
    assert_eq!(
        reader.get_bytes("raw").unwrap().as_deref(),
        Some(&b"raw bytes"[..])
    );
    assert!(reader.warnings().is_empty(), "{:?}", reader.warnings());
}

#[test]
fn writers_that_are_gone_leave_their_logs_to_the_next_ones() {
    // A process forked while a handle lives holds the lock of its log
    // until it executes: none starts meanwhile.
    let _no_starts = child::no_process_starts();
    let dir = tempfile::tempdir().unwrap();
    // Short runs, one after the other: one log.
    for run in 0..30u64 {
        let cache = Cache::open(dir.path()).unwrap();
        cache.put(&format!("run{run}"), &run).unwrap();
        cache.put(&format!("big{run}"), &"b".repeat(3000)).unwrap();
    }
    assert_eq!(logs(dir.path()), 1);
    // Handles alive at the same time each have their own.
    let a = Cache::open(dir.path()).unwrap();
    let b = Cache::open(dir.path()).unwrap();
    a.put("a", &1u64).unwrap();
    b.put("b", &2u64).unwrap();
    assert_ne!(a.writer_id(), b.writer_id());
    assert_eq!(logs(dir.path()), 2);
    drop((a, b));
    for run in 0..10u64 {
        let cache = Cache::open(dir.path()).unwrap();
        cache.put(&format!("again{run}"), &run).unwrap();
    }
    assert_eq!(logs(dir.path()), 2);
    let reader = Cache::open(dir.path()).unwrap();
    for run in 0..30u64 {
        assert_eq!(reader.get::<u64>(&format!("run{run}")).unwrap(), Some(run));
        assert_eq!(
            reader.get::<String>(&format!("big{run}")).unwrap(),
            Some("b".repeat(3000))
        );
    }
    assert_eq!(reader.get::<u64>("b").unwrap(), Some(2));
    assert_eq!(reader.len().unwrap(), 30 * 2 + 2 + 10);
    assert!(reader.warnings().is_empty(), "{:?}", reader.warnings());
}

/// `Cache::open` of a URL opens what the URL names, never a folder named
/// after its scheme (`s3:`) in the working directory.
#[cfg(feature = "object-store")]
#[test]
fn open_of_a_url_opens_what_it_names() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("file://{}", dir.path().join("c").display());
    Cache::open(&url).unwrap().put("k", &chunk(1)).unwrap();
    let folder = Cache::open(dir.path().join("c")).unwrap();
    assert_eq!(folder.get::<Chunk>("k").unwrap(), Some(chunk(1)));

    let memory = Cache::open("memory://").unwrap();
    memory.put("k", &chunk(2)).unwrap();
    assert_eq!(memory.get::<Chunk>("k").unwrap(), Some(chunk(2)));
    assert!(!std::path::Path::new("memory:").exists());
}

#[test]
fn any_entry_reads_untyped_as_a_value() {
    use codec::Value;
    let (_dir, cache) = open();
    cache.put("chunk", &chunk(3)).unwrap();
    cache
        .put_with(
            "json",
            &chunk(4),
            &PutOptions::default().mode(codec::store::Mode::Json),
        )
        .unwrap();
    cache.put_bytes("raw", b"\x00\xffbytes").unwrap();
    // A buffer large enough to be kept apart from the rest of its value.
    let big = codec::Bytes(vec![7; 100_000]);
    cache.put("apart", &(1u8, big.clone())).unwrap();

    let as_json = |key| codec::to_json(&cache.get::<Value>(key).unwrap().unwrap()).unwrap();
    let typed = codec::to_json(&chunk(3)).unwrap();
    assert_eq!(as_json("chunk"), typed);
    assert_eq!(as_json("json"), codec::to_json(&chunk(4)).unwrap());
    assert_eq!(
        cache.get::<Value>("raw").unwrap(),
        Some(Value::Bytes(b"\x00\xffbytes".to_vec()))
    );
    assert_eq!(
        cache.get::<Value>("apart").unwrap(),
        Some(Value::Array(vec![Value::Int(1), Value::Bytes(big.0)]))
    );
    assert_eq!(cache.get::<Value>("missing").unwrap(), None);
    // A typed get still refuses another type.
    assert!(cache.get::<u32>("chunk").is_err());
}

#[test]
fn a_handle_debugs_as_its_location_and_writer() {
    let (dir, cache) = open();
    let shown = format!("{cache:?}");
    let expected = format!(
        "Cache {{ location: {:?}, writer_id: {:?}, .. }}",
        cache.location(),
        cache.writer_id()
    );
    assert_eq!(shown, expected);
    assert!(shown.contains(&*dir.path().to_string_lossy()), "{shown}");
    // A failed open unwraps with its error.
    std::fs::write(dir.path().join("codec-store.json"), b"{").unwrap();
    let error = Cache::open(dir.path()).unwrap_err();
    assert!(!error.to_string().is_empty());
}

#[test]
fn a_damaged_file_of_the_store_is_named_with_what_it_is_for_and_the_fix() {
    let (dir, cache) = open();
    cache.put("k", &chunk(1)).unwrap();
    let fingerprint = cache.entries().unwrap()[0].fingerprint.clone().unwrap();
    let damaged = |err: StoreError, file: &str, says: &str| match &err {
        StoreError::DamagedFile { address, message } => {
            assert_eq!(address.as_path(), Some(&*dir.path().join(file)), "{err}");
            assert!(message.contains(says), "{err}");
            // The advice for a damaged entry is not this file's.
            assert!(!err.to_string().contains("Cache::remove"), "{err}");
        }
        other => panic!("{file}: {other:?}"),
    };
    let schema = format!("schemas/{fingerprint}.json");
    std::fs::write(dir.path().join(&schema), b"{").unwrap();
    let err = cache.admin().writer_schema(&fingerprint).unwrap_err();
    damaged(err, &schema, "writes it again");
    drop(cache);
    let meta = dir.path().join("codec-store.json");
    let kept = std::fs::read(&meta).unwrap();
    std::fs::write(&meta, b"{").unwrap();
    damaged(
        Cache::open(dir.path()).unwrap_err(),
        "codec-store.json",
        "layout version",
    );
    std::fs::write(&meta, kept).unwrap();
    std::fs::write(dir.path().join("compacting.json"), b"{").unwrap();
    damaged(
        Cache::open(dir.path()).unwrap_err(),
        "compacting.json",
        "logs a compaction replaced",
    );
}

/// A handle that takes up a writer's empty last segment (sealed just
/// before the writer went) goes on with the writer's sequence: starting
/// again at 0, it named its files after older entries', and where a power
/// loss took such a file and left its line, the new file read as the old
/// entry's value.
#[test]
fn a_writer_taken_up_at_an_empty_segment_names_no_file_after_an_older_entry() {
    let dir = tempfile::tempdir().unwrap();
    let small = CacheOptions::default().segment_bytes(300);
    let file = PutOptions::default().handler("file");
    let cache = Cache::open_with(dir.path(), small.clone()).unwrap();
    cache.put_with("old", &chunk(1), &file).unwrap();
    cache.put("filler", &chunk(2)).unwrap();
    let id = cache.writer_id().to_owned();
    let empty = dir.path().join(format!("{id}.1-info.jsonl"));
    assert_eq!(std::fs::metadata(&empty).unwrap().len(), 0, "sealed");
    drop(cache);
    // The power loss took the old entry's file, not its line.
    let old_file = dir.path().join("data").join(format!("{id}-0.bin"));
    std::fs::remove_file(&old_file).unwrap();
    let next = Cache::open_with(dir.path(), small).unwrap();
    assert_eq!(next.writer_id(), id);
    next.put_with("new", &chunk(3), &file).unwrap();
    assert_eq!(next.get::<Chunk>("new").unwrap(), Some(chunk(3)));
    assert!(
        next.get::<Chunk>("old").is_err(),
        "the old entry reads another's file"
    );
}
