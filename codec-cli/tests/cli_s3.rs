//! The `codec` command on caches given by URL: a cache on S3 (a moto
//! server, `tests/common/moto.rs` of the workspace) and a `file://` folder.

#[path = "../../tests/common/moto.rs"]
mod moto;
#[path = "../../tests/common/venv.rs"]
mod venv;

use std::process::Command;

use codec::{Cache, CacheOptions, Codec};
use moto::moto;

#[derive(Codec, Debug, PartialEq)]
#[codec(name = "cli.Chunk")]
struct Chunk {
    text: String,
    tags: Vec<u32>,
}

/// Runs `codec` with the environment that points `s3://` at moto.
fn run(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_codec"))
        .args(args)
        .env("AWS_ENDPOINT", format!("http://127.0.0.1:{}", moto().port))
        .env("AWS_ALLOW_HTTP", "true")
        .env("AWS_ACCESS_KEY_ID", "test")
        .env("AWS_SECRET_ACCESS_KEY", "test")
        .env("AWS_REGION", "us-east-1")
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn inspect_get_and_verify_take_an_s3_url() {
    let bucket = moto().bucket("cli");
    let cache =
        Cache::open_store(moto().store(&bucket), "runs/1", CacheOptions::default()).unwrap();
    for i in 0..3 {
        let chunk = Chunk {
            text: format!("chunk {i}").repeat(1 + 200 * i as usize),
            tags: vec![i],
        };
        cache.put(&format!("chunk/{i}"), &chunk).unwrap();
    }
    let url = format!("s3://{bucket}/runs/1");

    let (ok, out, err) = run(&["inspect", &url]);
    assert!(ok, "{err}");
    assert_eq!(out.matches("cli.Chunk").count(), 3, "{out}");
    assert!(
        out.contains("chunk/2") && out.contains("cli.Chunk"),
        "{out}"
    );

    let (ok, out, err) = run(&["get", &url, "chunk/0"]);
    assert!(ok, "{err}");
    assert!(out.contains("\"chunk 0\""), "{out}");

    let (ok, out, err) = run(&["verify", &url]);
    assert!(ok, "{out}{err}");
    assert!(out.contains("3 entries checked, 0 problem(s)"), "{out}");

    // A prefix that holds no cache is refused, not created.
    let (ok, _, err) = run(&["inspect", &format!("s3://{bucket}/typo")]);
    assert!(!ok && err.contains("not a codec cache"), "{err}");
    let (ok, _, err) = run(&["inspect", "memory://"]);
    assert!(!ok && err.contains("not a codec cache"), "{err}");
    // Compaction runs online there; the entries read back after it.
    let (ok, out, err) = run(&["compact", &url, "--grace-secs", "0"]);
    assert!(ok, "{err}");
    assert!(out.contains("compacted 3 entries"), "{out}");
    let (ok, out, err) = run(&["get", &url, "chunk/2"]);
    assert!(
        ok && out.contains("\"text\": \"chunk 2chunk 2"),
        "{out}{err}"
    );
    // What needs a folder says so.
    let (ok, _, err) = run(&["verify", &url, "--rebuild-index"]);
    assert!(!ok && err.contains("needs a cache folder"), "{err}");
}

#[test]
fn a_file_url_is_a_folder() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    cache
        .put(
            "k",
            &Chunk {
                text: "hi".into(),
                tags: vec![],
            },
        )
        .unwrap();
    drop(cache);
    let url = format!("file://{}", dir.path().display());
    let (ok, out, err) = run(&["get", &url, "k"]);
    assert!(ok, "{err}");
    assert!(out.contains("\"hi\""), "{out}");
    let (ok, out, err) = run(&["compact", &url]);
    assert!(ok, "{err}");
    assert!(out.contains("compacted 1 entries"), "{out}");
}
