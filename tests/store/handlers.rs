//! User handlers that store sub-values through their dump context, on
//! every backend.

use std::sync::Arc;

use codec::store::{DumpContext, Handler, Info, InfoValue, LoadContext};
use codec::{Cache, Codec, PutOptions, StoreError};

use crate::fixtures::backends::{each_backend, Store};

/// What the handler keeps about a payload besides its bytes.
#[derive(Codec, Debug, PartialEq)]
#[codec(name = "test.Summary")]
struct Summary {
    len: u64,
    checksum: u32,
}

fn checksum(bytes: &[u8]) -> u32 {
    bytes
        .iter()
        .fold(7u32, |h, &b| h.wrapping_mul(31).wrapping_add(b as u32))
}

/// Stores the first half and the second half of a payload as two
/// sub-values, and a summary of it as a third one.
struct Halves;

impl Handler for Halves {
    fn name(&self) -> &str {
        "halves"
    }

    fn dump(&self, payload: &[u8], ctx: &mut DumpContext<'_>) -> Result<Info, StoreError> {
        let (head, tail) = payload.split_at(payload.len() / 2);
        let summary = Summary {
            len: payload.len() as u64,
            checksum: checksum(payload),
        };
        Ok([
            ("head".to_owned(), ctx.dump_bytes(head)?),
            ("tail".to_owned(), ctx.dump_bytes(tail)?),
            ("summary".to_owned(), ctx.dump_value(&summary)?),
        ]
        .into_iter()
        .collect())
    }

    fn load(&self, info: &Info, ctx: &LoadContext<'_>) -> Result<Vec<u8>, StoreError> {
        let part = |name: &str| {
            info.get(name)
                .ok_or_else(|| ctx.corrupt(format!("no `{name}`")))
        };
        let mut payload = ctx.load_bytes(part("head")?)?;
        payload.extend(ctx.load_bytes(part("tail")?)?);
        let summary: Summary = ctx.load_value(part("summary")?)?;
        if summary
            != (Summary {
                len: payload.len() as u64,
                checksum: checksum(&payload),
            })
        {
            return Err(ctx.corrupt("payload does not match its summary"));
        }
        Ok(payload)
    }
}

/// A handle on `store` with [`Halves`] registered, and the options that
/// choose it.
fn with_halves(store: &Store) -> (Cache, PutOptions) {
    let cache = store.open();
    cache.register_handler(Arc::new(Halves));
    let options = PutOptions::default().handler("halves");
    (cache, options)
}

#[test]
fn a_user_handler_stores_and_loads_sub_values() {
    each_backend(a_user_handler_stores_and_loads_sub_values_on);
}

fn a_user_handler_stores_and_loads_sub_values_on(store: &Store) {
    let (cache, options) = with_halves(store);
    let small = "short text".to_string();
    let large = "long text ".repeat(1000);
    cache.put_with("small", &small, &options).unwrap();
    cache.put_with("large", &large, &options).unwrap();

    let entries = cache.entries().unwrap();
    let info = |key: &str| entries.iter().find(|e| e.key == key).unwrap().info.clone();
    let token = |key: &str, part: &str| match info(key).get(part) {
        Some(InfoValue::Text(t)) => t.clone(),
        other => panic!("{other:?}"),
    };
    // Small sub-values travel in the token, large ones in the data file.
    assert!(token("small", "head").starts_with("b64:"));
    assert!(token("large", "head").starts_with("at:"));
    assert!(token("large", "summary").starts_with("b64:"));

    let reader = store.open();
    reader.register_handler(Arc::new(Halves));
    assert_eq!(reader.get::<String>("small").unwrap(), Some(small));
    assert_eq!(reader.get::<String>("large").unwrap(), Some(large));
}

/// Loads whatever token its info holds under `token`, for the test below.
struct Probe;

impl Handler for Probe {
    fn name(&self) -> &str {
        "probe"
    }

    fn dump(&self, _: &[u8], _: &mut DumpContext<'_>) -> Result<Info, StoreError> {
        unreachable!("only loads")
    }

    fn load(&self, info: &Info, ctx: &LoadContext<'_>) -> Result<Vec<u8>, StoreError> {
        ctx.load_bytes(&info["token"])
    }
}

#[test]
fn malformed_sub_value_tokens_are_typed_errors() {
    each_backend(malformed_sub_value_tokens_are_typed_errors_on);
}

fn malformed_sub_value_tokens_are_typed_errors_on(store: &Store) {
    let (cache, options) = with_halves(store);
    cache
        .put_with("large", &"x".repeat(5000), &options)
        .unwrap();
    let entry = cache
        .entries()
        .unwrap()
        .into_iter()
        .find(|e| e.key == "large")
        .unwrap();
    let good = entry.info["head"].clone();
    let InfoValue::Text(good_text) = &good else {
        panic!("{good:?}")
    };
    let probe = |token: InfoValue| {
        let mut info = entry.info.clone();
        info.insert("token".into(), token);
        let mut probed = entry.clone();
        probed.handler = "probe".into();
        probed.info = info;
        cache.admin().entry_payload(&probed)
    };
    cache.register_handler(Arc::new(Probe));
    assert_eq!(probe(good.clone()).unwrap().len(), 5003 / 2); // half the encoded string
    let past_end = good_text.rsplit_once(':').unwrap().0.to_owned() + ":999999";
    for bad in [
        InfoValue::Int(3),
        InfoValue::Text("nonsense".into()),
        InfoValue::Text("b64:***".into()),
        InfoValue::Text("at:file-only".into()),
        InfoValue::Text("at:f:x:1".into()),
        InfoValue::Text("at:../escape.bin:0:1".into()),
        InfoValue::Text(past_end),
    ] {
        let err = probe(bad.clone()).expect_err(&format!("{bad:?}"));
        assert!(
            matches!(err, StoreError::Corrupt { .. }),
            "{}: {bad:?}: {err}",
            store.name
        );
    }
}

/// Reads inline entries as the built-in handler does, then reverses the
/// payload's bytes: a replacement the test below can tell apart.
struct ReversedInline;

impl Handler for ReversedInline {
    fn name(&self) -> &str {
        "inline"
    }

    fn dump(&self, payload: &[u8], ctx: &mut DumpContext<'_>) -> Result<Info, StoreError> {
        codec::store::Inline.dump(payload, ctx)
    }

    fn load(&self, info: &Info, ctx: &LoadContext<'_>) -> Result<Vec<u8>, StoreError> {
        let mut payload = codec::store::Inline.load(info, ctx)?;
        payload.reverse();
        Ok(payload)
    }
}

#[test]
fn a_handler_registered_under_a_built_in_name_replaces_it_for_gets() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    // A raw entry: its payload is its bytes, so the reversal shows as is.
    cache.put_bytes("k", b"abc").unwrap();
    assert_eq!(cache.get_bytes("k").unwrap().as_deref(), Some(&b"abc"[..]));
    cache.put("typed", &7u32).unwrap();
    assert_eq!(cache.get::<u32>("typed").unwrap(), Some(7));
    cache.register_handler(Arc::new(ReversedInline));
    assert_eq!(cache.get_bytes("k").unwrap().as_deref(), Some(&b"cba"[..]));
    // A one-byte payload reads the same reversed: the handler was used.
    assert_eq!(cache.get::<u32>("typed").unwrap(), Some(7));
    cache.put("s", &String::from("ab")).unwrap();
    // "ab" is 0xa2 'a' 'b': reversed, 'b' 'a' 0xa2 is not a string.
    assert!(cache.get::<String>("s").is_err());
}

/// Keeps its payloads in the info, and opens a "connection" (counted) once
/// per handle through `LoadContext::resource`; a payload `reset` drops it.
struct Pooled {
    opened: Arc<std::sync::atomic::AtomicUsize>,
}

/// What `Pooled` opens once and reuses.
struct Connection {
    id: usize,
}

impl Handler for Pooled {
    fn name(&self) -> &str {
        "pooled"
    }

    fn dump(&self, payload: &[u8], _: &mut DumpContext<'_>) -> Result<Info, StoreError> {
        let text = String::from_utf8(payload.to_vec()).map_err(|e| StoreError::Custom {
            message: e.to_string(),
        })?;
        Ok([("text".to_owned(), InfoValue::from(text))]
            .into_iter()
            .collect())
    }

    fn load(&self, info: &Info, ctx: &LoadContext<'_>) -> Result<Vec<u8>, StoreError> {
        let Some(InfoValue::Text(text)) = info.get("text") else {
            return Err(ctx.corrupt("no text"));
        };
        if text == "reset" {
            ctx.invalidate("connection");
        }
        let opened = &self.opened;
        let connection = ctx.resource("connection", || {
            let id = opened.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            Ok(Connection { id })
        })?;
        Ok(format!("{text} via {}", connection.id).into_bytes())
    }
}

#[test]
fn a_load_resource_is_created_once_and_again_after_it_is_invalidated() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    let opened = Arc::new(AtomicUsize::new(0));
    cache.register_handler(Arc::new(Pooled {
        opened: opened.clone(),
    }));
    let pooled = PutOptions::default()
        .mode(codec::store::Mode::Raw)
        .handler("pooled");
    for key in ["a", "b", "reset"] {
        cache
            .put_with(key, &key.as_bytes().to_vec(), &pooled)
            .unwrap();
    }
    // Raw mode stores through the handler asked for, as the other modes do.
    let entries = cache.entries().unwrap();
    assert!(entries.iter().all(|e| e.handler == "pooled"), "{entries:?}");
    // Two loads of two entries: one connection, made at the first.
    let got = |key| String::from_utf8(cache.get_bytes(key).unwrap().unwrap()).unwrap();
    assert_eq!(got("a"), "a via 0");
    assert_eq!(got("b"), "b via 0");
    assert_eq!(opened.load(Ordering::SeqCst), 1, "the resource is reused");
    // Invalidated, it is made again, and the new one is reused from then on.
    assert_eq!(got("reset"), "reset via 1");
    assert_eq!(got("a"), "a via 1");
    assert_eq!(opened.load(Ordering::SeqCst), 2);
}

/// Keeps what it is told in its info, and the payload inline.
struct Describing(Info);

impl Handler for Describing {
    fn name(&self) -> &str {
        "describing"
    }

    fn dump(&self, payload: &[u8], ctx: &mut DumpContext<'_>) -> Result<Info, StoreError> {
        let mut info = self.0.clone();
        info.insert("data".to_owned(), ctx.dump_bytes(payload)?);
        Ok(info)
    }

    fn load(&self, info: &Info, ctx: &LoadContext<'_>) -> Result<Vec<u8>, StoreError> {
        ctx.load_bytes(info.get("data").ok_or_else(|| ctx.corrupt("no data"))?)
    }
}

fn rich_info() -> Info {
    let column = Info::from([
        ("name".to_owned(), "x".into()),
        ("nullable".to_owned(), true.into()),
        ("scale".to_owned(), 0.25.into()),
    ]);
    Info::from([
        ("shape".to_owned(), vec![2i64, 3].into()),
        ("dtype".to_owned(), "float32".into()),
        ("unit".to_owned(), InfoValue::Null),
        ("columns".to_owned(), vec![InfoValue::from(column)].into()),
        ("empty".to_owned(), InfoValue::List(Vec::new())),
    ])
}

#[test]
fn a_handlers_info_holds_any_json_value() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    cache.register_handler(Arc::new(Describing(rich_info())));
    let describing = PutOptions::default().handler("describing");
    cache.put_with("k", &vec![1u32, 2], &describing).unwrap();
    cache.put("plain", &5u32).unwrap();
    // Read back by a fresh handle from the log, then from a checkpoint.
    for round in 0..2 {
        let other = Cache::open(dir.path()).unwrap();
        other.register_handler(Arc::new(Describing(Info::new())));
        let entries = other.entries().unwrap();
        let entry = entries.iter().find(|e| e.key == "k").unwrap();
        let mut expected = rich_info();
        expected.insert("data".to_owned(), entry.info["data"].clone());
        assert_eq!(entry.info, expected, "round {round}");
        assert_eq!(other.get::<Vec<u32>>("k").unwrap(), Some(vec![1, 2]));
        assert_eq!(other.get::<u32>("plain").unwrap(), Some(5));
        assert!(other.warnings().is_empty(), "{:?}", other.warnings());
        other.admin().checkpoint().unwrap();
    }
}

#[test]
fn an_info_too_deep_for_an_index_line_is_refused_with_the_fix() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    let mut deep = InfoValue::Null;
    for _ in 0..40 {
        deep = InfoValue::List(vec![deep]);
    }
    cache.register_handler(Arc::new(Describing(Info::from([(
        "deep".to_owned(),
        deep,
    )]))));
    let describing = PutOptions::default().handler("describing");
    match cache.put_with("k", &1u32, &describing) {
        Err(e @ StoreError::Handler { .. }) => {
            let message = e.to_string();
            assert!(
                message.contains("nesting") && message.contains("write_file"),
                "{message}"
            );
        }
        other => panic!("expected a handler error, got {other:?}"),
    }
    assert!(!cache.contains("k").unwrap());
    let many = InfoValue::List(vec![InfoValue::Int(1); 20_000]);
    cache.register_handler(Arc::new(Describing(Info::from([(
        "many".to_owned(),
        many,
    )]))));
    assert!(matches!(
        cache.put_with("k", &1u32, &describing),
        Err(StoreError::Handler { .. })
    ));
}

/// Streams its payload into the shared data file 1,000 bytes at a time
/// (`DumpContext::shared_writer`), and reads the range back.
struct Streamed;

impl Handler for Streamed {
    fn name(&self) -> &str {
        "streamed"
    }

    fn dump(&self, payload: &[u8], ctx: &mut DumpContext<'_>) -> Result<Info, StoreError> {
        stream(payload, 1000, ctx, |_| {})
    }

    fn load(&self, info: &Info, ctx: &LoadContext<'_>) -> Result<Vec<u8>, StoreError> {
        let (Some(InfoValue::Text(file)), Some(InfoValue::Int(offset)), Some(InfoValue::Int(len))) =
            (info.get("file"), info.get("offset"), info.get("len"))
        else {
            return Err(ctx.corrupt("no range"));
        };
        ctx.read_range(file, *offset as u64, *len as u64)
    }
}

/// Streams `payload` into the shared data file `piece` bytes at a time,
/// each piece given to `work` first; the info names the range.
fn stream(
    payload: &[u8],
    piece: usize,
    ctx: &mut DumpContext<'_>,
    mut work: impl FnMut(&[u8]),
) -> Result<Info, StoreError> {
    use std::io::Write as _;
    let mut out = ctx.shared_writer();
    for piece in payload.chunks(piece) {
        work(piece);
        out.write_all(piece).map_err(|e| StoreError::Custom {
            message: e.to_string(),
        })?;
    }
    let (file, offset, len) = out.finish()?;
    Ok(Info::from([
        ("file".to_owned(), InfoValue::from(file)),
        ("offset".to_owned(), InfoValue::Int(offset as i64)),
        ("len".to_owned(), InfoValue::Int(len as i64)),
    ]))
}

#[test]
fn a_handler_streams_its_payload_into_the_shared_file_in_pieces() {
    each_backend(|store| {
        let cache = store.open();
        cache.register_handler(Arc::new(Streamed));
        let streamed = PutOptions::default().handler("streamed");
        let big: Vec<u8> = (0..50_000u32).map(|i| (i % 251) as u8).collect();
        let values = [
            big.clone(),
            Vec::new(),
            big[..1000].to_vec(),
            big[7..].to_vec(),
        ];
        for (i, value) in values.iter().enumerate() {
            let bytes = codec::Bytes(value.clone());
            cache.put_with(&format!("s{i}"), &bytes, &streamed).unwrap();
            // Other entries' appends between two streamed ones.
            cache
                .put(&format!("plain{i}"), &vec![i as u8; 5000])
                .unwrap();
        }
        let reader = store.open();
        reader.register_handler(Arc::new(Streamed));
        // A handle without the handler reads the bytes it recorded, checked.
        let bare = store.open();
        for (i, value) in values.iter().enumerate() {
            let got = reader.get::<codec::Bytes>(&format!("s{i}")).unwrap();
            assert_eq!(
                got.map(|b| b.0).as_ref(),
                Some(value),
                "s{i} on {}",
                store.name
            );
            let recorded = bare.get_bytes(&format!("s{i}")).unwrap().unwrap();
            let encoded = codec::to_msgpack(&codec::Bytes(value.clone())).unwrap();
            assert_eq!(recorded, encoded, "s{i}'s recorded bytes on {}", store.name);
            let plain = reader.get::<Vec<u8>>(&format!("plain{i}")).unwrap();
            assert_eq!(plain, Some(vec![i as u8; 5000]));
        }
    });
}

/// How many threads [`Meeting`]'s test puts with at once.
const MEETING: usize = 4;

/// Waits in its dump until [`MEETING`] dumps are under way at once (an
/// error after a minute), then streams its payload into the shared file
/// in pieces, as [`Streamed`] does: the dumps of threads sharing a handle
/// run at the same time.
#[derive(Default)]
struct Meeting {
    inside: std::sync::Mutex<usize>,
    met: std::sync::Condvar,
}

impl Handler for Meeting {
    fn name(&self) -> &str {
        "meeting"
    }

    fn dump(&self, payload: &[u8], ctx: &mut DumpContext<'_>) -> Result<Info, StoreError> {
        let mut inside = self.inside.lock().unwrap();
        *inside += 1;
        self.met.notify_all();
        let minute = std::time::Duration::from_secs(60);
        let (inside, waited) = (self.met)
            .wait_timeout_while(inside, minute, |n| *n < MEETING)
            .unwrap();
        if waited.timed_out() {
            return Err(StoreError::Custom {
                message: format!("only {} of {MEETING} dumps ran at once", *inside),
            });
        }
        drop(inside);
        Streamed.dump(payload, ctx)
    }

    fn load(&self, info: &Info, ctx: &LoadContext<'_>) -> Result<Vec<u8>, StoreError> {
        Streamed.load(info, ctx)
    }
}

#[test]
fn the_handlers_of_threads_sharing_a_handle_dump_at_the_same_time() {
    each_backend(|store| {
        let cache = store.open();
        cache.register_handler(Arc::new(Meeting::default()));
        let meeting = PutOptions::default().handler("meeting");
        let payload = |t: usize| -> Vec<u8> { (0..20_000).map(|i| (i * (t + 1)) as u8).collect() };
        std::thread::scope(|s| {
            for t in 0..MEETING {
                let (cache, meeting) = (&cache, &meeting);
                s.spawn(move || {
                    let value = codec::Bytes(payload(t));
                    cache.put_with(&format!("t{t}"), &value, meeting).unwrap();
                });
            }
        });
        // Their streamed ranges did not mix, in this handle and another.
        let reader = store.open();
        reader.register_handler(Arc::new(Meeting::default()));
        for handle in [&cache, &reader] {
            for t in 0..MEETING {
                let got = handle.get::<codec::Bytes>(&format!("t{t}")).unwrap();
                assert_eq!(got.map(|b| b.0), Some(payload(t)), "t{t} on {}", store.name);
            }
        }
    });
}

/// Appends its payload to the shared data file, says so, then waits up to
/// two seconds for the compaction asked for meanwhile to end, before its
/// line is written.
struct Paused {
    dumped: std::sync::mpsc::SyncSender<()>,
    compacted: std::sync::Mutex<std::sync::mpsc::Receiver<()>>,
}

impl Handler for Paused {
    fn name(&self) -> &str {
        "paused"
    }

    fn dump(&self, payload: &[u8], ctx: &mut DumpContext<'_>) -> Result<Info, StoreError> {
        let (file, offset) = ctx.append_shared(payload)?;
        self.dumped.send(()).unwrap();
        let wait = std::time::Duration::from_secs(2);
        let _ = self.compacted.lock().unwrap().recv_timeout(wait);
        Ok(Info::from([
            ("file".to_owned(), InfoValue::from(file)),
            ("offset".to_owned(), InfoValue::Int(offset as i64)),
            ("len".to_owned(), InfoValue::Int(payload.len() as i64)),
        ]))
    }

    fn load(&self, info: &Info, ctx: &LoadContext<'_>) -> Result<Vec<u8>, StoreError> {
        Streamed.load(info, ctx)
    }
}

/// A compaction seals the segment of the handle that asks for it: one
/// asked for between a put's data and its line would retire the data of
/// a line written after it, in the next segment. The seal waits for the
/// put's line (the handler waits for the compaction to end: before, it
/// ended, with the data gone).
#[test]
fn a_compaction_asked_for_during_a_put_waits_for_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    cache.put("before", &vec![1u8; 3000]).unwrap();
    let (dumped_tx, dumped) = std::sync::mpsc::sync_channel(1);
    let (compacted, compacted_rx) = std::sync::mpsc::sync_channel(1);
    cache.register_handler(Arc::new(Paused {
        dumped: dumped_tx,
        compacted: std::sync::Mutex::new(compacted_rx),
    }));
    let payload = vec![9u8; 5000];
    let done = std::thread::scope(|s| {
        let put = s.spawn(|| {
            let options = PutOptions::default().handler("paused");
            cache.put_with("paused", &codec::Bytes(payload.clone()), &options)
        });
        dumped.recv().unwrap();
        let grace = std::time::Duration::ZERO;
        let done = cache.admin().compact_online(grace, |_, _| {}).unwrap();
        let _ = compacted.try_send(());
        put.join().unwrap().unwrap();
        done
    });
    // The compaction came after the put's line, and kept it.
    assert_eq!(done.kept, 2, "{done:?}");
    let paused = |handle: &Cache| handle.get::<codec::Bytes>("paused").unwrap().map(|b| b.0);
    assert_eq!(paused(&cache), Some(payload.clone()));
    let other = Cache::open(dir.path()).unwrap();
    other.register_handler(Arc::new(Streamed));
    let before = codec::to_msgpack(&vec![1u8; 3000]).unwrap();
    assert_eq!(other.get_bytes("before").unwrap(), Some(before));
    let bytes = other.get_bytes("paused").unwrap().unwrap();
    assert_eq!(
        codec::from_msgpack::<codec::Bytes>(&bytes).unwrap().0,
        payload
    );
}

/// Works on each piece of its payload (a checksum, over and over) before it
/// streams it into the shared data file, as [`Streamed`] does: a dump that
/// takes a while between its first byte and its line.
struct Working;

impl Handler for Working {
    fn name(&self) -> &str {
        "working"
    }

    fn dump(&self, payload: &[u8], ctx: &mut DumpContext<'_>) -> Result<Info, StoreError> {
        let mut sum = 0u32;
        let mut info = stream(payload, 4096, ctx, |piece| {
            for _ in 0..8 {
                sum = sum.wrapping_add(checksum(piece));
            }
        })?;
        info.insert("sum".to_owned(), InfoValue::Int(sum as i64));
        Ok(info)
    }

    fn load(&self, info: &Info, ctx: &LoadContext<'_>) -> Result<Vec<u8>, StoreError> {
        Streamed.load(info, ctx)
    }
}

/// Threads sharing one handle put through [`Working`] while another thread
/// of it compacts, one compaction after the other, each sealing the
/// handle's segment. Before seals waited for the writes under way, a seal
/// between a put's data and its line retired the data of an acknowledged
/// entry (read as absent, or its file gone) in every run of a program
/// doing this.
#[test]
fn threads_putting_beside_a_compacting_thread_of_their_handle_lose_nothing() {
    use std::sync::atomic::{AtomicBool, Ordering};
    let dir = tempfile::tempdir().unwrap();
    let options = codec::CacheOptions::default().segment_bytes(256 << 10);
    let cache = Cache::open_with(dir.path(), options).unwrap();
    cache.register_handler(Arc::new(Working));
    let working = PutOptions::default().handler("working");
    let payload = |t: u32, i: u32| -> Vec<u8> {
        let len = 20_000 + i as usize * 37;
        (0..len).map(|j| (j as u32 * (t + 3) + i) as u8).collect()
    };
    let written = AtomicBool::new(false);
    let compactions = std::thread::scope(|s| {
        let compactor = s.spawn(|| {
            let mut n = 0;
            while !written.load(Ordering::Relaxed) {
                let grace = std::time::Duration::ZERO;
                cache.admin().compact_online(grace, |_, _| {}).unwrap();
                n += 1;
            }
            n
        });
        let writers: Vec<_> = (0..4u32)
            .map(|t| {
                let (cache, working) = (&cache, &working);
                s.spawn(move || {
                    for i in 0..50 {
                        let value = codec::Bytes(payload(t, i));
                        cache
                            .put_with(&format!("t{t}/{i}"), &value, working)
                            .unwrap();
                    }
                })
            })
            .collect();
        for writer in writers {
            writer.join().unwrap();
        }
        written.store(true, Ordering::Relaxed);
        compactor.join().unwrap()
    });
    assert!(cache.warnings().is_empty(), "{:?}", cache.warnings());
    let other = Cache::open(dir.path()).unwrap();
    other.register_handler(Arc::new(Working));
    for handle in [&cache, &other] {
        for t in 0..4 {
            for i in 0..50 {
                let got = handle.get::<codec::Bytes>(&format!("t{t}/{i}")).unwrap();
                let got = got.map(|b| b.0);
                assert!(
                    got == Some(payload(t, i)),
                    "t{t}/{i} after {compactions} compactions"
                );
            }
        }
    }
}
