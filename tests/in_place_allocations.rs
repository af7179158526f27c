//! A get in place (`Cache::get_ref`) from a warm handle allocates nothing:
//! not for a payload kept in its index line (decoded into a buffer the
//! handle lends), not for one in a data file (viewed in its memory map).
//! The allocations of this thread are counted by the global allocator.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use codec::{Cache, CacheOptions, Codec};

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

#[test]
fn a_warm_get_in_place_allocates_nothing() {
    let dir = tempfile::tempdir().unwrap();
    // Uses are recorded once a minute: none falls in the counted gets.
    let cache = Cache::open_with(dir.path(), CacheOptions::default()).unwrap();
    let event = |payload: usize| Event {
        service: "api".into(),
        message: "request served".into(),
        attempt: 2,
        payload: vec![7; payload],
    };
    // In the index line, and in the shared data file.
    for (key, payload) in [("small", 16), ("large", 8000)] {
        cache.put(key, &event(payload)).unwrap();
        let read = |cache: &Cache| {
            let entry = cache.get_ref::<EventRef<'_>>(key).unwrap().unwrap();
            let value = entry.value().unwrap();
            assert_eq!((value.service, value.attempt), ("api", 2));
            assert_eq!(value.payload.len(), payload);
        };
        read(&cache);
        let counted = allocations(|| {
            for _ in 0..100 {
                read(&cache);
            }
        });
        assert_eq!(
            counted, 0,
            "{key}: 100 gets in place allocated {counted} times"
        );
        // The count sees what `get` allocates: the strings, the buffer, the payload.
        let owned = allocations(|| drop(cache.get::<Event>(key).unwrap().unwrap()));
        assert!(owned >= 3, "{key}: a get allocated {owned} times");
    }
}
