//! Leases: the lock per key of
//! [`CacheOptions::memo_lock`](crate::CacheOptions::memo_lock) where the
//! backend has no locks that go with their holder (object storage,
//! memory), built on the backend's conditional writes alone.
//!
//! A lease is an object (`locks/<hash>.lock`, the name of a key's lock
//! file in a folder) that holds its holder and when it expires
//! ([`LeaseRecord`]).
//! - Taking it: a create-if-absent write. Where one is there, a waiter
//!   takes it over once it expired, by a compare-and-swap replace from
//!   the version it read: of several waiters, exactly one wins.
//! - Holding it: a thread renews it every third of its duration, by
//!   compare-and-swap too, while the [`Lease`] lives. A holder that finds
//!   it taken over (it stalled past the expiry) stops renewing and warns:
//!   the key may then be computed twice, never read wrong.
//! - Releasing it: deleting it if it is still the holder's. Backends
//!   delete unconditionally, so this is a check then a delete: between
//!   them, a waiter could take the lease over only if it expired
//!   meanwhile (the holder stalled for a whole duration there), and that
//!   waiter's lease would be deleted, letting a third one compute too.
//! - Expiry: a waiter takes a lease over once the expiry written in it is
//!   past by its own clock, or once it saw the lease unchanged for a whole
//!   duration by its own timer ([`Watch`]), so a waiter whose clock lags
//!   waits one duration at most; the skew tolerated the other way is in
//!   [`CacheOptions::memo_lease`](crate::CacheOptions::memo_lease).

// std's locks rather than parking_lot's: a renewer waits for the whole
// holding, and a thread parked on one of parking_lot's stays in its
// process-wide table, which a forked child inherits and its own threads
// then corrupt (`cache/threads.rs`).
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::sync::{Condvar, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::backend::{Backend, Created, Replaced, Version};
use crate::cache::now_nanos;
use crate::error::StoreError;
use crate::index::records::LeaseRecord;

/// The shortest lease [`CacheOptions::memo_lease`](crate::CacheOptions::memo_lease)
/// takes: shorter ones would expire between the requests that renew them.
pub(crate) const MIN_LEASE: Duration = Duration::from_secs(1);

/// The leases of one backend, each lasting `duration` unless renewed.
pub(crate) struct Leases {
    backend: Arc<dyn Backend>,
    duration: Duration,
}

/// What a waiter saw of a lease another holds: its version, and since
/// when by this waiter's timer, to tell a lease no longer renewed
/// whatever the clocks say.
#[derive(Default)]
pub(crate) struct Watch {
    seen: Option<(Version, Instant)>,
}

impl Watch {
    /// Whether the lease at `version`, holding `bytes`, expired.
    fn expired(&mut self, bytes: &[u8], version: &Version, duration: Duration) -> bool {
        let now = Instant::now();
        let since = match &self.seen {
            Some((seen, since)) if seen == version => *since,
            _ => {
                self.seen = Some((version.clone(), now));
                now
            }
        };
        if now.duration_since(since) >= duration {
            return true;
        }
        // A lease that does not read (damaged, or of another format)
        // expires by the timer only.
        match codec_runtime::from_json_slice::<LeaseRecord>(bytes) {
            Ok(record) => record.expires <= now_nanos(),
            Err(_) => false,
        }
    }
}

/// A new holder's name: the handle's writer id and a number of its own.
pub(crate) fn holder(writer_id: &str) -> String {
    static CLAIMS: AtomicU64 = AtomicU64::new(0);
    format!("{writer_id}/{}", CLAIMS.fetch_add(1, Ordering::Relaxed))
}

impl Leases {
    /// The leases of `backend`, lasting `duration` unless renewed.
    pub(crate) fn new(backend: Arc<dyn Backend>, duration: Duration) -> Leases {
        Leases { backend, duration }
    }

    /// Takes lease `name` for `holder` if it is free or expired; `None`
    /// while another holds it. `watch` is what this caller saw of it on
    /// its tries before.
    pub(crate) fn try_take(
        &self,
        name: &str,
        holder: &str,
        watch: &mut Watch,
    ) -> Result<Option<Lease>, StoreError> {
        let record = self.record(holder)?;
        // First a create, which takes a free lease in one request; once a
        // lease was seen held, a read, which costs as much and tells more.
        let created = || -> Result<bool, StoreError> {
            Ok(self.backend.create(name, &record, false)? == Created::Yes)
        };
        if watch.seen.is_none() && created()? {
            return Ok(Some(self.hold(name, holder)));
        }
        let Some((bytes, version)) = self.backend.read_versioned(name)? else {
            // Released meanwhile: free to create again.
            return Ok(created()?.then(|| self.hold(name, holder)));
        };
        if !watch.expired(&bytes, &version, self.duration) {
            return Ok(None);
        }
        match self.backend.replace(name, &record, &version)? {
            Replaced::Yes(_) => Ok(Some(self.hold(name, holder))),
            // Another waiter took it over, or it was renewed or released.
            Replaced::Changed => Ok(None),
        }
    }

    /// The bytes of a lease of `holder` that expires a duration from now.
    fn record(&self, holder: &str) -> Result<Vec<u8>, StoreError> {
        record(holder, self.duration)
    }

    /// Lease `name`, just taken by `holder`, renewed from now on.
    fn hold(&self, name: &str, holder: &str) -> Lease {
        let held = Arc::new(Held {
            backend: self.backend.clone(),
            name: name.to_owned(),
            holder: holder.to_owned(),
            duration: self.duration,
            released: Mutex::new(false),
            wake: Condvar::new(),
        });
        let renewing = held.clone();
        let renewer = std::thread::Builder::new()
            .name("codec-memo-lease".into())
            .spawn(move || renewing.renew_until_released());
        let renewer = match renewer {
            Ok(thread) => Some(thread),
            Err(e) => {
                log::warn!(
                    target: "codec::store",
                    "the lease {} is not renewed (no thread to renew it: {e}): \
                     a computation longer than {:?} may be made twice",
                    held.address(),
                    held.duration,
                );
                None
            }
        };
        Lease { held, renewer }
    }
}

/// The bytes of a lease of `holder` expiring `duration` from now.
fn record(holder: &str, duration: Duration) -> Result<Vec<u8>, StoreError> {
    let duration = u64::try_from(duration.as_nanos()).unwrap_or(u64::MAX);
    let record = LeaseRecord {
        holder: holder.to_owned(),
        expires: now_nanos().saturating_add(duration),
    };
    Ok(codec_runtime::to_json_vec(&record)?)
}

/// A lease held: renewed until dropped, then released.
pub(crate) struct Lease {
    held: Arc<Held>,
    renewer: Option<JoinHandle<()>>,
}

/// What the holder of a lease and its renewing thread share.
struct Held {
    backend: Arc<dyn Backend>,
    name: String,
    holder: String,
    duration: Duration,
    /// Set when the lease is dropped: the renewing thread ends.
    released: Mutex<bool>,
    wake: Condvar,
}

/// Whether a lease is still its holder's.
#[derive(Debug, PartialEq)]
enum Still {
    Ours,
    Lost,
}

impl Held {
    fn address(&self) -> String {
        self.backend.address(&self.name)
    }

    /// Renews the lease every third of its duration until it is released
    /// or lost.
    fn renew_until_released(&self) {
        let every = self.duration / 3;
        loop {
            let due = Instant::now() + every;
            let mut released = self.released.lock().unwrap_or_else(PoisonError::into_inner);
            while !*released {
                let Some(left) = due.checked_duration_since(Instant::now()) else {
                    break;
                };
                released = (self.wake.wait_timeout(released, left))
                    .unwrap_or_else(PoisonError::into_inner)
                    .0;
            }
            if *released {
                return;
            }
            drop(released);
            match self.renew() {
                Ok(Still::Ours) => {}
                Ok(Still::Lost) => {
                    log::warn!(
                        target: "codec::store",
                        "the lease {} was taken over: its holder did not renew it for {:?} \
                         (a stalled process or machine), so its key may be computed twice; \
                         a longer CacheOptions::memo_lease avoids it",
                        self.address(),
                        self.duration,
                    );
                    return;
                }
                // The next renewal may get through before the lease expires.
                Err(e) => log::warn!(target: "codec::store", "renewing a lease failed: {e}"),
            }
        }
    }

    /// Moves the lease's expiry a duration from now, if it is still ours.
    fn renew(&self) -> Result<Still, StoreError> {
        let Some(version) = self.ours()? else {
            return Ok(Still::Lost);
        };
        let record = record(&self.holder, self.duration)?;
        match self.backend.replace(&self.name, &record, &version)? {
            Replaced::Yes(_) => Ok(Still::Ours),
            Replaced::Changed => Ok(Still::Lost),
        }
    }

    /// The lease's version if it is still ours.
    fn ours(&self) -> Result<Option<Version>, StoreError> {
        let Some((bytes, version)) = self.backend.read_versioned(&self.name)? else {
            return Ok(None);
        };
        let record = codec_runtime::from_json_slice::<LeaseRecord>(&bytes).ok();
        Ok(record.filter(|r| r.holder == self.holder).map(|_| version))
    }

    /// Deletes the lease if it is still ours (see the module's notes on
    /// the race).
    fn release(&self) -> Result<(), StoreError> {
        if self.ours()?.is_some() {
            self.backend.delete(&self.name)?;
        }
        Ok(())
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        *(self.held.released.lock()).unwrap_or_else(PoisonError::into_inner) = true;
        self.held.wake.notify_all();
        if let Some(renewer) = self.renewer.take() {
            let _ = renewer.join();
        }
        // Not released, it expires after its duration.
        if let Err(e) = self.held.release() {
            log::warn!(
                target: "codec::store",
                "releasing the lease {} failed, so it holds its key up until it expires \
                 (in {:?} at most): {e}",
                self.held.address(),
                self.held.duration,
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::memory::Memory;

    const NAME: &str = "locks/k.lock";

    fn leases(backend: &Memory, duration: Duration) -> Leases {
        Leases::new(Arc::new(backend.clone()), duration)
    }

    fn lease_of(backend: &Memory, holder: &str, expires: u64) {
        let record = LeaseRecord {
            holder: holder.into(),
            expires,
        };
        let bytes = codec_runtime::to_json_vec(&record).unwrap();
        backend.write(NAME, &bytes, false).unwrap();
    }

    fn holder_of(backend: &Memory) -> Option<String> {
        let bytes = backend.read(NAME).unwrap()?;
        Some(
            codec_runtime::from_json_slice::<LeaseRecord>(&bytes)
                .unwrap()
                .holder,
        )
    }

    #[test]
    fn a_free_lease_is_taken_and_a_held_one_is_not() {
        let backend = Memory::new();
        let leases = leases(&backend, Duration::from_secs(60));
        let a = leases.try_take(NAME, "a", &mut Watch::default()).unwrap();
        assert!(a.is_some());
        assert_eq!(holder_of(&backend).as_deref(), Some("a"));
        let mut watch = Watch::default();
        assert!(leases.try_take(NAME, "b", &mut watch).unwrap().is_none());
        assert!(leases.try_take(NAME, "b", &mut watch).unwrap().is_none());
        drop(a);
        assert_eq!(holder_of(&backend), None);
        assert!(leases.try_take(NAME, "b", &mut watch).unwrap().is_some());
    }

    #[test]
    fn of_two_racers_for_an_expired_lease_exactly_one_takes_it_over() {
        let backend = Memory::new();
        let leases = leases(&backend, Duration::from_secs(60));
        for round in 0..200 {
            lease_of(&backend, "gone", now_nanos() - 1);
            let start = std::sync::Barrier::new(2);
            let taken: Vec<Option<Lease>> = std::thread::scope(|s| {
                let racers: Vec<_> = ["a", "b"]
                    .into_iter()
                    .map(|holder| {
                        let (leases, start) = (&leases, &start);
                        s.spawn(move || {
                            start.wait();
                            leases
                                .try_take(NAME, holder, &mut Watch::default())
                                .unwrap()
                        })
                    })
                    .collect();
                racers.into_iter().map(|r| r.join().unwrap()).collect()
            });
            let winners: Vec<&str> = taken
                .iter()
                .zip(["a", "b"])
                .filter(|(lease, _)| lease.is_some())
                .map(|(_, holder)| holder)
                .collect();
            assert_eq!(winners.len(), 1, "round {round}: {winners:?} took it over");
            assert_eq!(holder_of(&backend).as_deref(), Some(winners[0]));
            drop(taken);
            assert_eq!(holder_of(&backend), None, "round {round}: not released");
        }
    }

    #[test]
    fn a_lease_is_renewed_while_held_past_its_duration() {
        let backend = Memory::new();
        let short = Duration::from_millis(300);
        let leases = leases(&backend, short);
        let held = leases.try_take(NAME, "a", &mut Watch::default()).unwrap();
        assert!(held.is_some());
        let mut watch = Watch::default();
        let until = Instant::now() + short * 4;
        while Instant::now() < until {
            let other = leases.try_take(NAME, "b", &mut watch).unwrap();
            assert!(other.is_none(), "taken over while its holder renews it");
            std::thread::sleep(Duration::from_millis(20));
        }
        drop(held);
        assert!(leases.try_take(NAME, "b", &mut watch).unwrap().is_some());
    }

    #[test]
    fn a_lease_unchanged_for_its_duration_is_taken_over_whatever_its_expiry_says() {
        // Written by a holder whose clock runs an hour ahead, then gone.
        let backend = Memory::new();
        lease_of(&backend, "gone", now_nanos() + 3_600_000_000_000);
        let short = Duration::from_millis(200);
        let leases = leases(&backend, short);
        let mut watch = Watch::default();
        let start = Instant::now();
        let taken = loop {
            if let Some(lease) = leases.try_take(NAME, "b", &mut watch).unwrap() {
                break lease;
            }
            assert!(start.elapsed() < short * 3, "never taken over");
            std::thread::sleep(Duration::from_millis(10));
        };
        assert!(start.elapsed() >= short);
        assert_eq!(holder_of(&backend).as_deref(), Some("b"));
        drop(taken);
    }

    #[test]
    fn a_lease_taken_over_is_not_released_by_its_former_holder() {
        let backend = Memory::new();
        let leases = leases(&backend, Duration::from_secs(60));
        let a = leases.try_take(NAME, "a", &mut Watch::default()).unwrap();
        // Taken over behind a's back (a stalled past its expiry).
        lease_of(&backend, "b", now_nanos() + 60_000_000_000);
        drop(a);
        assert_eq!(holder_of(&backend).as_deref(), Some("b"));
    }
}
