//! Expiry: an entry put with a time to live is absent once it is over,
//! for every read and on every backend, a miss for memos, and reclaimed
//! by compaction.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use codec::store::Admin;
use codec::{Cache, PutOptions, StoreError};

use crate::fixtures::backends::each_backend;

const TTL: Duration = Duration::from_millis(300);

fn past_ttl() {
    std::thread::sleep(TTL + Duration::from_millis(100));
}

#[test]
fn an_expired_entry_is_absent_for_every_read() {
    each_backend(|store| {
        let cache = store.open();
        let brief = PutOptions::default().ttl(TTL);
        cache.put_with("brief", &1u32, &brief).unwrap();
        cache.put("kept", &2u32).unwrap();
        cache.put_bytes("raw", b"x").unwrap();
        assert_eq!(
            cache.get::<u32>("brief").unwrap(),
            Some(1),
            "{}",
            store.name
        );
        past_ttl();
        assert_eq!(cache.get::<u32>("brief").unwrap(), None, "{}", store.name);
        assert_eq!(cache.get_bytes("brief").unwrap(), None);
        assert!(!cache.contains("brief").unwrap());
        assert_eq!(cache.keys().unwrap(), ["kept", "raw"], "{}", store.name);
        assert_eq!(cache.len().unwrap(), 2);
        // Another handle, reading the lines from the store, agrees.
        let other = store.open();
        assert_eq!(other.get::<u32>("brief").unwrap(), None, "{}", store.name);
        assert_eq!(other.keys().unwrap(), ["kept", "raw"]);
        // A put without a time to live makes it live again, for good.
        cache.put("brief", &3u32).unwrap();
        assert_eq!(other.get::<u32>("brief").unwrap(), Some(3));
    });
}

/// An expired entry that a checkpoint covers is not live either: the
/// listing reads the checkpoint's lines, whose time to live it knows
/// from their parse.
#[test]
fn an_expired_entry_of_the_checkpoint_is_not_listed() {
    each_backend(|store| {
        let cache = store.open();
        let brief = PutOptions::default().ttl(TTL);
        cache.put_with("brief", &1u32, &brief).unwrap();
        cache.put("kept", &2u32).unwrap();
        cache.admin().checkpoint().unwrap();
        past_ttl();
        let fresh = store.open();
        assert_eq!(fresh.keys().unwrap(), ["kept"], "{}", store.name);
        assert_eq!(fresh.len().unwrap(), 1, "{}", store.name);
        assert_eq!(fresh.entries().unwrap().len(), 1, "{}", store.name);
    });
}

#[test]
fn an_expired_entry_is_a_memo_miss() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    let calls = AtomicUsize::new(0);
    let hourly = PutOptions::default().ttl(TTL);
    let fetch = || {
        cache.get_or_try_insert_with_options("rate", &hourly, || {
            Ok::<_, StoreError>(calls.fetch_add(1, Ordering::SeqCst) as u32)
        })
    };
    assert_eq!(fetch().unwrap(), 0);
    assert_eq!(fetch().unwrap(), 0, "a hit before it expires");
    past_ttl();
    assert_eq!(fetch().unwrap(), 1, "computed again once expired");
    assert_eq!(calls.load(Ordering::SeqCst), 2);
}

#[test]
fn compaction_reclaims_expired_entries() {
    let dir = tempfile::tempdir().unwrap();
    {
        let cache = Cache::open(dir.path()).unwrap();
        let brief = PutOptions::default().ttl(TTL);
        for i in 0..20 {
            cache
                .put_with(&format!("brief/{i}"), &"x".repeat(5000), &brief)
                .unwrap();
        }
        cache.put("kept", &"y".repeat(5000)).unwrap();
    }
    past_ttl();
    let done = Admin::compact(dir.path(), &[], |_, _| {}).unwrap();
    assert_eq!(done.kept, 1);
    assert!(done.size_after < 20_000, "{done:?}");
    let cache = Cache::open(dir.path()).unwrap();
    assert_eq!(cache.keys().unwrap(), ["kept"]);
}

#[test]
fn online_compaction_reclaims_expired_entries() {
    each_backend(|store| {
        let cache = store.open();
        if cache.dir().is_some() {
            return; // a folder is compacted alone: above
        }
        let brief = PutOptions::default().ttl(TTL);
        for i in 0..5 {
            cache.put_with(&format!("brief/{i}"), &i, &brief).unwrap();
        }
        cache.put("kept", &1u32).unwrap();
        past_ttl();
        let done = cache
            .admin()
            .compact_online(Duration::ZERO, |_, _| {})
            .unwrap();
        assert_eq!(done.kept, 1, "{}", store.name);
        assert_eq!(store.open().entries().unwrap().len(), 1);
    });
}

#[test]
fn a_handle_s_time_to_live_is_that_of_every_entry_put_without_one() {
    each_backend(|store| {
        // A time to live over as soon as it starts: no wait, on a busy
        // machine or not.
        let brief = store.open_with(codec::CacheOptions::default().ttl(Duration::from_nanos(1)));
        brief.put("put", &1u32).unwrap();
        brief.put_bytes("bytes", b"x").unwrap();
        brief.put_many([("many", &2u32)]).unwrap();
        let computed = brief.get_or_insert_with("memo", || 3u32).unwrap();
        assert_eq!(computed, 3);
        // One of its own wins.
        let hour = PutOptions::default().ttl(Duration::from_secs(3600));
        brief.put_with("own", &4u32, &hour).unwrap();
        // A handle without one puts entries that stay.
        let other = store.open();
        other.put("other", &5u32).unwrap();
        for reader in [&brief, &other] {
            assert_eq!(reader.keys().unwrap(), ["other", "own"], "{}", store.name);
        }
        assert_eq!(brief.get_or_insert_with("memo", || 6u32).unwrap(), 6);
    });
}
