//! The store on S3 (a moto server, `tests/common/moto.rs`): the seam's commits,
//! the typed API, and faults: the server gone mid-run and a storm of 503s,
//! through a proxy the tests cut. moto checks a precondition and then
//! writes without a lock, so these tests prove the protocol, not the
//! atomicity S3 gives.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use codec::store::backend::object::Objects;
use codec::store::backend::Retries;
use codec::{Cache, CacheOptions};

use crate::fixtures::child;
use crate::fixtures::moto::{moto, store_at, Mode, Proxy};
use crate::fixtures::server;
use crate::fixtures::{sized_chunk, Chunk};

#[test]
fn the_store_on_s3_keeps_its_promises() {
    let moto = moto();

    // The seam's commits: create-if-absent and replace-if-unchanged.
    let store = moto.store(&moto.bucket("seam"));
    server::check_seam(&Objects::new(store, "root", "s3://seam/root").unwrap());

    // The typed API, two handles.
    let store = moto.store(&moto.bucket("cache"));
    server::check_two_handles(&|| {
        Cache::open_store(store.clone(), "runs/1", CacheOptions::default()).unwrap()
    });
}

/// A cache on a fresh bucket through `proxy`, retrying `retries` times.
fn through(proxy: &Proxy, bucket: &str, retries: usize) -> Cache {
    let store = store_at(proxy.port, bucket, retries);
    Cache::open_store(store, "p", CacheOptions::default()).unwrap()
}

/// Every acknowledged put reads back, every failed one is whole or absent,
/// and the reader met no damaged line.
fn check_after(bucket: &str, acked: &[u32], failed: &[u32]) {
    let reader = Cache::open_store(moto().store(bucket), "p", CacheOptions::default()).unwrap();
    for &n in acked {
        let got = reader.get::<Chunk>(&format!("k/{n}")).unwrap();
        assert_eq!(got, Some(value(n)), "acknowledged k/{n}");
    }
    for &n in failed {
        match reader.get::<Chunk>(&format!("k/{n}")) {
            Ok(got) => assert!(got.is_none() || got == Some(value(n)), "k/{n}: {got:?}"),
            Err(e) => panic!("a failed put left k/{n} half-visible: {e}"),
        }
    }
    assert!(reader.warnings().is_empty(), "{:?}", reader.warnings());
}

/// Values of three sizes: inline, in a data object, with a buffer apart.
fn value(n: u32) -> Chunk {
    sized_chunk(n, [10, 3_000, 70_000][n as usize % 3])
}

#[test]
fn the_server_gone_mid_run_is_a_typed_error_and_nothing_is_half_visible() {
    let bucket = moto().bucket("gone");
    let proxy = Proxy::start(moto().port);
    let cache = through(&proxy, &bucket, 1);
    let done = AtomicBool::new(false);
    let (acked, failed, errors) = std::thread::scope(|s| {
        let writer = s.spawn(|| {
            let (mut acked, mut failed, mut errors) = (Vec::new(), Vec::new(), Vec::new());
            let mut n = 0;
            while !done.load(Ordering::SeqCst) {
                match cache.put(&format!("k/{n}"), &value(n)) {
                    Ok(()) => acked.push(n),
                    Err(e) => {
                        failed.push(n);
                        errors.push(format!("{e:?}"));
                    }
                }
                n += 1;
            }
            (acked, failed, errors)
        });
        // Cut the server three times, mid-request as it happens.
        for _ in 0..3 {
            std::thread::sleep(Duration::from_millis(300));
            proxy.set(Mode::Down);
            std::thread::sleep(Duration::from_millis(300));
            proxy.set(Mode::Up);
        }
        std::thread::sleep(Duration::from_millis(200));
        done.store(true, Ordering::SeqCst);
        writer.join().unwrap()
    });
    assert!(acked.len() > 10, "{} puts acknowledged", acked.len());
    assert!(
        !failed.is_empty(),
        "no put failed while the server was gone"
    );
    for e in &errors {
        assert!(e.contains(&format!("s3://{bucket}/p/")), "no URL in: {e}");
        assert!(
            ["create:", "read:", "write:"]
                .iter()
                .any(|op| e.contains(op)),
            "no operation in: {e}"
        );
    }
    // While it is gone, reads are typed errors too.
    proxy.set(Mode::Down);
    let err = format!("{:?}", cache.refresh().unwrap_err());
    assert!(
        err.contains(&format!("s3://{bucket}/p")) && err.contains("list:"),
        "{err}"
    );
    proxy.set(Mode::Up);
    // The same handle goes on writing once the server is back.
    cache.put("k/after", &value(1)).unwrap();
    check_after(&bucket, &acked, &failed);
}

#[test]
fn a_storm_of_503s_is_retried_a_bounded_number_of_times_then_reported() {
    let bucket = moto().bucket("storm");
    let proxy = Proxy::start(moto().port);
    let cache = through(&proxy, &bucket, 3);
    for n in 0..6 {
        cache.put(&format!("k/{n}"), &value(n)).unwrap();
    }
    proxy.set(Mode::Storm);
    let start = Instant::now();
    let err = format!("{:?}", cache.put("k/6", &value(6)).unwrap_err());
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "{:?}",
        start.elapsed()
    );
    assert_eq!(
        proxy.refused.load(Ordering::SeqCst),
        4,
        "one request and 3 retries: {err}"
    );
    assert!(err.contains(&format!("s3://{bucket}/p/")), "{err}");
    assert!(err.contains("503"), "{err}");
    let err = format!("{:?}", cache.refresh().unwrap_err());
    assert!(err.contains("list:") && err.contains("503"), "{err}");
    proxy.set(Mode::Up);
    cache.put("k/7", &value(7)).unwrap();
    check_after(&bucket, &[0, 1, 2, 3, 4, 5, 7], &[6]);
}

/// Opens `CODEC_URL` with `open_url_with`, retrying at most
/// `CODEC_RETRIES` times (`open_url` if unset), and prints `opened <len>`
/// or `failed <milliseconds> <error>`: the store's settings come from the
/// environment the parent gives it, as for users.
#[test]
#[ignore = "a child process of the test below"]
fn child_open_url() {
    let Some(url) = child::var::<String>("CODEC_URL") else {
        return;
    };
    let start = Instant::now();
    let opened = match std::env::var("CODEC_RETRIES") {
        Ok(retries) => {
            let options = CacheOptions::default().retries(Retries {
                max_retries: retries.parse().unwrap(),
                retry_timeout: Duration::from_secs(30),
            });
            Cache::open_url_with(&url, options)
        }
        Err(_) => Cache::open_url(&url),
    };
    match opened {
        Ok(cache) => println!("opened {}", cache.len().unwrap()),
        Err(e) => println!("failed {} {e:?}", start.elapsed().as_millis()),
    }
}

/// What `child_open_url` printed, opening `bucket` through `proxy`.
fn open_url_in_a_child(proxy: &Proxy, bucket: &str, retries: Option<usize>) -> String {
    let mut child = child!(child_open_url)
        .env("CODEC_URL", format!("s3://{bucket}/p"))
        .env("AWS_ENDPOINT", format!("http://127.0.0.1:{}", proxy.port))
        .env("AWS_ALLOW_HTTP", "true")
        .env("AWS_REGION", "us-east-1")
        .env("AWS_ACCESS_KEY_ID", "test")
        .env("AWS_SECRET_ACCESS_KEY", "test");
    if let Some(retries) = retries {
        child = child.env("CODEC_RETRIES", retries.to_string());
    }
    let out = child.output();
    child::ended_well(&out);
    let out = String::from_utf8(out.stdout).unwrap();
    let printed = out
        .lines()
        .find(|l| l.starts_with("opened ") || l.starts_with("failed "));
    printed.unwrap_or_else(|| panic!("{out}")).to_owned()
}

#[test]
fn open_url_retries_a_storm_of_503s_as_many_times_as_its_options_say() {
    let bucket = moto().bucket("url-storm");
    let proxy = Proxy::start(moto().port);
    let cache = through(&proxy, &bucket, 3);
    for n in 0..3 {
        cache.put(&format!("k/{n}"), &value(n)).unwrap();
    }
    // Settings from the environment, as users give them.
    assert_eq!(open_url_in_a_child(&proxy, &bucket, None), "opened 3");
    proxy.set(Mode::Storm);
    let failed = open_url_in_a_child(&proxy, &bucket, Some(2));
    assert_eq!(
        proxy.refused.load(Ordering::SeqCst),
        3,
        "one request and 2 retries: {failed}"
    );
    let (ms, err) = failed["failed ".len()..].split_once(' ').unwrap();
    assert!(ms.parse::<u64>().unwrap() < 5000, "{ms} ms: {err}");
    assert!(
        err.contains(&format!("s3://{bucket}/p/codec-store.json")),
        "{err}"
    );
    assert!(err.contains("503"), "{err}");
    proxy.set(Mode::Up);
    assert_eq!(open_url_in_a_child(&proxy, &bucket, Some(2)), "opened 3");
}
