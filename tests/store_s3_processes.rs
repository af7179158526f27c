//! The store on S3 (a moto server, `common/moto.rs`) under several
//! processes and kill -9. The test binary runs itself as the child
//! processes: the `child_*` functions are ignored tests that the parent
//! tests run with `--ignored --exact`, and that do nothing unless
//! `CODEC_CHILD` is set.

#[path = "common/moto.rs"]
mod moto;
#[path = "common/venv.rs"]
mod venv;

use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use codec::{Cache, CacheOptions, Codec};
use moto::{moto, store_at};

#[derive(Codec, Debug, Clone, PartialEq)]
#[codec(name = "test.Entry")]
struct Entry {
    writer: u32,
    n: u32,
    text: String,
}

fn entry(writer: u32, n: u32) -> Entry {
    // One in ten large enough for a data object of its own.
    let len = if n.is_multiple_of(10) { 2000 } else { 20 };
    Entry {
        writer,
        n,
        text: format!("{writer}-{n}-").repeat(len / 8 + 1),
    }
}

fn open(port: u16, bucket: &str) -> Cache {
    Cache::open_store(store_at(port, bucket, 3), "p", CacheOptions::default()).unwrap()
}

fn now() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos()
}

fn child(test: &str, bucket: &str, writer: u32, count: u32) -> Child {
    Command::new(std::env::current_exe().unwrap())
        .args(["--ignored", "--exact", test, "--nocapture"])
        .env("CODEC_CHILD", "1")
        .env("CODEC_PORT", moto().port.to_string())
        .env("CODEC_BUCKET", bucket)
        .env("CODEC_WRITER", writer.to_string())
        .env("CODEC_COUNT", count.to_string())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

fn child_env() -> Option<(u16, String, u32, u32)> {
    std::env::var_os("CODEC_CHILD")?;
    let var = |name| std::env::var(name).ok();
    Some((
        var("CODEC_PORT")?.parse().ok()?,
        var("CODEC_BUCKET")?,
        var("CODEC_WRITER")?.parse().ok()?,
        var("CODEC_COUNT")?.parse().ok()?,
    ))
}

/// The key of writer `w`'s `n`th put: 500 keys that every writer writes.
fn shared_key(w: u32, n: u32) -> String {
    format!("k/{}", (n * 7 + w * 131) % 500)
}

/// Puts `count` entries on the shared keys, printing after each
/// `ack <key> <writer> <n> <start> <end>` (its start and its
/// acknowledgement, in nanoseconds of the clock).
#[test]
#[ignore = "a child process of the tests below"]
fn child_shared_writer() {
    let Some((port, bucket, w, count)) = child_env() else {
        return;
    };
    let cache = open(port, &bucket);
    for n in 0..count {
        let key = shared_key(w, n);
        let start = now();
        cache.put(&key, &entry(w, n)).unwrap();
        println!("ack {key} {w} {n} {start} {}", now());
    }
}

/// Puts entries of keys of its own forever, printing `ack <n>` after each.
#[test]
#[ignore = "a child process of the tests below"]
fn child_writer() {
    let Some((port, bucket, w, _)) = child_env() else {
        return;
    };
    let cache = open(port, &bucket);
    for n in 0.. {
        cache.put(&format!("w{w}/{n}"), &entry(w, n)).unwrap();
        println!("ack {n}");
    }
}

/// An acknowledged put of a shared key.
struct Put {
    writer: u32,
    n: u32,
    start: u128,
    end: u128,
}

#[test]
fn four_processes_put_2000_entries_each_and_the_latest_write_wins() {
    let bucket = moto().bucket("four");
    // About a minute of moto's time to write (150 PUTs/s here), and as
    // long to open: the reader GETs each of the 8,000 log segments.
    let count = 2000;
    let mut children: Vec<_> = (0..4)
        .map(|w| child("child_shared_writer", &bucket, w, count))
        .collect();
    let mut puts: HashMap<String, Vec<Put>> = HashMap::new();
    for c in &mut children {
        for line in BufReader::new(c.stdout.take().unwrap()).lines() {
            let line = line.unwrap();
            let Some(ack) = line.rfind("ack ").map(|i| &line[i + 4..]) else {
                continue;
            };
            let f: Vec<&str> = ack.split(' ').collect();
            puts.entry(f[0].to_owned()).or_default().push(Put {
                writer: f[1].parse().unwrap(),
                n: f[2].parse().unwrap(),
                start: f[3].parse().unwrap(),
                end: f[4].parse().unwrap(),
            });
        }
        assert!(c.wait().unwrap().success());
    }
    let acked: usize = puts.values().map(Vec::len).sum();
    assert_eq!(acked, 4 * count as usize);

    let reader = open(moto().port, &bucket);
    assert!(reader.warnings().is_empty(), "{:?}", reader.warnings());
    assert_eq!(reader.len().unwrap(), puts.len());
    for (key, puts) in &puts {
        let got: Entry = reader.get(key).unwrap().unwrap();
        let won = puts
            .iter()
            .find(|p| p.writer == got.writer && p.n == got.n)
            .unwrap_or_else(|| panic!("{key}: {got:?} was never put"));
        assert_eq!(got, entry(won.writer, won.n), "{key}");
        // No put of the key began after the winner was acknowledged.
        let later = puts.iter().find(|p| p.start > won.end);
        assert!(
            later.is_none(),
            "{key}: writer {} put {} won over writer {} put {}, begun after it",
            won.writer,
            won.n,
            later.unwrap().writer,
            later.unwrap().n
        );
    }
}

/// Sets its flag when dropped, so a thread waiting on it ends even if the
/// test fails.
struct Stop<'a>(&'a AtomicBool);

impl Drop for Stop<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

#[test]
fn a_writer_killed_at_20_points_loses_no_acknowledged_entry() {
    let bucket = moto().bucket("kill");
    let acked: Mutex<Vec<(u32, u32)>> = Mutex::default();
    let done = AtomicBool::new(false);
    std::thread::scope(|s| {
        let _stop = Stop(&done);
        // A reader all along: no error, whatever it meets.
        let reader = s.spawn(|| {
            let cache = open(moto().port, &bucket);
            while !done.load(Ordering::SeqCst) {
                cache.refresh().unwrap();
                let known = acked.lock().unwrap().clone();
                for &(w, n) in known.iter().rev().take(20) {
                    let got = cache.get::<Entry>(&format!("w{w}/{n}")).unwrap();
                    assert_eq!(got, Some(entry(w, n)));
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        });
        for w in 0..20 {
            let mut writer = child("child_writer", &bucket, w, 0);
            let mut acks = BufReader::new(writer.stdout.take().unwrap())
                .lines()
                .map_while(Result::ok)
                .filter_map(|line| Some(line[line.rfind("ack ")? + 4..].parse().unwrap()));
            // Killed after a few acknowledgements, and a moment into the
            // next put: between its data and its line, or within a request.
            for _ in 0..1 + w % 5 * 3 {
                let n = acks.next().expect("the writer ended");
                acked.lock().unwrap().push((w, n));
            }
            std::thread::sleep(Duration::from_micros(700 * w as u64));
            writer.kill().unwrap();
            writer.wait().unwrap();
            // Acknowledged before the kill, and not read yet.
            for n in acks {
                acked.lock().unwrap().push((w, n));
            }
        }
        done.store(true, Ordering::SeqCst);
        reader.join().unwrap();
    });
    let reader = open(moto().port, &bucket);
    assert!(reader.warnings().is_empty(), "{:?}", reader.warnings());
    let acked = acked.into_inner().unwrap();
    for &(w, n) in &acked {
        let got = reader.get::<Entry>(&format!("w{w}/{n}")).unwrap();
        assert_eq!(got, Some(entry(w, n)), "w{w}/{n}");
    }
    // At most the put being written when killed, once per writer.
    assert!(reader.len().unwrap() <= acked.len() + 20);
    reader.put("after", &entry(99, 0)).unwrap();
}
