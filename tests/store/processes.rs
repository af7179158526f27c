//! The cache store under several processes, kill -9 and a full disk: the
//! child processes are `child_writer` and `child_disk_full`.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use codec::{Cache, CacheOptions, StoreError};

use crate::fixtures::child::{self, ChildTest, Spawned};
use crate::fixtures::{entry, Entry};

/// Starts `child` on folder `dir` as writer `writer`, writing `count`
/// entries (0: until killed).
fn start(child: ChildTest, dir: &Path, writer: u32, count: u32) -> Spawned {
    child
        .env("CODEC_DIR", dir)
        .env("CODEC_WRITER", writer.to_string())
        .env("CODEC_COUNT", count.to_string())
        .spawn()
}

/// The folder, writer and count a child's parent gave it.
fn child_env() -> Option<(PathBuf, u32, u32)> {
    let dir = child::var("CODEC_DIR")?;
    let writer = child::var("CODEC_WRITER").unwrap();
    let count = child::var("CODEC_COUNT").unwrap();
    Some((dir, writer, count))
}

/// Writes `count` entries (or forever when 0), printing `ack <key>` after each.
#[test]
#[ignore = "a child process of the tests below"]
fn child_writer() {
    let Some((dir, writer, count)) = child_env() else {
        return;
    };
    let cache = Cache::open(&dir).unwrap();
    let mut n = 0;
    while count == 0 || n < count {
        let key = format!("w{writer}/{n}");
        cache.put(&key, &entry(writer, n)).unwrap();
        if n % 5 == 4 {
            // Overwrites and removals from every writer, too.
            cache
                .put(
                    &format!("w{writer}/{}", n - 1),
                    &entry(writer, 1_000_000 + n),
                )
                .unwrap();
            cache.remove(&format!("w{writer}/{}", n - 2)).unwrap();
        }
        println!("ack {key}");
        n += 1;
    }
}

/// Limits the size of the files this process writes (`None`: no limit).
fn limit_file_size(bytes: Option<u64>) {
    let limit = libc::rlimit {
        rlim_cur: bytes.unwrap_or(libc::RLIM_INFINITY),
        rlim_max: libc::RLIM_INFINITY,
    };
    // SAFETY: plain libc calls on this process; ignoring SIGXFSZ turns
    // writes past the limit into EFBIG errors instead of killing the process.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
        assert_eq!(libc::setrlimit(libc::RLIMIT_FSIZE, &limit), 0);
    }
}

/// Puts entries until one fails with an I/O error, which it prints.
fn put_until_full(cache: &Cache, writer: u32, first: u32, value: impl Fn(u32) -> Entry) {
    for n in first..first + 100_000 {
        match cache.put(&format!("k{n}"), &value(n)) {
            Ok(()) => println!("ack k{n}"),
            Err(e @ StoreError::Io { .. }) => {
                println!("err {e:?}");
                return;
            }
            Err(e) => panic!("unexpected error {e}"),
        }
    }
    panic!("writer {writer} never filled the disk");
}

/// Writes until the file size limit makes a write fail, then reports the
/// error; then fills the disk once more where only the index line can fail
/// (small inline entries), and writes again with the limit lifted, on the
/// same handle.
#[test]
#[ignore = "a child process of the tests below"]
fn child_disk_full() {
    let Some((dir, writer, _)) = child_env() else {
        return;
    };
    let cache = Cache::open(&dir).unwrap();
    cache.put("before", &entry(writer, 0)).unwrap();
    println!("ack before");
    limit_file_size(Some(64 * 1024));
    put_until_full(&cache, writer, 1, |n| entry(writer, n));
    limit_file_size(None);
    let index = dir.join(format!("{}-info.jsonl", cache.writer_id()));
    let size = std::fs::metadata(&index).unwrap().len();
    // A few lines fit, then one is cut short.
    limit_file_size(Some(size + 1000));
    let small = |n| Entry {
        writer,
        n,
        text: String::new(),
    };
    put_until_full(&cache, writer, 200_000, small);
    limit_file_size(None);
    cache.put("after", &entry(writer, 1)).unwrap();
    println!("ack after");
}

/// The key of an `ack <key>` line (the test harness may print before it).
fn ack(line: &str) -> Option<&str> {
    line.rfind("ack ").map(|i| &line[i + 4..])
}

fn acks(child: &mut Spawned) -> Vec<String> {
    let out = child.stdout.take().unwrap();
    BufReader::new(out)
        .lines()
        .map_while(Result::ok)
        .filter_map(|l| ack(&l).map(str::to_owned))
        .collect()
}

/// The value a key should hold after writer `w` wrote `n` entries.
fn expected(key: &str, written: u32) -> Option<Entry> {
    let (w, n) = key.trim_start_matches('w').split_once('/')?;
    let (w, n): (u32, u32) = (w.parse().ok()?, n.parse().ok()?);
    // Every 5th step overwrote n-1 and removed n-2 (counting from 0).
    let step_of = |n: u32| n + 1; // written after the ack of n+1
    if n + 2 < written && (n + 2) % 5 == 4 && step_of(n + 2) <= written {
        return None; // removed
    }
    if n + 1 < written && (n + 1) % 5 == 4 {
        return Some(entry(w, 1_000_000 + n + 1));
    }
    Some(entry(w, n))
}

#[test]
fn several_processes_write_one_folder() {
    let dir = tempfile::tempdir().unwrap();
    let count = 60;
    let mut children: Vec<_> = (0..4)
        .map(|w| start(child!(child_writer), dir.path(), w, count))
        .collect();
    let mut all_acks = Vec::new();
    for c in &mut children {
        all_acks.extend(acks(c));
        c.ended_well();
    }
    assert_eq!(all_acks.len(), 4 * count as usize);
    let reader = Cache::open(dir.path()).unwrap();
    assert!(reader.warnings().is_empty(), "{:?}", reader.warnings());
    let mut live = 0;
    for key in &all_acks {
        let want = expected(key, count);
        assert_eq!(reader.get::<Entry>(key).unwrap(), want, "{key}");
        live += want.is_some() as usize;
    }
    assert_eq!(
        reader.len().unwrap(),
        live,
        "each acknowledged entry exactly once"
    );
}

#[test]
fn kill_9_loses_at_most_the_entry_being_written() {
    let dir = tempfile::tempdir().unwrap();
    for round in 0..12u32 {
        let mut c = start(child!(child_writer), dir.path(), round, 0);
        let out = c.stdout.take().unwrap();
        let mut lines = BufReader::new(out).lines();
        // Let it write a varying number of entries, then kill it mid-stream.
        let target = 5 + (round * 7) % 40;
        let mut acked = Vec::new();
        while acked.len() < target as usize {
            let line = (lines.next().and_then(Result::ok))
                .unwrap_or_else(|| c.ended_before("its acknowledgements"));
            if let Some(key) = ack(&line) {
                acked.push(key.to_owned());
            }
        }
        c.kill().unwrap(); // SIGKILL
        c.wait().unwrap();
        let reader = Cache::open(dir.path()).unwrap();
        for key in &acked {
            let n: u32 = key.split_once('/').unwrap().1.parse().unwrap();
            // Entries acknowledged before the kill load (or were removed or
            // overwritten by the writer itself after their ack).
            match reader.get::<Entry>(key) {
                Ok(Some(e)) => assert!(e.n == n || e.n >= 1_000_000, "{key}: {e:?}"),
                Ok(None) => assert!((n + 2) % 5 == 4, "{key} lost"),
                Err(e) => panic!("{key}: {e}"),
            }
        }
        // The folder stays writable after every kill.
        reader
            .put(&format!("after-kill-{round}"), &entry(99, round))
            .unwrap();
    }
    let reader = Cache::open_with(dir.path(), CacheOptions::default()).unwrap();
    for round in 0..12 {
        assert_eq!(
            reader.get::<Entry>(&format!("after-kill-{round}")).unwrap(),
            Some(entry(99, round))
        );
    }
}

#[test]
fn a_full_disk_is_a_typed_error_and_earlier_entries_load() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = start(child!(child_disk_full), dir.path(), 7, 0);
    let out = c.stdout.take().unwrap();
    let lines: Vec<String> = BufReader::new(out).lines().map_while(Result::ok).collect();
    c.ended_well();
    let errors: Vec<&String> = lines.iter().filter(|l| l.contains("err ")).collect();
    assert_eq!(
        errors.len(),
        2,
        "the child filled the disk twice: {lines:?}"
    );
    for err in errors {
        assert!(err.contains("too large"), "{err}");
    }
    let acked: Vec<&str> = lines.iter().filter_map(|l| ack(l)).collect();
    assert!(acked.len() > 2);
    assert_eq!(acked.first(), Some(&"before"));
    assert_eq!(
        acked.last(),
        Some(&"after"),
        "written after the limit was lifted"
    );
    let reader = Cache::open(dir.path()).unwrap();
    for key in acked {
        let want = match key {
            "before" => entry(7, 0),
            "after" => entry(7, 1),
            _ => {
                let n: u32 = key[1..].parse().unwrap();
                match n {
                    200_000.. => Entry {
                        writer: 7,
                        n,
                        text: String::new(),
                    },
                    _ => entry(7, n),
                }
            }
        };
        assert_eq!(reader.get::<Entry>(key).unwrap(), Some(want), "{key}");
    }
    reader.put("after-reopen", &entry(7, 2)).unwrap();
}
