//! The `codec` command on a real cache folder.

use std::process::Command;

use codec::{Cache, Codec, PutOptions};

#[derive(Codec, Debug, PartialEq)]
#[codec(name = "cli.Chunk")]
struct Chunk {
    text: String,
    bytes: Vec<u8>,
    tags: Vec<u32>,
}

fn run(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_codec"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn folder() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    let chunk = |i: u32| Chunk {
        text: format!("chunk {i}"),
        bytes: vec![1, 2, 3],
        tags: vec![i, i + 1],
    };
    for i in 0..20 {
        cache.put(&format!("chunk/{i}"), &chunk(i)).unwrap();
    }
    cache
        .put(
            "big",
            &Chunk {
                text: "x".repeat(5000),
                bytes: vec![],
                tags: vec![],
            },
        )
        .unwrap();
    cache
        .put_with(
            "json",
            &chunk(99),
            &PutOptions::default()
                .mode(codec::store::Mode::Json)
                .handler("file"),
        )
        .unwrap();
    cache.put_bytes("raw", b"\xff\x00").unwrap();
    let array = ndarray::Array2::from_shape_fn((2, 3), |(i, j)| (i * 3 + j) as f64);
    cache.put_array("arr", &array).unwrap();
    cache
        .put(
            "apart",
            &Chunk {
                text: "kept apart".into(),
                bytes: vec![9; 100_000],
                tags: vec![1],
            },
        )
        .unwrap();
    cache
        .put(
            "when",
            &(std::time::UNIX_EPOCH + std::time::Duration::from_millis(1500)),
        )
        .unwrap();
    for i in 0..10 {
        cache.put(&format!("chunk/{i}"), &chunk(i + 100)).unwrap();
    }
    cache.remove("chunk/19").unwrap();
    dir
}

#[test]
fn inspect_lists_live_entries() {
    let dir = folder();
    let (ok, out, _) = run(&["inspect", dir.path().to_str().unwrap()]);
    assert!(ok);
    assert!(out.contains("cli.Chunk"), "{out}");
    assert!(out.contains("25 entries"), "{out}");
    assert!(!out.contains("chunk/19 "), "{out}");
}

#[test]
fn get_prints_an_entry_as_json_without_its_type() {
    let dir = folder();
    let d = dir.path().to_str().unwrap();
    let (ok, out, _) = run(&["get", d, "chunk/3"]);
    assert!(ok);
    let value: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        value,
        serde_json::json!({"text": "chunk 103", "bytes": "AQID", "tags": [103, 104]})
    );
    let (ok, out, _) = run(&["get", d, "json"]);
    assert!(ok, "{out}");
    assert!(out.contains("chunk 99"));
    let (ok, out, _) = run(&["get", d, "when"]);
    assert!(ok);
    assert_eq!(out.trim(), r#""1970-01-01T00:00:01.500000Z""#);
    let (ok, out, _) = run(&["get", d, "apart"]);
    assert!(ok);
    let value: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(value["text"], "kept apart");
    assert_eq!(value["bytes"].as_str().unwrap().len(), 133_336); // base64 of 100,000
                                                                 // An array, as codec writes ndarray arrays in JSON.
    let (ok, out, _) = run(&["get", d, "arr"]);
    assert!(ok);
    let value: serde_json::Value = serde_json::from_str(&out).unwrap();
    let array = ndarray::Array2::from_shape_fn((2, 3), |(i, j)| (i * 3 + j) as f64);
    assert_eq!(
        value,
        serde_json::from_str::<serde_json::Value>(&codec::to_json(&array).unwrap()).unwrap()
    );
    let (ok, _, err) = run(&["get", d, "missing"]);
    assert!(!ok);
    assert!(err.contains("no entry `missing`"));
}

#[test]
fn verify_reports_damage_and_compact_reclaims_space() {
    let dir = folder();
    let d = dir.path().to_str().unwrap();
    let (ok, out, _) = run(&["verify", d]);
    assert!(ok, "{out}");
    assert!(out.contains("0 problem(s)"), "{out}");

    let size_before = dir_size(dir.path());
    let (ok, out, err) = run(&["compact", d]);
    assert!(ok, "{out}{err}");
    assert!(out.contains("compacted 25 entries"), "{out}");
    assert!(dir_size(dir.path()) < size_before);
    let cache = Cache::open(dir.path()).unwrap();
    assert_eq!(cache.len().unwrap(), 25);
    assert_eq!(
        cache.get::<Chunk>("chunk/3").unwrap().unwrap().text,
        "chunk 103"
    );
    assert_eq!(cache.get_bytes("raw").unwrap().unwrap(), b"\xff\x00");
    assert_eq!(
        cache.get::<Chunk>("apart").unwrap().unwrap().bytes,
        vec![9; 100_000]
    );

    // Damage the data file under one entry: verify names it.
    let data = std::fs::read_dir(dir.path().join("data"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| {
            p.extension().is_some_and(|e| e == "bin") && std::fs::metadata(p).unwrap().len() > 4000
        })
        .unwrap();
    let len = std::fs::metadata(&data).unwrap().len();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&data)
        .unwrap()
        .set_len(len - 10)
        .unwrap();
    let (ok, out, _) = run(&["verify", d]);
    assert!(!ok);
    assert!(out.contains("entry `big`"), "{out}");
    assert!(out.contains("1 problem(s)"), "{out}");
}

#[test]
fn compact_of_a_folder_open_elsewhere_runs_online() {
    let dir = folder();
    let d = dir.path().to_str().unwrap();
    // A handle that seals its segment at every write: what it took up
    // and wrote is sealed, which an online compaction copies.
    let options = codec::CacheOptions::default().segment_bytes(1);
    let cache = Cache::open_with(dir.path(), options).unwrap();
    cache.put("chunk/0", &"again".to_owned()).unwrap();
    let (ok, out, err) = run(&["compact", d, "--grace-secs", "0"]);
    assert!(ok, "{out}{err}");
    assert!(
        out.contains("the folder is open elsewhere: compacted online"),
        "{out}"
    );
    assert!(out.contains("compacted 25 entries"), "{out}");
    assert_eq!(cache.len().unwrap(), 25);
    assert_eq!(cache.get::<String>("chunk/0").unwrap().unwrap(), "again");
    drop(cache);
    let (ok, out, err) = run(&["compact", d]);
    assert!(ok, "{out}{err}");
    assert!(!out.contains("open elsewhere"), "{out}");
}

#[test]
fn a_folder_that_is_not_a_cache_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (ok, _, err) = run(&["inspect", dir.path().to_str().unwrap()]);
    assert!(!ok);
    assert!(err.contains("is not a codec cache folder"), "{err}");
}

fn dir_size(dir: &std::path::Path) -> u64 {
    let mut total = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        let meta = entry.metadata().unwrap();
        total += if meta.is_dir() {
            dir_size(&entry.path())
        } else {
            meta.len()
        };
    }
    total
}

/// Runs `codec args`, reads one line of its output and closes the pipe,
/// as `| head -1` does.
fn run_into_closed_pipe(args: &[&str]) -> (std::process::ExitStatus, String) {
    use std::io::{BufRead, Read};
    let mut child = Command::new(env!("CARGO_BIN_EXE_codec"))
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    // The reader is dropped here: the pipe is closed.
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    (child.wait().unwrap(), err)
}

#[test]
fn a_closed_pipe_ends_every_command_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    // More output than a pipe holds.
    for i in 0..2000 {
        cache.put(&format!("entry/{i:05}"), &i).unwrap();
    }
    cache.put("long", &"x".repeat(300_000)).unwrap();
    drop(cache);
    let d = dir.path().to_str().unwrap();
    for args in [
        &["inspect", d][..],
        &["inspect", d, "--json"],
        &["get", d, "long"],
    ] {
        let (status, err) = run_into_closed_pipe(args);
        assert!(status.success(), "{args:?}: {status:?} {err}");
        assert_eq!(err, "", "{args:?}");
    }
}

#[derive(Codec)]
#[codec(name = "cli.Measure")]
struct Measure {
    zeta: f32,
    alpha: f64,
    middle: Vec<f32>,
}

#[test]
fn get_prints_what_the_wire_holds() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    cache
        .put(
            "m",
            &Measure {
                zeta: 0.1,
                alpha: 0.1,
                middle: vec![1.5, 0.3],
            },
        )
        .unwrap();
    let by_pair: std::collections::BTreeMap<(u32, u32), String> =
        [((1, 2), "a".to_string()), ((0, 5), "b".to_string())].into();
    cache.put("pairs", &by_pair).unwrap();
    cache
        .put_with(
            "json",
            &Measure {
                zeta: 2.0,
                alpha: 1e-7,
                middle: vec![],
            },
            &PutOptions::default().mode(codec::store::Mode::Json),
        )
        .unwrap();
    let d = dir.path().to_str().unwrap();
    let (ok, out, err) = run(&["get", d, "m"]);
    assert!(ok, "{err}");
    // Fields in wire order, float32 in its shortest form.
    assert_eq!(
        out,
        "{\n  \"zeta\": 0.1,\n  \"alpha\": 0.1,\n  \"middle\": [\n    1.5,\n    0.3\n  ]\n}\n"
    );
    // No JSON object holds tuple keys: [key, value] pairs.
    let (ok, out, _) = run(&["get", d, "pairs"]);
    assert!(ok);
    let value: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(value, serde_json::json!([[[0, 5], "b"], [[1, 2], "a"]]));
    let (ok, out, _) = run(&["get", d, "json"]);
    assert!(ok);
    assert!(
        out.starts_with("{\n  \"zeta\": 2.0,\n  \"alpha\": 1e-7,"),
        "{out}"
    );
}

#[test]
fn inspect_sizes_its_columns_filters_by_prefix_and_speaks_json() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    let hash = codec::content_hash(&"some input".to_string()).unwrap();
    cache.put(&format!("emb/{hash}"), &1u8).unwrap();
    cache.put("emb/short", &2u8).unwrap();
    cache.put("other", &3u8).unwrap();
    let d = dir.path().to_str().unwrap();
    let (ok, out, _) = run(&["inspect", d]);
    assert!(ok);
    let lines: Vec<&str> = out.lines().collect();
    let column = |line: &str, word: &str| line.find(word).unwrap();
    // The type column starts at the same place on every line, after the longest key.
    let type_at = column(lines[0], "type");
    assert!(type_at > hash.len() + 4, "{out}");
    for line in &lines[1..4] {
        assert_eq!(column(line, "u8"), type_at, "{out}");
    }

    let (ok, out, _) = run(&["inspect", d, "--prefix", "emb/", "--json"]);
    assert!(ok);
    let rows: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 2, "{out}");
    assert_eq!(rows[0]["key"], format!("emb/{hash}"));
    assert_eq!(rows[0]["type"], "u8");
    assert_eq!(rows[0]["mode"], "msgpack");
    assert_eq!(rows[1]["key"], "emb/short");
}

#[test]
fn inspect_shows_keys_that_could_be_misread_quoted() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    for key in ["plain", " lead", "zero\u{200b}width", "\"q\""] {
        cache.put(key, &1u8).unwrap();
    }
    let (ok, out, _) = run(&["inspect", dir.path().to_str().unwrap()]);
    assert!(ok);
    let keys: Vec<&str> = out
        .lines()
        .skip(1)
        .take(4)
        .map(|l| l.split("  ").next().unwrap().trim_end())
        .collect();
    assert_eq!(
        keys,
        [
            r#"" lead""#,
            r#""\"q\"""#,
            "plain",
            r#""zero\u{200b}width""#
        ],
        "{out}"
    );
}

#[test]
fn remove_and_clear_edit_the_folder() {
    let dir = folder();
    let d = dir.path().to_str().unwrap();
    let (ok, out, _) = run(&["remove", d, "chunk/1", "chunk/2"]);
    assert!(ok);
    assert_eq!(out, "removed `chunk/1`\nremoved `chunk/2`\n");
    let (ok, _, err) = run(&["remove", d, "chunk/1"]);
    assert!(!ok);
    assert!(err.contains("no entry `chunk/1`"), "{err}");
    let (ok, out, _) = run(&["clear", d, "--prefix", "chunk/"]);
    assert!(ok);
    assert!(out.starts_with("removed 17 entries"), "{out}");
    let cache = Cache::open(dir.path()).unwrap();
    assert_eq!(cache.len().unwrap(), 6);
    drop(cache);
    let (ok, out, _) = run(&["clear", d]);
    assert!(ok);
    assert!(out.starts_with("removed 6 entries"), "{out}");
    assert!(Cache::open(dir.path()).unwrap().is_empty().unwrap());
}

#[test]
fn verify_names_a_damaged_entry_once() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    cache.put("big4", &"x".repeat(5000)).unwrap();
    let data = dir
        .path()
        .join("data")
        .join(format!("{}.bin", cache.writer_id()));
    drop(cache);
    let len = std::fs::metadata(&data).unwrap().len();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&data)
        .unwrap()
        .set_len(len - 10)
        .unwrap();
    let (ok, out, _) = run(&["verify", dir.path().to_str().unwrap()]);
    assert!(!ok);
    assert_eq!(out.matches("big4").count(), 1, "{out}");
    assert!(out.starts_with("entry `big4` is damaged"), "{out}");
}

#[test]
fn compact_reports_the_net_change_and_deletes_unused_schemas() {
    #[derive(Codec)]
    #[codec(name = "cli.Chunk")]
    struct OldChunk {
        text: String,
    }
    let dir = folder();
    let d = dir.path().to_str().unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    cache.put("old", &OldChunk { text: "a".into() }).unwrap();
    cache.remove("old").unwrap();
    drop(cache);
    let schemas = || {
        std::fs::read_dir(dir.path().join("schemas"))
            .unwrap()
            .count()
    };
    let before = schemas();
    let (ok, out, err) = run(&["compact", d]);
    assert!(ok, "{err}");
    assert!(out.contains("1 unused schemas deleted"), "{out}");
    assert!(out.contains(": freed "), "{out}");
    assert_eq!(schemas(), before - 1);
    // Compacted already: nothing to give back, and nothing written again.
    let (ok, out, err) = run(&["compact", d]);
    assert!(ok, "{err}");
    assert!(out.contains("0 unused schemas deleted): "), "{out}");
    assert!(out.contains("nothing to reclaim"), "{out}");
    let cache = Cache::open(dir.path()).unwrap();
    assert_eq!(cache.len().unwrap(), 25);
    assert_eq!(
        cache.get::<Chunk>("chunk/3").unwrap().unwrap().text,
        "chunk 103"
    );
}

#[test]
fn inspect_shows_a_tables_rows_and_schema_and_get_prints_it() {
    use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray};
    use std::sync::Arc;

    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    let batch = RecordBatch::try_from_iter([
        ("id", Arc::new(Int64Array::from(vec![1, 2, 3])) as ArrayRef),
        (
            "name",
            Arc::new(StringArray::from(vec![Some("a"), None, Some("c")])),
        ),
    ])
    .unwrap();
    cache.put("prices", &batch).unwrap();
    let d = dir.path().to_str().unwrap();

    let (ok, out, err) = run(&["inspect", d]);
    assert!(ok, "{err}");
    assert!(out.contains("arrow.RecordBatch"), "{out}");
    assert!(
        out.contains("    3 rows: id: Int64, name: Utf8?\n"),
        "{out}"
    );

    let (ok, out, _) = run(&["inspect", d, "--json"]);
    assert!(ok);
    let row: serde_json::Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
    assert_eq!(row["handler"], "arrow");
    assert_eq!(row["rows"], 3);
    assert_eq!(row["schema"], "id: Int64, name: Utf8?");

    // `verify` and `get` read the entry through its handler; `get` prints
    // its bytes (an Arrow IPC file) as base64.
    let (ok, _, err) = run(&["verify", d]);
    assert!(ok, "{err}");
    let (ok, out, err) = run(&["get", d, "prices"]);
    assert!(ok, "{err}");
    assert!(out.starts_with("\"QVJST1cx"), "{out}"); // "ARROW1"
}

#[test]
fn reduce_size_keeps_the_most_recently_used_and_reclaims_their_space() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    {
        let cache = Cache::open(dir.path()).unwrap();
        for i in 0..30u32 {
            cache.put(&format!("k{i:02}"), &vec![i; 500]).unwrap();
        }
        // Read after they were written: the most recently used.
        assert!(cache.get::<Vec<u32>>("k00").unwrap().is_some());
        assert!(cache.get::<Vec<u32>>("k01").unwrap().is_some());
    }
    let (ok, _, err) = run(&["reduce-size", d]);
    assert!(!ok && err.contains("--max-entries"), "{err}");
    let (ok, _, err) = run(&["reduce-size", d, "--max-age", "3 weeks"]);
    assert!(!ok && err.contains("30d"), "{err}");
    let (ok, out, err) = run(&["reduce-size", d, "--max-entries", "5", "--max-bytes", "1G"]);
    assert!(ok, "{err}");
    assert!(out.contains("removed 25 entries"), "{out}");
    assert!(out.contains("compacted: "), "{out}");
    assert!(!out.contains("open elsewhere"), "{out}");
    // Nothing retired is left behind: no other handle had the folder open.
    assert!(!dir.path().join("compacting.json").exists());
    assert!(dir_size(dir.path()) < 20_000, "{}", dir_size(dir.path()));
    let cache = Cache::open(dir.path()).unwrap();
    assert_eq!(cache.keys().unwrap(), ["k00", "k01", "k27", "k28", "k29"]);
    let (ok, out, _) = run(&["reduce-size", d, "--max-age", "1d"]);
    assert!(ok && out.contains("removed 0 entries"), "{out}");
}

#[test]
fn inspect_shows_when_entries_were_last_used_and_expire() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    cache.put("forever", &1u8).unwrap();
    let day = PutOptions::default().ttl(std::time::Duration::from_secs(86_400));
    cache.put_with("daily", &2u8, &day).unwrap();
    drop(cache);
    let d = dir.path().to_str().unwrap();
    let (ok, out, _) = run(&["inspect", d]);
    assert!(ok);
    assert!(
        out.lines().next().unwrap().contains("last used (UTC)"),
        "{out}"
    );
    assert!(out.contains("never"), "{out}");
    let (ok, out, _) = run(&["inspect", d, "--json"]);
    assert!(ok);
    let rows: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let (daily, forever) = (&rows[0], &rows[1]);
    assert_eq!(forever["expires"], serde_json::Value::Null);
    let day_ns = 86_400_000_000_000u64;
    let expires = daily["expires_ns"].as_u64().unwrap();
    let used = daily["last_used_ns"].as_u64().unwrap();
    assert!(
        // The expiry counts from the put, the line's time from its write.
        expires.abs_diff(used + day_ns) < 60_000_000_000,
        "{daily}"
    );
}

/// Text kept as files of their own by a handler of this test's: the
/// `codec` command never links it.
#[derive(Codec, Debug, PartialEq, Clone)]
#[codec(name = "cli.Text", handler = TextFiles)]
struct Text(String);

#[derive(Default)]
struct TextFiles;

impl codec::store::TypedHandler<Text> for TextFiles {
    fn name(&self) -> &str {
        "text-files"
    }

    fn dump(
        &self,
        text: &Text,
        ctx: &mut codec::store::DumpContext<'_>,
    ) -> Result<codec::store::Info, codec::StoreError> {
        let file = ctx.write_file("txt", text.0.as_bytes())?;
        // A sub-value in the shared data file, by its token.
        let note = ctx.dump_bytes(&[b'n'; 200])?;
        Ok(codec::store::Info::from([
            ("file".to_owned(), file.into()),
            ("note".to_owned(), note),
        ]))
    }

    fn load(
        &self,
        info: &codec::store::Info,
        ctx: &codec::store::LoadContext<'_>,
    ) -> Result<Text, codec::StoreError> {
        let Some(codec::store::InfoValue::Text(file)) = info.get("file") else {
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

#[test]
fn verify_get_and_compact_handle_an_entry_whose_handler_they_do_not_link() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    {
        let cache = Cache::open(dir.path()).unwrap();
        cache.put("text", &Text("hello".into())).unwrap();
        cache.put("gone", &Text("old".into())).unwrap();
        cache.remove("gone").unwrap();
        cache.put("plain", &7u32).unwrap();
    }
    let (ok, out, err) = run(&["verify", d]);
    assert!(ok, "{out}{err}");
    assert!(out.contains("2 entries checked, 0 problem(s)"), "{out}");

    let (ok, out, err) = run(&["get", d, "text"]);
    assert!(ok, "{out}{err}");
    assert!(out.contains("\"handler\": \"text-files\""), "{out}");
    assert!(out.contains("\"type\": \"cli.Text\""), "{out}");
    // The file's bytes, "hello", in base64.
    assert!(out.contains("\"base64\": \"aGVsbG8=\""), "{out}");

    let (ok, out, err) = run(&["compact", d]);
    assert!(ok, "{out}{err}");
    assert!(out.contains("compacted 2 entries"), "{out}");
    let cache = Cache::open(dir.path()).unwrap();
    assert_eq!(
        cache.get::<Text>("text").unwrap(),
        Some(Text("hello".into()))
    );
    assert_eq!(cache.get::<u32>("plain").unwrap(), Some(7));
    drop(cache);
    let (ok, out, err) = run(&["verify", d]);
    assert!(ok && out.contains("0 problem(s)"), "{out}{err}");

    // Removed without the handler: the file it recorded goes with it.
    {
        let cache = Cache::open(dir.path()).unwrap();
        cache.put("other", &Text("bye".into())).unwrap();
    }
    let texts = || {
        std::fs::read_dir(dir.path().join("data"))
            .unwrap()
            .filter(|e| {
                e.as_ref()
                    .unwrap()
                    .path()
                    .extension()
                    .is_some_and(|e| e == "txt")
            })
            .count()
    };
    assert_eq!(texts(), 2);
    let (ok, out, err) = run(&["remove", d, "other"]);
    assert!(ok, "{out}{err}");
    assert_eq!(texts(), 1);

    // A changed byte of the entry's file is found without the handler.
    let file = std::fs::read_dir(dir.path().join("data"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "txt"))
        .unwrap();
    std::fs::write(&file, "jello").unwrap();
    let (ok, out, _) = run(&["verify", d]);
    assert!(!ok);
    assert!(out.contains("entry `text`"), "{out}");
    assert!(out.contains("checksum"), "{out}");
}

#[test]
fn entries_of_an_unknown_handler_written_before_parts_are_left_to_their_handler() {
    fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
        std::fs::create_dir_all(to).unwrap();
        for entry in std::fs::read_dir(from).unwrap() {
            let entry = entry.unwrap();
            let target = to.join(entry.file_name());
            if entry.file_type().unwrap().is_dir() {
                copy_dir(&entry.path(), &target);
            } else {
                std::fs::copy(entry.path(), target).unwrap();
            }
        }
    }
    let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/store-handlers-v1");
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixture, dir.path());
    let d = dir.path().to_str().unwrap();
    let (ok, out, err) = run(&["verify", d]);
    assert!(ok, "{out}{err}");
    assert!(
        out.contains("1 entries checked, 0 problem(s), 2 left to their handler"),
        "{out}"
    );
    assert!(
        out.contains(
            "entry `text/0`: stored by handler `text-files` before entries recorded their bytes"
        ),
        "{out}"
    );
    let (ok, out, err) = run(&["get", d, "text/1"]);
    assert!(ok, "{out}{err}");
    assert!(
        out.contains("only a program with that handler reads it"),
        "{out}"
    );
    // Copying them needs the handler, as it always did.
    let (ok, _, err) = run(&["compact", d]);
    assert!(!ok);
    assert!(err.contains("text-files"), "{err}");
}

#[derive(Codec, Debug, PartialEq, Clone)]
#[codec(name = "cli.Note")]
struct Note {
    title: String,
    body: Text,
}

#[test]
fn verify_get_compact_and_remove_handle_values_kept_by_a_handler_they_do_not_link() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let texts = vec![Text("one".into()), Text("two".into())];
    let note = Note {
        title: "t".into(),
        body: Text("body".into()),
    };
    {
        let cache = Cache::open(dir.path()).unwrap();
        cache.put("texts", &texts).unwrap();
        cache.put("note", &note).unwrap();
        cache.put("maybe", &Some(Text("maybe".into()))).unwrap();
    }
    let txt_files = || {
        std::fs::read_dir(dir.path().join("data"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "txt"))
            .collect::<Vec<_>>()
    };
    assert_eq!(txt_files().len(), 4, "one file per text");
    let (ok, out, err) = run(&["verify", d]);
    assert!(ok, "{out}{err}");
    assert!(out.contains("3 entries checked, 0 problem(s)"), "{out}");

    let (ok, out, err) = run(&["get", d, "texts"]);
    assert!(ok, "{out}{err}");
    assert!(out.contains("#values"), "{out}");
    // Each place names its value's token.
    assert!(out.contains("\"#value\": 1"), "{out}");
    assert!(out.contains("\"handler\": \"text-files\""), "{out}");
    // The second text's file, "two", in base64.
    assert!(out.contains("\"base64\": \"dHdv\""), "{out}");

    let (ok, out, err) = run(&["compact", d]);
    assert!(ok, "{out}{err}");
    assert!(out.contains("compacted 3 entries"), "{out}");
    assert_eq!(
        txt_files().len(),
        4,
        "the files were copied, the old ones gone"
    );
    let cache = Cache::open(dir.path()).unwrap();
    assert_eq!(cache.get::<Vec<Text>>("texts").unwrap(), Some(texts));
    assert_eq!(cache.get::<Note>("note").unwrap(), Some(note));
    assert_eq!(
        cache.get::<Option<Text>>("maybe").unwrap(),
        Some(Some(Text("maybe".into())))
    );
    drop(cache);

    let (ok, out, err) = run(&["remove", d, "texts"]);
    assert!(ok, "{out}{err}");
    assert_eq!(txt_files().len(), 2, "the texts' files went with the entry");
    // A changed byte of a text's file is found without the handler.
    let file = &txt_files()[0];
    let mut bytes = std::fs::read(file).unwrap();
    bytes[0] ^= 1;
    std::fs::write(file, bytes).unwrap();
    let (ok, out, _) = run(&["verify", d]);
    assert!(!ok);
    assert!(out.contains("checksum"), "{out}");
}
