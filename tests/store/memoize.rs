//! `#[codec::memoize]`: a function's body runs once per key (its name, its
//! version, its arguments' content hash), in threads, tasks and handles of
//! one folder.

use std::future::Future;
use std::pin::pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, LazyLock};
use std::task::{Context, Poll, Wake, Waker};
use std::time::Duration;

use codec::{Cache, StoreError};

#[derive(codec::Codec, Debug, PartialEq, Clone)]
struct Model {
    name: String,
    dim: usize,
}

fn model() -> Model {
    Model {
        name: "mini".into(),
        dim: 2,
    }
}

/// A folder for one static cache, kept until the test binary ends.
fn folder(name: &str) -> std::path::PathBuf {
    tempfile::tempdir().unwrap().keep().join(name)
}

static EMBED_CACHE: LazyLock<Cache> = LazyLock::new(|| Cache::open(folder("embed")).unwrap());
static EMBED_CALLS: AtomicUsize = AtomicUsize::new(0);

/// What a client would be: not part of the key.
struct Client {
    retries: u32,
}

#[codec::memoize(cache = EMBED_CACHE, version = 1, ignore(client))]
fn embed(client: &Client, model: &Model, text: &str) -> Result<Vec<f32>, StoreError> {
    let _ = client.retries;
    EMBED_CALLS.fetch_add(1, Ordering::SeqCst);
    Ok(vec![text.len() as f32; model.dim])
}

#[test]
fn a_call_with_arguments_seen_before_does_not_run_the_body() {
    let client = Client { retries: 3 };
    assert_eq!(embed(&client, &model(), "hello").unwrap(), vec![5.0, 5.0]);
    assert_eq!(embed(&client, &model(), "hello").unwrap(), vec![5.0, 5.0]);
    assert_eq!(EMBED_CALLS.load(Ordering::SeqCst), 1);

    // Another argument is another key; the ignored one is not part of it.
    assert_eq!(embed(&client, &model(), "hi").unwrap(), vec![2.0, 2.0]);
    assert_eq!(EMBED_CALLS.load(Ordering::SeqCst), 2);
    assert_eq!(
        embed(&Client { retries: 9 }, &model(), "hi").unwrap(),
        vec![2.0, 2.0]
    );
    let other = Model { dim: 3, ..model() };
    assert_eq!(embed(&client, &other, "hi").unwrap(), vec![2.0; 3]);
    assert_eq!(EMBED_CALLS.load(Ordering::SeqCst), 3);

    // The key: the function's path, its version, the arguments' hash.
    let hash = codec::ContentHash::new()
        .part(&model())
        .part("hello")
        .finish()
        .unwrap();
    let key = format!("store::memoize::embed/v1/{hash}");
    assert_eq!(
        EMBED_CACHE.get::<Vec<f32>>(&key).unwrap(),
        Some(vec![5.0, 5.0])
    );
}

/// Takes its cache as an (ignored) argument: the cache expression sees the
/// arguments.
#[codec::memoize(cache = cache, name = "tests.square", version = 1, ignore(cache, calls))]
fn square(cache: &Cache, calls: &AtomicUsize, x: u64) -> Result<u64, StoreError> {
    calls.fetch_add(1, Ordering::SeqCst);
    Ok(x * x)
}

/// `square` after its body changed: the same name, a new version.
#[codec::memoize(cache = cache, name = "tests.square", version = 2, ignore(cache, calls))]
fn square_v2(cache: &Cache, calls: &AtomicUsize, x: u64) -> Result<u64, StoreError> {
    calls.fetch_add(1, Ordering::SeqCst);
    Ok(x * x + 1)
}

#[test]
fn two_handles_of_one_folder_share_results() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (
        Cache::open(dir.path()).unwrap(),
        Cache::open(dir.path()).unwrap(),
    );
    let calls = AtomicUsize::new(0);
    assert_eq!(square(&a, &calls, 7).unwrap(), 49);
    assert_eq!(square(&b, &calls, 7).unwrap(), 49);
    assert_eq!(calls.load(Ordering::SeqCst), 1);
    // And a handle opened later, as in the next run of the program.
    drop((a, b));
    let c = Cache::open(dir.path()).unwrap();
    assert_eq!(square(&c, &calls, 7).unwrap(), 49);
    assert_eq!(calls.load(Ordering::SeqCst), 1);
    assert_eq!(c.len().unwrap(), 1);
}

#[test]
fn a_new_version_computes_again_and_keeps_the_old_entries() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    let calls = AtomicUsize::new(0);
    assert_eq!(square(&cache, &calls, 3).unwrap(), 9);
    assert_eq!(square_v2(&cache, &calls, 3).unwrap(), 10);
    assert_eq!(square_v2(&cache, &calls, 3).unwrap(), 10);
    assert_eq!(square(&cache, &calls, 3).unwrap(), 9);
    assert_eq!(calls.load(Ordering::SeqCst), 2);
    let mut keys = cache.keys().unwrap();
    keys.sort();
    assert!(keys[0].starts_with("tests.square/v1/"), "{keys:?}");
    assert!(keys[1].starts_with("tests.square/v2/"), "{keys:?}");
}

#[derive(Debug)]
enum ParseError {
    NotANumber(String),
    Store(StoreError),
}

impl From<StoreError> for ParseError {
    fn from(e: StoreError) -> Self {
        ParseError::Store(e)
    }
}

#[codec::memoize(cache = cache, ignore(cache, calls))]
fn parse(cache: &Cache, calls: &AtomicUsize, text: String) -> Result<i64, ParseError> {
    calls.fetch_add(1, Ordering::SeqCst);
    text.trim()
        .parse()
        .map_err(|_| ParseError::NotANumber(text))
}

#[test]
fn an_error_is_returned_and_not_stored() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    let calls = AtomicUsize::new(0);
    assert_eq!(parse(&cache, &calls, " 12".into()).unwrap(), 12);
    if let Err(ParseError::Store(e)) = parse(&cache, &calls, "x".into()) {
        panic!("{e}");
    }
    assert!(
        matches!(parse(&cache, &calls, "x".into()), Err(ParseError::NotANumber(t)) if t == "x")
    );
    assert!(matches!(
        parse(&cache, &calls, "x".into()),
        Err(ParseError::NotANumber(_))
    ));
    assert_eq!(parse(&cache, &calls, " 12".into()).unwrap(), 12);
    assert_eq!(calls.load(Ordering::SeqCst), 4);
    assert_eq!(cache.len().unwrap(), 1);
}

#[codec::memoize(cache = cache, ignore(cache, calls))]
fn wide(cache: &Cache, calls: &AtomicUsize, n: u128) -> Result<u64, StoreError> {
    calls.fetch_add(1, Ordering::SeqCst);
    Ok(n as u64)
}

#[test]
fn an_argument_that_does_not_encode_is_the_error_and_runs_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    let calls = AtomicUsize::new(0);
    let err = wide(&cache, &calls, u128::MAX).unwrap_err();
    assert!(matches!(err, StoreError::Encode(_)), "{err:?}");
    assert_eq!(calls.load(Ordering::SeqCst), 0);
    assert_eq!(wide(&cache, &calls, 5).unwrap(), 5);
}

/// Arguments bound by a pattern are hashed whole.
#[codec::memoize(cache = cache, ignore(cache))]
fn area(cache: &Cache, (w, h): (u32, u32)) -> Result<u32, StoreError> {
    Ok(w * h)
}

/// Arguments that borrow: a tuple of references, an `Option` of one.
#[codec::memoize(cache = cache, name = "tests.label", ignore(cache))]
fn label(cache: &Cache, key: (&str, u8), suffix: Option<&str>) -> Result<String, StoreError> {
    Ok(format!("{}{}{}", key.0, key.1, suffix.unwrap_or_default()))
}

#[test]
fn borrowed_arguments_are_hashed_as_the_owned_values() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    assert_eq!(label(&cache, ("x", 1), Some("!")).unwrap(), "x1!");
    let hash = codec::ContentHash::new()
        .part(&("x".to_string(), 1u8))
        .part(&Some("!".to_string()))
        .finish()
        .unwrap();
    let key = format!("tests.label/v0/{hash}");
    assert_eq!(cache.get::<String>(&key).unwrap().as_deref(), Some("x1!"));
}

#[test]
fn a_pattern_argument_is_hashed_whole() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    assert_eq!(area(&cache, (3, 4)).unwrap(), 12);
    assert_eq!(area(&cache, (4, 3)).unwrap(), 12);
    assert_eq!(cache.len().unwrap(), 2);
}

#[codec::memoize(cache = cache, ignore(cache, calls))]
fn slow_square(cache: &Cache, calls: &AtomicUsize, x: u64) -> Result<u64, StoreError> {
    calls.fetch_add(1, Ordering::SeqCst);
    std::thread::sleep(Duration::from_millis(50));
    Ok(x * x)
}

#[test]
fn threads_calling_one_key_run_the_body_once() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    let calls = AtomicUsize::new(0);
    std::thread::scope(|s| {
        let threads: Vec<_> = (0..4)
            .map(|_| s.spawn(|| slow_square(&cache, &calls, 6).unwrap()))
            .collect();
        for t in threads {
            assert_eq!(t.join().unwrap(), 36);
        }
    });
    assert_eq!(calls.load(Ordering::SeqCst), 1);
}

// ---- async ----

/// Runs a future on this thread, parking it while the future waits and
/// polling it again only once it is woken; a future never woken fails the
/// test instead of hanging it.
fn block_on<F: Future>(future: F) -> F::Output {
    struct Unpark {
        thread: std::thread::Thread,
        woken: AtomicBool,
    }
    impl Wake for Unpark {
        fn wake(self: Arc<Self>) {
            self.woken.store(true, Ordering::SeqCst);
            self.thread.unpark();
        }
    }
    let unpark = Arc::new(Unpark {
        thread: std::thread::current(),
        woken: AtomicBool::new(false),
    });
    let waker = Waker::from(unpark.clone());
    let mut cx = Context::from_waker(&waker);
    let mut future = pin!(future);
    loop {
        if let Poll::Ready(v) = future.as_mut().poll(&mut cx) {
            return v;
        }
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while !unpark.woken.swap(false, Ordering::SeqCst) {
            assert!(
                std::time::Instant::now() < deadline,
                "a waiting task was never woken"
            );
            std::thread::park_timeout(Duration::from_millis(100));
        }
    }
}

/// Pending until polled `n` more times (an I/O wait, say).
struct Yield(u32);

impl Future for Yield {
    type Output = ();
    fn poll(mut self: std::pin::Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.0 == 0 {
            return Poll::Ready(());
        }
        self.0 -= 1;
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}

#[codec::memoize(cache = cache, version = 1, ignore(cache, calls))]
async fn fetch(cache: &Cache, calls: &AtomicUsize, url: &str) -> Result<String, StoreError> {
    calls.fetch_add(1, Ordering::SeqCst);
    Yield(3).await;
    if url.is_empty() {
        return Err(StoreError::Custom {
            message: "no url".into(),
        });
    }
    Ok(format!("page at {url}"))
}

#[test]
fn an_async_fn_is_memoized() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (
        Cache::open(dir.path()).unwrap(),
        Cache::open(dir.path()).unwrap(),
    );
    let calls = AtomicUsize::new(0);
    assert_eq!(
        block_on(fetch(&a, &calls, "x.org")).unwrap(),
        "page at x.org"
    );
    assert_eq!(
        block_on(fetch(&a, &calls, "x.org")).unwrap(),
        "page at x.org"
    );
    assert_eq!(
        block_on(fetch(&b, &calls, "x.org")).unwrap(),
        "page at x.org"
    );
    assert_eq!(calls.load(Ordering::SeqCst), 1);
    assert!(block_on(fetch(&a, &calls, "")).is_err());
    assert!(block_on(fetch(&a, &calls, "")).is_err());
    assert_eq!(calls.load(Ordering::SeqCst), 3);
}

#[test]
fn tasks_of_one_thread_wait_for_one_computation_without_blocking_it() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    let calls = AtomicUsize::new(0);
    // Both polled in turn on this thread: the second must wait for the
    // first's computation without blocking the thread the first runs on.
    let mut first = pin!(fetch(&cache, &calls, "y.org"));
    let mut second = pin!(fetch(&cache, &calls, "y.org"));
    let mut cx = Context::from_waker(Waker::noop());
    let (mut one, mut two) = (None, None);
    for _ in 0..100 {
        if one.is_none() {
            one = match first.as_mut().poll(&mut cx) {
                Poll::Ready(v) => Some(v),
                Poll::Pending => None,
            };
        }
        if two.is_none() {
            two = match second.as_mut().poll(&mut cx) {
                Poll::Ready(v) => Some(v),
                Poll::Pending => None,
            };
        }
    }
    assert_eq!(one.unwrap().unwrap(), "page at y.org");
    assert_eq!(two.unwrap().unwrap(), "page at y.org");
    assert_eq!(calls.load(Ordering::SeqCst), 1);
}

#[codec::memoize(cache = cache, ignore(cache, calls))]
async fn slow_fetch(cache: &Cache, calls: &AtomicUsize, id: u32) -> Result<u32, StoreError> {
    calls.fetch_add(1, Ordering::SeqCst);
    std::thread::sleep(Duration::from_millis(50));
    Yield(1).await;
    Ok(id + 1)
}

#[test]
fn tasks_on_several_threads_run_the_body_once_and_are_woken() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    let calls = AtomicUsize::new(0);
    std::thread::scope(|s| {
        let threads: Vec<_> = (0..4)
            .map(|_| s.spawn(|| block_on(slow_fetch(&cache, &calls, 41)).unwrap()))
            .collect();
        for t in threads {
            assert_eq!(t.join().unwrap(), 42);
        }
    });
    assert_eq!(calls.load(Ordering::SeqCst), 1);
}

/// A chunk whose `id` the function does not read: with `key = ..` a
/// change of it (or of its type) is no reason to compute again.
#[derive(codec::Codec, Debug, PartialEq, Clone)]
struct Chunk {
    id: u64,
    text: String,
}

/// A type without `Codec`: left out of a `key = ..` expression, it needs none.
struct Progress;

static KEYED_CACHE: LazyLock<Cache> = LazyLock::new(|| Cache::open(folder("keyed")).unwrap());
static KEYED_CALLS: AtomicUsize = AtomicUsize::new(0);

#[codec::memoize(cache = KEYED_CACHE, version = 1, key = (&chunk.text, &model.name))]
fn keyed_embed(_progress: &Progress, chunk: &Chunk, model: &Model) -> Result<usize, StoreError> {
    KEYED_CALLS.fetch_add(1, Ordering::SeqCst);
    Ok(chunk.text.len() * model.name.len())
}

/// Arguments bound by a pattern: the key expression names what it binds.
#[codec::memoize(cache = KEYED_CACHE, name = "tests.sum", key = a)]
fn keyed_sum((a, b): (u32, u32)) -> Result<u32, StoreError> {
    KEYED_CALLS.fetch_add(1, Ordering::SeqCst);
    Ok(a + b)
}

#[test]
fn a_key_expression_is_what_the_key_hashes() {
    let chunk = Chunk {
        id: 1,
        text: "hello".into(),
    };
    assert_eq!(keyed_embed(&Progress, &chunk, &model()).unwrap(), 20);
    let moved = Chunk {
        id: 2,
        ..chunk.clone()
    };
    let wider = Model { dim: 9, ..model() };
    assert_eq!(keyed_embed(&Progress, &moved, &wider).unwrap(), 20);
    assert_eq!(
        KEYED_CALLS.load(Ordering::SeqCst),
        1,
        "id and dim are not in the key"
    );

    // What the expression reads is.
    let other = Chunk {
        text: "hi".into(),
        ..chunk.clone()
    };
    assert_eq!(keyed_embed(&Progress, &other, &model()).unwrap(), 8);
    assert_eq!(KEYED_CALLS.load(Ordering::SeqCst), 2);

    // The key hashes the expression's value, as ContentHash does.
    let hash = codec::ContentHash::new()
        .part(&(&chunk.text, &model().name))
        .finish()
        .unwrap();
    let key = format!("store::memoize::keyed_embed/v1/{hash}");
    assert_eq!(KEYED_CACHE.get::<usize>(&key).unwrap(), Some(20));

    assert_eq!(keyed_sum((1, 2)).unwrap(), 3);
    // Only `a` is the key: the stored result of (1, 2) comes back.
    assert_eq!(keyed_sum((1, 5)).unwrap(), 3);
    assert_eq!(KEYED_CALLS.load(Ordering::SeqCst), 3);
}

static RATE_CACHE: LazyLock<Cache> = LazyLock::new(|| Cache::open(folder("rate")).unwrap());
static RATE_CALLS: AtomicUsize = AtomicUsize::new(0);

#[codec::memoize(cache = RATE_CACHE, version = 1, ttl = "300ms")]
fn rate(currency: &str) -> Result<usize, StoreError> {
    Ok(RATE_CALLS.fetch_add(1, Ordering::SeqCst) + currency.len())
}

#[codec::memoize(cache = RATE_CACHE, version = 1, ttl = Duration::from_millis(300))]
fn rate_by_duration(currency: &str) -> Result<usize, StoreError> {
    Ok(RATE_CALLS.fetch_add(1, Ordering::SeqCst) + currency.len())
}

#[test]
fn a_ttl_makes_results_computed_again_once_it_is_over() {
    for memoized in [rate, rate_by_duration] {
        let first = memoized("eur").unwrap();
        assert_eq!(memoized("eur").unwrap(), first, "a hit before it expires");
        std::thread::sleep(Duration::from_millis(400));
        assert_ne!(
            memoized("eur").unwrap(),
            first,
            "computed again once expired"
        );
    }
}
