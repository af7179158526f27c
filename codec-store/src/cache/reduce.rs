//! Keeping a store within bounds: at most so many bytes and entries, none
//! unused for longer than an age, the least recently used removed first.
//!
//! An entry's last use is the latest of its line's time and the uses
//! handles recorded ([`uses`](crate::cache::uses)). Removing is writing
//! removal lines, as [`Cache::remove`] does, so it runs online on every
//! backend: other handles go on reading and writing, and a key written
//! again after the reduction started is kept. The space comes back as
//! compaction gives it back: at once for entries in files of their own,
//! and by the online compaction that follows, on every backend (and, with
//! `CacheOptions::bounds` in a folder, the store's own).

use std::collections::HashMap;
use std::time::Duration;

use foldhash::fast::RandomState;
use parking_lot::RwLock;

use crate::cache::now_nanos;
use crate::cache::uses::{recorded_uses, UseLine};
use crate::cache::{Cache, Removed};
use crate::compaction::Compacted;
use crate::error::StoreError;
use crate::index::line::LineView;
use crate::index::{corrupt_line, EntryInfo, Index};
use crate::options::Bounds;

/// The removals of a reduction written at once: the handle's writes wait
/// while a write's lines are encoded, appended and applied to the index
/// (under the writer's lock and the index's), so a few at a time. A
/// write of 256 held them a few hundred µs: at 15,000 puts a second,
/// 1,250-1,490 puts in 300,000 took over 100 µs, 930-1,040 with 32.
const REMOVALS_PER_WRITE: usize = 32;

/// How many keys a pass reads under one taking of the index's lock.
const KEYS_PER_LOCK: usize = 16;

/// What [`Admin::reduce_size`](crate::Admin::reduce_size) did.
#[derive(Debug)]
#[non_exhaustive]
pub struct Reduced {
    /// The keys removed, least recently used first.
    pub removed: Vec<String>,
    /// Live entries kept.
    pub kept: usize,
    /// Bytes of payload the entries kept hold.
    pub kept_bytes: u64,
    /// Bytes of payload of the entries removed.
    pub removed_bytes: u64,
    /// The online compaction that followed ([`Admin::compact_online`](crate::Admin::compact_online)),
    /// if entries were removed.
    pub compacted: Option<Compacted>,
}

/// The size and times of each live entry, as the passes of the bounds
/// last read them: kept up to date from the keys whose line changed since
/// ([`Index::take_changes`]), so that a pass reads what changed, not the
/// whole store, and costs as little as the writes it follows.
#[derive(Default, Debug, PartialEq)]
pub(crate) struct LiveSizes {
    entries: HashMap<Box<str>, Sizes, RandomState>,
}

#[derive(Debug, PartialEq)]
struct Sizes {
    size: u64,
    written: u64,
    expires: Option<u64>,
}

impl LiveSizes {
    /// Reads every live line of the store `cache` holds.
    fn read(cache: &Cache) -> Result<LiveSizes, StoreError> {
        let mut live = LiveSizes::default();
        for (key, text) in cache.live_lines()? {
            let line = LineView::parse(&text).map_err(|e| corrupt_line(&key, e))?;
            live.set(key, &line);
        }
        Ok(live)
    }

    /// Reads the live line of each key in `changed` from `index`; `false`
    /// if the index cannot tell (its checkpoint is damaged): the whole
    /// store must be read. The index's lock is taken for
    /// [`KEYS_PER_LOCK`] keys at a time, and the checkpoint read and their
    /// lines parsed without it ([`Index::aside`]): each write takes it. A key written again meanwhile is read as
    /// it is then, and recorded as changed for the next update.
    fn update(
        &mut self,
        index: &RwLock<Index>,
        changed: Vec<Box<str>>,
    ) -> Result<bool, StoreError> {
        for keys in changed.chunks(KEYS_PER_LOCK) {
            let names: Vec<&str> = keys.iter().map(|key| &**key).collect();
            let aside = index.read().aside(&names);
            for (key, found) in keys.iter().zip(aside.found(&names)) {
                match found {
                    Ok(Some(Some(found))) => {
                        let line = found.view(key).map_err(|e| corrupt_line(key, e))?;
                        self.set(key.clone(), &line);
                    }
                    Ok(_) => {
                        self.entries.remove(key);
                    }
                    Err(_) => return Ok(false),
                }
            }
        }
        Ok(true)
    }

    fn set(&mut self, key: Box<str>, line: &LineView<'_>) {
        if line.handler.is_none() {
            self.entries.remove(&key);
            return;
        }
        let sizes = Sizes {
            size: line.size,
            written: line.time,
            expires: line.expires,
        };
        self.entries.insert(key, sizes);
    }
}

/// A live entry and when it was last used.
#[derive(Debug, Clone)]
pub struct Used {
    /// The entry.
    pub entry: EntryInfo,
    /// When its line was written, in nanoseconds since the Unix epoch.
    pub written: u64,
    /// When it was last used (written, or read by any handle that
    /// recorded it), in nanoseconds since the Unix epoch.
    pub last_used: u64,
}

/// What a reduction knows of a live entry: its key, size, line's time and
/// last use (of [`Used`], without the entry's info, which it does not
/// read).
struct InUse {
    key: Box<str>,
    size: u64,
    written: u64,
    last_used: u64,
}

impl Cache {
    /// Every live entry with its last use, most recently used first (then
    /// by key); and the `used/` objects read.
    pub(crate) fn entries_by_use(&self) -> Result<(Vec<Used>, Vec<String>), StoreError> {
        let mut out = Vec::new();
        let (names, uses) = self.by_use(|line| {
            if let Some(entry) = EntryInfo::of_line(line)? {
                out.push(Used {
                    entry,
                    written: line.time,
                    last_used: line.time,
                });
            }
            Ok(())
        })?;
        for used in &mut out {
            let recorded = uses.get(&used.entry.key).copied().unwrap_or(0);
            used.last_used = used.last_used.max(recorded);
        }
        out.sort_by(|a, b| {
            (b.last_used.cmp(&a.last_used)).then_with(|| a.entry.key.cmp(&b.entry.key))
        });
        Ok((out, names))
    }

    /// [`entries_by_use`](Self::entries_by_use) as a reduction needs it:
    /// the lines' fields only, read from the handle's [`LiveSizes`] (the
    /// lines changed since the last pass, not the whole store).
    fn in_use_order(&self) -> Result<(Vec<InUse>, Vec<String>), StoreError> {
        self.uses.flush(&*self.backend, &self.writer_id)?;
        let (uses, names) = recorded_uses(&*self.backend)?;
        let now = now_nanos();
        let mut live = self.upkeep.live.lock();
        self.refresh()?;
        // Taken before the store is read: what changes during the reading
        // is read again by the next pass (recorded where passes come
        // regularly).
        let changes = self.index_write().take_changes(self.bounded());
        // Put aside while it is brought up to date: a reading that fails
        // leaves none, and the next pass reads the store whole.
        let mut kept = live.take();
        let updated = match (kept.as_mut(), changes) {
            (Some(kept), Some(changes)) if !changes.whole => {
                kept.update(&self.index, changes.keys())?
            }
            _ => false,
        };
        *live = match updated {
            true => kept,
            false => Some(LiveSizes::read(self)?),
        };
        let mut out: Vec<InUse> = (live.iter().flat_map(|l| l.entries.iter()))
            .filter(|(_, e)| e.expires.is_none_or(|at| at > now))
            .map(|(key, e)| InUse {
                key: key.clone(),
                size: e.size,
                written: e.written,
                last_used: e.written.max(uses.get(&**key).copied().unwrap_or(0)),
            })
            .collect();
        drop(live);
        out.sort_by(|a, b| (b.last_used.cmp(&a.last_used)).then_with(|| a.key.cmp(&b.key)));
        Ok((out, names))
    }

    /// Calls `each` with every live line, after flushing this handle's
    /// uses; returns the `used/` objects read and the last use they
    /// record of each key.
    fn by_use(
        &self,
        mut each: impl FnMut(&LineView<'_>) -> Result<(), StoreError>,
    ) -> Result<(Vec<String>, std::collections::HashMap<String, u64>), StoreError> {
        self.uses.flush(&*self.backend, &self.writer_id)?;
        let (uses, names) = recorded_uses(&*self.backend)?;
        for (key, text) in self.live_lines()? {
            let line = LineView::parse(&text).map_err(|e| corrupt_line(&key, e))?;
            each(&line)?;
        }
        Ok((names, uses))
    }

    /// [`Admin::reduce_size`](crate::Admin::reduce_size).
    pub(crate) fn reduce_size(
        &self,
        bounds: &Bounds,
        grace: Option<Duration>,
    ) -> Result<Reduced, StoreError> {
        // Ages count from the call, not from the end of the reading.
        let now = now_nanos();
        let (entries, used_objects) = self.in_use_order()?;
        let oldest = bounds
            .max_age
            .map(|age| now.saturating_sub(u64::try_from(age.as_nanos()).unwrap_or(u64::MAX)));
        let (mut kept, mut kept_bytes) = (0usize, 0u64);
        let mut keep = entries.len();
        for (i, used) in entries.iter().enumerate() {
            let fits = bounds.max_entries.is_none_or(|max| kept < max)
                && bounds
                    .max_bytes
                    .is_none_or(|max| kept_bytes.saturating_add(used.size) <= max)
                && oldest.is_none_or(|oldest| used.last_used >= oldest);
            if !fits {
                keep = i;
                break;
            }
            kept += 1;
            kept_bytes += used.size;
        }
        let mut removed = Vec::new();
        let mut removed_bytes = 0;
        // Least recently used first, their lines a few to a write
        // ([`REMOVALS_PER_WRITE`]); then their files, which no live line
        // names any more.
        let mut files = Vec::new();
        let past: Vec<&InUse> = entries[keep..].iter().rev().collect();
        for some in past.chunks(REMOVALS_PER_WRITE) {
            self.in_one_append(|| {
                for some in some.chunks(KEYS_PER_LOCK) {
                    for (used, gone) in some.iter().zip(self.remove_if_written_at(some)?) {
                        if let Some(gone) = gone {
                            files.push(gone);
                            removed_bytes += used.size;
                            removed.push(used.key.clone().into());
                        }
                    }
                }
                Ok(())
            })?;
        }
        for gone in files {
            self.delete_removed(gone)?;
        }
        self.merge_uses(&entries[..keep], used_objects)?;
        let compacted =
            match grace {
                Some(grace) if !removed.is_empty() => Some(
                    crate::compaction::compact_handle_online(self, grace, &mut |_, _| {})?,
                ),
                _ => None,
            };
        Ok(Reduced {
            removed,
            kept,
            kept_bytes,
            removed_bytes,
            compacted,
        })
    }

    /// Removes each entry of `used` whose live line is still the one
    /// written at its time: a put made since by another handle stays.
    /// Their lines are read under one taking of the index's lock.
    fn remove_if_written_at(&self, used: &[&InUse]) -> Result<Vec<Option<Removed>>, StoreError> {
        let keys: Vec<&str> = used.iter().map(|used| &*used.key).collect();
        let found = self.lookup_many_unnoted(&keys)?;
        (used.iter().zip(found))
            .map(|(used, found)| match found {
                // Timed as it is decided, not when the batch of removals
                // is written: a put made after this by another handle wins.
                Some(found) if found.time == used.written => {
                    self.write_removal(&used.key, &found, now_nanos()).map(Some)
                }
                _ => Ok(None),
            })
            .collect()
    }

    /// Replaces the `used/` objects read by one holding the last use of
    /// each entry kept, so that they do not pile up.
    fn merge_uses(&self, kept: &[InUse], read: Vec<String>) -> Result<(), StoreError> {
        let uses = kept.iter().filter(|u| u.last_used > u.written);
        let uses = uses.map(|u| (u.key.to_string(), u.last_used));
        self.replace_uses(uses, read)
    }

    /// Replaces the `used/` objects by one holding the last use of each
    /// entry this handle holds: what a compaction's new handle calls, so
    /// the records of keys removed go with the entries. Records other
    /// handles write meanwhile are not touched.
    pub(crate) fn keep_uses_of_own_entries(&self) -> Result<(), StoreError> {
        let (uses, read) = recorded_uses(&*self.backend)?;
        let keys = if read.is_empty() {
            Vec::new()
        } else {
            self.keys()?
        };
        let kept = keys.into_iter().filter_map(|key| {
            let at = *uses.get(&key)?;
            Some((key, at))
        });
        self.replace_uses(kept, read)
    }

    /// Writes `uses` (key, last use) as one `used/` object of this handle,
    /// then deletes the objects `read`; nothing if none was read.
    fn replace_uses(
        &self,
        uses: impl Iterator<Item = (String, u64)>,
        read: Vec<String>,
    ) -> Result<(), StoreError> {
        if read.is_empty() {
            return Ok(());
        }
        let mut lines = Vec::new();
        for (key, at) in uses {
            lines.extend_from_slice(&codec_runtime::to_json_vec(&UseLine { key, at })?);
            lines.push(b'\n');
        }
        self.uses.write(&*self.backend, &self.writer_id, &lines)?;
        for name in read {
            self.backend.delete(&name)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {

    use super::InUse;
    use crate::cache::Removed;
    use crate::error::StoreError;
    use crate::Cache;

    /// Removes `key` if its live line is the one written at `written`.
    fn remove_if_written_at(
        cache: &Cache,
        key: &str,
        written: u64,
    ) -> Result<Option<Removed>, StoreError> {
        let used = InUse {
            key: key.into(),
            size: 0,
            written,
            last_used: written,
        };
        Ok(cache.remove_if_written_at(&[&used])?.pop().flatten())
    }

    /// Of keys looked up together, under one taking of the index's lock,
    /// each is removed or kept by its own line.
    #[test]
    fn keys_looked_up_together_are_each_removed_by_their_own_line() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::open(dir.path()).unwrap();
        let keys: Vec<String> = (0..super::KEYS_PER_LOCK).map(|i| format!("k{i}")).collect();
        for key in &keys {
            cache.put(key, &1u32).unwrap();
        }
        let mut used: Vec<InUse> = (keys.iter())
            .map(|key| {
                let written = cache.lookup(key).unwrap().unwrap().time;
                InUse {
                    key: key.as_str().into(),
                    size: 0,
                    written,
                    last_used: written,
                }
            })
            .collect();
        // Written again after the reduction read it; and one the store
        // never held.
        cache.put("k3", &2u32).unwrap();
        used[5].key = "never".into();
        let used: Vec<&InUse> = used.iter().collect();
        let removed = cache.remove_if_written_at(&used).unwrap();
        let removed: Vec<bool> = removed.iter().map(Option::is_some).collect();
        let expected: Vec<bool> = (0..keys.len()).map(|i| i != 3 && i != 5).collect();
        assert_eq!(removed, expected);
        assert_eq!(cache.get::<u32>("k3").unwrap(), Some(2));
        assert_eq!(cache.get::<u32>("k5").unwrap(), Some(1));
        assert_eq!(cache.get::<u32>("k0").unwrap(), None);
    }

    #[test]
    fn a_put_by_another_handle_while_the_removals_are_batched_stays() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::open(dir.path()).unwrap();
        let other = Cache::open(dir.path()).unwrap();
        cache.put("k", &1u32).unwrap();
        let written = cache.lookup("k").unwrap().unwrap().time;
        let mut removed = None;
        cache
            .in_one_append(|| {
                removed = remove_if_written_at(&cache, "k", written)?;
                // Before the batch of removals is written.
                other.put("k", &2u32)
            })
            .unwrap();
        cache.delete_removed(removed.unwrap()).unwrap();
        cache.refresh().unwrap();
        assert_eq!(cache.get::<u32>("k").unwrap(), Some(2));
    }

    #[test]
    fn a_removal_is_not_a_use() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::open(dir.path()).unwrap();
        cache.put("removed", &1u32).unwrap();
        cache.put("read", &2u32).unwrap();
        cache.get::<u32>("read").unwrap();
        assert!(cache.remove("removed").unwrap());
        // A reduction beside it would take the key it removes for the
        // most recently used.
        cache.uses.flush(&*cache.backend, &cache.writer_id).unwrap();
        let (uses, _) = crate::cache::uses::recorded_uses(&*cache.backend).unwrap();
        assert_eq!(uses.keys().collect::<Vec<_>>(), ["read"]);
    }

    #[test]
    fn a_key_written_again_after_the_reduction_read_it_stays() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::open(dir.path()).unwrap();
        cache.put("k", &1u32).unwrap();
        let read = cache.lookup("k").unwrap().unwrap().time;
        // Another write, after the reduction read the line.
        cache.put("k", &2u32).unwrap();
        assert!(remove_if_written_at(&cache, "k", read).unwrap().is_none());
        assert_eq!(cache.get::<u32>("k").unwrap(), Some(2));
        let written = cache.lookup("k").unwrap().unwrap().time;
        let removed = remove_if_written_at(&cache, "k", written).unwrap();
        cache.delete_removed(removed.unwrap()).unwrap();
        assert_eq!(cache.get::<u32>("k").unwrap(), None);
    }

    mod live_sizes {
        use std::time::Duration;

        use proptest::prelude::*;

        use crate::cache::reduce::LiveSizes;
        use crate::{Cache, CacheOptions, PutOptions};

        #[derive(Debug, Clone)]
        enum Op {
            Put(u8),
            Expiring(u8),
            ByOther(u8),
            Remove(u8),
            RemovedByOther(u8),
            Checkpoint,
            Compact,
            CompactHere,
            Pass,
        }

        fn op() -> impl Strategy<Value = Op> {
            prop_oneof![
                4 => (0..12u8).prop_map(Op::Put),
                1 => (0..12u8).prop_map(Op::Expiring),
                2 => (0..12u8).prop_map(Op::ByOther),
                2 => (0..12u8).prop_map(Op::Remove),
                1 => (0..12u8).prop_map(Op::RemovedByOther),
                1 => Just(Op::Checkpoint),
                1 => Just(Op::Compact),
                1 => Just(Op::CompactHere),
                2 => Just(Op::Pass),
            ]
        }

        /// What a pass reads of the store after each operation, from the
        /// keys changed since the last one, is what reading the store
        /// whole gives: writes of this handle and of another, removals,
        /// checkpoints and online compactions by either (which make the
        /// index read the store again), in segments sealed every few
        /// lines.
        fn passes_see_the_store_as_a_whole_reading_does(ops: &[Op]) {
            let dir = tempfile::tempdir().unwrap();
            // Bounded (far off), as a handle whose passes come regularly.
            let options = CacheOptions::default()
                .checkpoint_bytes(0)
                .segment_bytes(400)
                .bounds(crate::options::Bounds::default().max_entries(1 << 20));
            let cache = Cache::open_with(dir.path(), options.clone()).unwrap();
            let other = Cache::open_with(dir.path(), options).unwrap();
            let key = |k: &u8| format!("k{k}");
            let mut n = 0u32;
            for op in ops {
                n += 1;
                match op {
                    Op::Put(k) => cache.put(&key(k), &n).unwrap(),
                    Op::Expiring(k) => {
                        let ttl = PutOptions::default().ttl(Duration::from_secs(3600));
                        cache.put_with(&key(k), &n, &ttl).unwrap();
                    }
                    Op::ByOther(k) => other.put(&key(k), &vec![n; 3]).unwrap(),
                    Op::Remove(k) => drop(cache.remove(&key(k)).unwrap()),
                    Op::RemovedByOther(k) => drop(other.remove(&key(k)).unwrap()),
                    Op::Checkpoint => {
                        crate::index::checkpoint::build(
                            &cache.backend,
                            true,
                            false,
                            crate::index::checkpoint::objects::Sources::Every,
                        )
                        .unwrap();
                    }
                    Op::Compact => {
                        let grace = Duration::ZERO;
                        other.admin().compact_online(grace, |_, _| {}).unwrap();
                    }
                    Op::CompactHere => {
                        let grace = Duration::ZERO;
                        cache.admin().compact_online(grace, |_, _| {}).unwrap();
                    }
                    Op::Pass => {
                        cache.in_use_order().unwrap();
                        let kept = cache.upkeep.live.lock().take().unwrap();
                        let whole = LiveSizes::read(&cache).unwrap();
                        assert_eq!(kept, whole, "after {ops:?}");
                        *cache.upkeep.live.lock() = Some(kept);
                    }
                }
            }
        }

        /// Found by the property test: a key another handle put (read by a
        /// pass) and removed (not read yet), then compacted away whole by
        /// that handle, leaves no line to read again.
        #[test]
        fn a_key_compacted_away_by_another_handle_is_gone_from_the_pass() {
            let ops = [Op::ByOther(6), Op::Pass, Op::RemovedByOther(6), Op::Put(5)];
            let ops = [&ops[..], &[Op::Compact, Op::Pass]].concat();
            passes_see_the_store_as_a_whole_reading_does(&ops);
        }

        /// Found by the property test: the same after another handle's
        /// compaction moved the key's put into its copies, and a second one
        /// retired those copies with the removal.
        #[test]
        fn a_key_copied_then_compacted_away_by_another_handle_is_gone_from_the_pass() {
            use Op::*;
            let ops = [
                ByOther(7),
                Compact,
                Pass,
                RemovedByOther(7),
                Compact,
                Put(8),
                Pass,
            ];
            passes_see_the_store_as_a_whole_reading_does(&ops);
        }

        proptest! {
            #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]
            #[test]
            fn a_pass_reads_what_changed_as_a_whole_reading_would(
                ops in proptest::collection::vec(op(), 1..40)
            ) {
                passes_see_the_store_as_a_whole_reading_does(&ops);
            }
        }
    }
}
