//! The store on object storage (`object_store`'s in-memory store here):
//! the typed API, and the requests each operation costs, counted by a
//! wrapper store.

use std::collections::BTreeMap;
use std::sync::Arc;

use object_store::ObjectStore as _;

use codec::{Cache, CacheOptions, PutOptions};

use crate::fixtures::counting::{counts, Counting};
use crate::fixtures::{sized_chunk, Chunk};

fn open(store: &Arc<Counting>) -> Cache {
    Cache::open_store(store.clone(), "caches/one", CacheOptions::default()).unwrap()
}

#[test]
fn the_typed_api_works_on_an_object_store() {
    let store = Counting::new();
    let cache = open(&store);
    let sizes = [10, 5_000, 300_000]; // inline, shared, buffer kept apart
    for (i, &len) in sizes.iter().enumerate() {
        cache
            .put(&format!("c/{i}"), &sized_chunk(i as u32, len))
            .unwrap();
    }
    let file = PutOptions::default().handler("file");
    cache
        .put_with("c/file", &sized_chunk(9, 2_000), &file)
        .unwrap();
    assert!(cache.remove("c/0").unwrap());

    let reader = open(&store);
    assert_eq!(reader.get::<Chunk>("c/0").unwrap(), None);
    for (i, &len) in sizes.iter().enumerate().skip(1) {
        let got: Chunk = reader.get(&format!("c/{i}")).unwrap().unwrap();
        assert_eq!(got, sized_chunk(i as u32, len));
    }
    assert_eq!(
        reader.get::<Chunk>("c/file").unwrap(),
        Some(sized_chunk(9, 2_000))
    );
    let mut keys = reader.keys().unwrap();
    keys.sort();
    assert_eq!(keys, ["c/1", "c/2", "c/file"]);
    // Everything lives under the prefix.
    let listed = futures::executor::block_on(store.inner.list_with_delimiter(None)).unwrap();
    let roots: Vec<_> = listed
        .common_prefixes
        .iter()
        .map(|p| p.to_string())
        .collect();
    assert_eq!(roots, ["caches"]);
}

#[test]
fn requests_per_operation_meet_the_goals() {
    let store = Counting::new();
    let cache = open(&store);
    cache.put("warm", &sized_chunk(0, 10)).unwrap(); // the schema, once per type
    store.take();

    cache.put("small", &sized_chunk(1, 10)).unwrap();
    assert_eq!(
        store.take(),
        counts(&[("PUT", 1)]),
        "an inline put: the log segment"
    );
    cache.put("large", &sized_chunk(2, 5_000)).unwrap();
    assert_eq!(
        store.take(),
        counts(&[("PUT", 2)]),
        "a put with data: data and log"
    );

    let reader = open(&store);
    store.take();
    reader.refresh().unwrap();
    assert_eq!(
        store.take(),
        counts(&[("LIST", 1)]),
        "a refresh with nothing new"
    );
    assert!(reader.get::<Chunk>("small").unwrap().is_some());
    assert_eq!(
        store.take(),
        counts(&[]),
        "a get of an inline entry listed already"
    );
    assert!(reader.get::<Chunk>("large").unwrap().is_some());
    assert_eq!(
        store.take(),
        counts(&[("GET", 1)]),
        "a get of an entry listed already"
    );
}

#[test]
fn memo_lock_adds_four_requests_to_a_memo_miss_and_none_to_a_hit() {
    // A handle on a store of its own, warm: its type's schema written.
    let warm = |memo_lock: bool| {
        let store = Counting::new();
        let options = CacheOptions::default().memo_lock(memo_lock);
        let cache = Cache::open_store(store.clone(), "caches/one", options).unwrap();
        cache.put("warm", &sized_chunk(0, 10)).unwrap();
        store.take();
        (store, cache)
    };
    let miss = |(store, cache): &(Arc<Counting>, Cache)| {
        let got: Chunk = cache
            .get_or_insert_with("m", || sized_chunk(1, 10))
            .unwrap();
        assert_eq!(got, sized_chunk(1, 10));
        store.take()
    };
    let without = miss(&warm(false));
    let locked = warm(true);
    let with = miss(&locked);
    let added: BTreeMap<&str, usize> = with
        .iter()
        .map(|(kind, n)| {
            (
                *kind,
                n.saturating_sub(without.get(kind).copied().unwrap_or(0)),
            )
        })
        .filter(|(_, n)| *n > 0)
        .collect();
    assert_eq!(
        added,
        counts(&[("PUT", 1), ("LIST", 1), ("GET", 1), ("DELETE", 1)]),
        "the lease created, the index refreshed once it is taken, the lease read \
         and deleted (a miss without memo_lock: {without:?})"
    );
    let (store, cache) = &locked;
    let hit: Chunk = cache.get_or_insert_with("m", || unreachable!()).unwrap();
    assert_eq!(hit, sized_chunk(1, 10));
    assert_eq!(store.take(), counts(&[]), "a hit");
}

#[test]
fn a_caller_waiting_for_anothers_lease_backs_off() {
    let store = Counting::new();
    let options = CacheOptions::default().memo_lock(true);
    let open = || Cache::open_store(store.clone(), "caches/one", options.clone()).unwrap();
    let (holder, waiter) = (open(), open());
    let (started, wait_start) = std::sync::mpsc::channel();
    std::thread::scope(|s| {
        let holding = s.spawn(|| {
            holder.get_or_insert_with("k", || {
                started.send(()).unwrap();
                std::thread::sleep(std::time::Duration::from_millis(500));
                sized_chunk(1, 10)
            })
        });
        wait_start.recv().unwrap();
        store.take();
        let got: Chunk = waiter.get_or_insert_with("k", || unreachable!()).unwrap();
        assert_eq!(got, sized_chunk(1, 10));
        holding.join().unwrap().unwrap();
    });
    // Its pauses double from 10 ms: a few tries in half a second, each a
    // few requests, not one after another.
    let requests: usize = store.take().values().sum();
    assert!(requests < 100, "{requests} requests");
}

#[test]
fn open_url_opens_memory_and_folders() {
    let memory = Cache::open_url("memory://").unwrap();
    assert_eq!(memory.location(), "memory://");
    memory.put("k", &sized_chunk(1, 10)).unwrap();
    assert_eq!(memory.get::<Chunk>("k").unwrap(), Some(sized_chunk(1, 10)));

    let dir = tempfile::tempdir().unwrap();
    let url = format!("file://{}", dir.path().display());
    Cache::open_url(&url)
        .unwrap()
        .put("k", &sized_chunk(2, 10))
        .unwrap();
    assert_eq!(
        Cache::open(dir.path()).unwrap().get::<Chunk>("k").unwrap(),
        Some(sized_chunk(2, 10))
    );

    let err = Cache::open_url("ftp://host/x").err().unwrap();
    assert!(err.to_string().contains("ftp://host/x"), "{err}");
}

#[test]
fn the_cache_works_inside_spawn_blocking_and_async_tasks() {
    let store = Counting::new();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let cache = runtime.block_on(async {
        let store = store.clone();
        tokio::task::spawn_blocking(move || {
            let cache = open(&store);
            cache.put("k", &sized_chunk(1, 10)).unwrap();
            cache
        })
        .await
        .unwrap()
    });
    // On an async task's thread it blocks that thread, and works.
    let got = runtime.block_on(async { cache.get::<Chunk>("k") }).unwrap();
    assert_eq!(got, Some(sized_chunk(1, 10)));
    runtime.block_on(async { drop(cache) });
}

#[test]
fn put_many_of_small_values_is_one_request_and_get_many_reads_them_all() {
    let store = Counting::new();
    let cache = open(&store);
    cache.put("warm", &sized_chunk(0, 10)).unwrap(); // the schema, once per type
    store.take();

    let small: Vec<(String, Chunk)> = (0..100)
        .map(|i| (format!("s/{i}"), sized_chunk(i, 10)))
        .collect();
    cache
        .put_many(small.iter().map(|(k, v)| (k.as_str(), v)))
        .unwrap();
    assert_eq!(
        store.take(),
        counts(&[("PUT", 1)]),
        "100 inline puts: one log segment"
    );
    let large: Vec<(String, Chunk)> = (0..10)
        .map(|i| (format!("l/{i}"), sized_chunk(i, 5_000)))
        .collect();
    cache
        .put_many(large.iter().map(|(k, v)| (k.as_str(), v)))
        .unwrap();
    assert_eq!(
        store.take(),
        counts(&[("PUT", 11)]),
        "10 puts with data: their data, and one log segment"
    );

    let reader = open(&store);
    store.take();
    let keys: Vec<&str> = small
        .iter()
        .chain(&large)
        .map(|(k, _)| k.as_str())
        .collect();
    let got = reader.get_many::<Chunk>(&keys).unwrap();
    let want: Vec<_> = small
        .iter()
        .chain(&large)
        .map(|(_, v)| Some(v.clone()))
        .collect();
    assert_eq!(got, want);
    assert_eq!(
        store.take(),
        counts(&[("GET", 10)]),
        "one GET per data object, none for the inline ones"
    );
    assert_eq!(
        reader.get_many::<Chunk>(&["s/1", "nothing"]).unwrap(),
        [Some(sized_chunk(1, 10)), None]
    );
}

#[test]
fn a_cache_names_its_location() {
    let cache = open(&Counting::new());
    assert_eq!(cache.location(), "Counting(InMemory)/caches/one");
    assert_eq!(cache.dir(), None, "a store in a bucket has no folder");
    let dir = tempfile::tempdir().unwrap();
    let folder = Cache::open(dir.path()).unwrap();
    assert_eq!(folder.location(), dir.path().display().to_string());
    assert_eq!(folder.dir(), Some(dir.path()));
}
