//! When entries were last used, recorded cheaply.
//!
//! A hit writes nothing: the handle notes the key in memory, once per
//! interval ([`CacheOptions::use_interval`](crate::CacheOptions::use_interval)),
//! with the time of its first use in it. The keys noted are written as one
//! object of their own (`used/<writer>-<n>.jsonl`, one [`UseLine`] a key)
//! when a key is noted once the interval is over, every few thousand hits
//! of keys noted already once it is over, and when the handle is dropped
//! or maintained ([`Admin::reduce_size`](crate::Admin::reduce_size)). So a
//! key costs at most one record per handle and interval, and a hit a hash
//! of its key and an uncontended lock of one of several shards.
//!
//! An entry's *last use* is the latest of the time its line was written
//! and every use recorded for its key, by any handle of any process or
//! machine: known to within the interval of the handles that used it,
//! and only once they recorded it.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use parking_lot::Mutex;

use crate::backend::{Backend, Created};
use crate::cache::now_nanos;
use crate::error::StoreError;
pub(crate) use crate::index::records::UseLine;
use crate::layout;

/// How many shards the keys noted are spread over: threads getting
/// different keys rarely take the same lock.
const SHARDS: usize = 16;

/// Hits of keys noted already between two looks at the clock, per shard.
const HITS_PER_LOOK: u32 = 4096;

/// The most names found taken before a write of uses gives up (two
/// handles of one writer id drew the same bits).
const MAX_TAKEN: u32 = 1_000;

/// The keys a handle used since it last wrote them.
pub(crate) struct Uses {
    shards: [Mutex<Shard>; SHARDS],
    /// The interval, in nanoseconds.
    interval: u64,
    /// When the keys noted were last written.
    flushed_at: AtomicU64,
    /// The number of the next `used/` object of this handle.
    next: AtomicU64,
    /// Random bits of this handle's, in the names of its `used/` objects.
    session: u32,
}

#[derive(Default)]
struct Shard {
    /// Each key noted, and its first use since the last flush.
    keys: HashMap<Box<str>, u64, foldhash::fast::RandomState>,
    hits: u32,
}

impl Uses {
    pub(crate) fn new(interval: Duration) -> Uses {
        Uses {
            shards: std::array::from_fn(|_| Mutex::new(Shard::default())),
            interval: u64::try_from(interval.as_nanos()).unwrap_or(u64::MAX),
            flushed_at: AtomicU64::new(now_nanos()),
            next: AtomicU64::new(0),
            session: crate::__ids::random_bits(0x75736573),
        }
    }

    /// Notes a use of `key`; writes the keys noted if the interval is over.
    #[inline]
    pub(crate) fn note(&self, key: &str, backend: &dyn Backend, writer: &str) {
        // The shard by the key's last byte and length, not a hash: the map
        // hashes the key once, and keys that end in a hash (memo keys)
        // spread evenly.
        let last = key.as_bytes().last().copied().unwrap_or(0) as usize;
        let shard = &self.shards[(last ^ key.len().wrapping_mul(7)) % SHARDS];
        let mut shard = shard.lock();
        if shard.keys.contains_key(key) {
            shard.hits = shard.hits.wrapping_add(1);
            if !shard.hits.is_multiple_of(HITS_PER_LOOK) {
                return;
            }
        } else {
            shard.keys.insert(key.into(), now_nanos());
        }
        drop(shard);
        let flushed_at = self.flushed_at.load(Ordering::Relaxed);
        if now_nanos().saturating_sub(flushed_at) >= self.interval {
            // A failed write loses uses, never a get: what maintenance
            // does not see used, it takes as used when written.
            if let Err(e) = self.flush(backend, writer) {
                log::debug!(target: "codec::store", "recording uses: {e}");
            }
        }
    }

    /// Writes the keys noted as one `used/` object, and forgets them.
    pub(crate) fn flush(&self, backend: &dyn Backend, writer: &str) -> Result<(), StoreError> {
        self.flushed_at.store(now_nanos(), Ordering::Relaxed);
        let mut lines = Vec::new();
        for shard in &self.shards {
            let keys = std::mem::take(&mut shard.lock().keys);
            for (key, at) in keys {
                let line = UseLine {
                    key: key.into(),
                    at,
                };
                lines.extend_from_slice(&codec_runtime::to_json_vec(&line)?);
                lines.push(b'\n');
            }
        }
        self.write(backend, writer, &lines)
    }

    /// Writes `lines` of [`UseLine`]s as this handle's next `used/` object.
    pub(crate) fn write(
        &self,
        backend: &dyn Backend,
        writer: &str,
        lines: &[u8],
    ) -> Result<(), StoreError> {
        if lines.is_empty() {
            return Ok(());
        }
        // Names of this handle's own: a handle that took up the writer id
        // of one gone never overwrites nor loses that one's records.
        for _ in 0..MAX_TAKEN {
            let n = self.next.fetch_add(1, Ordering::Relaxed);
            let name = layout::used_object(writer, self.session, n);
            if backend.create(&name, lines, false)? == Created::Yes {
                return Ok(());
            }
        }
        Err(StoreError::io(
            backend.address(layout::USED),
            std::io::ErrorKind::AlreadyExists.into(),
        ))
    }
}

/// The latest use recorded of each key, by every handle; and the
/// `used/` objects read.
pub(crate) fn recorded_uses(
    backend: &dyn Backend,
) -> Result<(HashMap<String, u64>, Vec<String>), StoreError> {
    let mut uses: HashMap<String, u64> = HashMap::new();
    let mut names = Vec::new();
    for listed in backend.list(&format!("{}/", layout::USED))? {
        let Some(bytes) = backend.read(&listed.name)? else {
            continue; // merged and deleted meanwhile
        };
        // Lines that do not read (a foreign file) are skipped: uses are a
        // hint for maintenance, never what a get returns.
        for line in bytes.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
            if let Ok(line) = codec_runtime::from_json_slice::<UseLine>(line) {
                let at = uses.entry(line.key).or_default();
                *at = (*at).max(line.at);
            }
        }
        names.push(listed.name);
    }
    Ok((uses, names))
}
