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
            &PutOptions {
                mode: codec::store::Mode::Json,
                handler: Some("file".into()),
            },
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
fn compact_refuses_a_folder_open_elsewhere() {
    let dir = folder();
    let d = dir.path().to_str().unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    let (ok, _, err) = run(&["compact", d]);
    assert!(!ok);
    assert!(
        err.contains("is open in another cache handle or process"),
        "{err}"
    );
    assert_eq!(cache.len().unwrap(), 25);
    drop(cache);
    let (ok, out, err) = run(&["compact", d]);
    assert!(ok, "{out}{err}");
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
