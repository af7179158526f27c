//! A get in place (`Cache::get_ref`) from a warm handle allocates nothing:
//! not for a payload kept in its index line (decoded into a buffer the
//! handle lends), not for one in a data file (viewed in its memory map);
//! a `Cache::get` allocates only what its value holds.
//! A JSON array of a few small numbers is read with one allocation. The
//! allocations of this thread are counted by the global allocator.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use codec::{Cache, CacheOptions, Codec, PutOptions};

struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

// SAFETY: every call is passed to `System`; the count is a side effect.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// The allocations of this thread while `f` runs.
fn allocations(f: impl FnOnce()) -> u64 {
    let before = ALLOCATIONS.with(Cell::get);
    f();
    ALLOCATIONS.with(Cell::get) - before
}

#[derive(Codec)]
#[codec(name = "test.Event")]
struct Event {
    service: String,
    message: String,
    attempt: u32,
    payload: Vec<u8>,
}

#[derive(Codec)]
#[codec(name = "test.Event")]
struct EventRef<'a> {
    service: &'a str,
    message: &'a str,
    attempt: u32,
    payload: &'a [u8],
}

fn event(payload: usize) -> Event {
    Event {
        service: "api".into(),
        message: "request served".into(),
        attempt: 2,
        payload: vec![7; payload],
    }
}

/// Reads `key` in place and checks what it read.
fn read(cache: &Cache, key: &str, payload: usize) {
    let entry = cache.get_ref::<EventRef<'_>>(key).unwrap().unwrap();
    let value = entry.value().unwrap();
    assert_eq!((value.service, value.attempt), ("api", 2));
    assert_eq!(value.payload.len(), payload);
}

#[test]
fn a_warm_get_in_place_allocates_nothing() {
    let dir = tempfile::tempdir().unwrap();
    // Uses are recorded once a minute: none falls in the counted gets.
    let cache = Cache::open_with(dir.path(), CacheOptions::default()).unwrap();
    // In the index line (small, and large but kept there by its handler),
    // and in the shared data file.
    let inline = PutOptions::default().handler("inline");
    for (key, payload, options) in [
        ("small", 16, PutOptions::default()),
        ("inline", 8000, inline),
        ("large", 8000, PutOptions::default()),
    ] {
        cache.put_with(key, &event(payload), &options).unwrap();
        read(&cache, key, payload);
        let counted = allocations(|| {
            for _ in 0..100 {
                read(&cache, key, payload);
            }
        });
        assert_eq!(
            counted, 0,
            "{key}: 100 gets in place allocated {counted} times"
        );
        // `get` reads the payload where `get_ref` does: it allocates what
        // the value holds (two strings and the payload) and nothing else.
        let owned = allocations(|| drop(cache.get::<Event>(key).unwrap().unwrap()));
        assert_eq!(owned, 3, "{key}: a get allocated {owned} times");
        // The payload's bytes: one buffer, returned; read by a function, none.
        let bytes = allocations(|| drop(cache.get_bytes(key).unwrap().unwrap()));
        assert_eq!(bytes, 1, "{key}: get_bytes allocated {bytes} times");
        let read = allocations(|| {
            let len = cache.get_with_fn(key, |b| Ok::<_, String>(b.len()));
            assert!(len.unwrap().unwrap() > payload);
        });
        assert_eq!(read, 0, "{key}: get_with_fn allocated {read} times");
    }
}

#[test]
fn a_buffer_grown_past_64_kib_is_freed_not_kept() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    let inline = PutOptions::default().handler("inline");
    cache.put_with("small", &event(16), &inline).unwrap();
    cache.put_with("huge", &event(100_000), &inline).unwrap();
    read(&cache, "small", 16);
    // The handle's one buffer grows to hold the huge payload, then is freed.
    read(&cache, "huge", 100_000);
    let counted = allocations(|| read(&cache, "small", 16));
    assert_eq!(counted, 1, "a new buffer for the small payload");
    let counted = allocations(|| read(&cache, "small", 16));
    assert_eq!(counted, 0, "the small buffer is kept");
}

#[test]
fn sixteen_buffers_are_kept_for_guards_held_together() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    let keys: Vec<String> = (0..20).map(|i| format!("k{i}")).collect();
    for key in &keys {
        cache.put(key, &event(16)).unwrap();
    }
    let mut guards = Vec::with_capacity(keys.len());
    let mut hold_all = || {
        for key in &keys {
            guards.push(cache.get_ref::<EventRef<'_>>(key).unwrap().unwrap());
        }
        // 20 buffers given back: 16 kept, 4 freed.
        guards.clear();
    };
    hold_all();
    let counted = allocations(&mut hold_all);
    assert_eq!(counted, 4, "20 guards held together, 16 buffers kept");
}

#[test]
fn a_short_json_array_of_small_numbers_takes_one_allocation() {
    // JSON gives no length up front: the first element reserves room for
    // 8 `u32`s, as many as 4 `u64`s (32 bytes), so a short array does not
    // grow from 4 to 8 on its fifth element.
    let eight = "[3, 17, 42, 8, 5, 99, 1, 0]";
    let decode = |text: &str| allocations(|| drop(codec::from_json::<Vec<u32>>(text).unwrap()));
    decode(eight);
    assert_eq!(decode(eight), 1, "8 u32s");
    assert_eq!(decode("[]"), 0, "an empty array allocates nothing");
    assert_eq!(
        decode("[3, 17, 42, 8, 5, 99, 1, 0, 4]"),
        2,
        "9 u32s grow once"
    );
    // Through a borrowing type's field too.
    #[derive(Codec)]
    struct Tagged<'a> {
        name: &'a str,
        tags: Vec<u16>,
    }
    let text = r#"{"name": "a", "tags": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]}"#;
    let counted = allocations(|| drop(codec::from_json::<Tagged<'_>>(text).unwrap()));
    assert_eq!(counted, 1, "10 u16s in one allocation");
}
