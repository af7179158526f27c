//! Batches: [`Cache::put_many`] writes the index lines of many entries in
//! one append (one object on object storage), [`Cache::get_many`] reads
//! many entries at once (concurrently where each read is a request).

use crate::cache::Cache;
use crate::error::StoreError;
use codec_runtime::Codec;

/// At most this many reads at a time in [`Cache::get_many`].
const CONCURRENT_GETS: usize = 16;

impl Cache {
    /// Stores each `(key, value)` as [`Cache::put`] would, with the index
    /// lines of all in one append: in a folder one write (and one sync
    /// with [`CacheOptions::fsync`](crate::CacheOptions::fsync)), on object
    /// storage one request for all the values small enough to go inline,
    /// where [`Cache::put`] makes one each. Values that go to data files
    /// cost their data's write each, as with `put`.
    ///
    /// The entries become visible together, once every value's data is
    /// written: on object storage all or none; in a folder, a crash in the
    /// middle of the write may leave the first ones only. On an error, none
    /// is acknowledged.
    ///
    /// ```
    /// # fn main() -> Result<(), codec::StoreError> {
    /// let dir = tempfile::tempdir().unwrap();
    /// let cache = codec::Cache::open(dir.path())?;
    /// let values: Vec<(String, u32)> = (0..100).map(|i| (format!("n/{i}"), i)).collect();
    /// cache.put_many(values.iter().map(|(k, v)| (k.as_str(), v)))?;
    /// let keys = ["n/1", "n/99", "n/100"];
    /// assert_eq!(cache.get_many::<u32>(&keys)?, [Some(1), Some(99), None]);
    /// # Ok(())
    /// # }
    /// ```
    pub fn put_many<'a, T: Codec + 'static>(
        &self,
        entries: impl IntoIterator<Item = (&'a str, &'a T)>,
    ) -> Result<(), StoreError> {
        // One write: no seal comes between the values' data and the
        // lines written after them all.
        self.writer.one_write(|| {
            self.in_one_append(|| {
                entries
                    .into_iter()
                    .try_for_each(|(key, value)| self.put(key, value))
            })
        })
    }

    /// Runs `writes`, the index lines of this thread's writes in it gathered
    /// and then appended in one write; none is appended if `writes` fails.
    pub(crate) fn in_one_append(
        &self,
        writes: impl FnOnce() -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        let this = std::thread::current().id();
        // Inside another (a reduction inside a `put_many`): its lines
        // join the outer batch, written once with it.
        if self.writer.lock().batches.iter().any(|(t, _)| *t == this) {
            return writes();
        }
        let batches = |f: &mut dyn FnMut(&mut Vec<_>)| {
            let mut writer = self.writer.lock();
            f(&mut writer.batches);
        };
        batches(&mut |b| b.push((this, Vec::new())));
        // The lines of the writes below gather in this thread's batch.
        let written = writes();
        let mut lines = Vec::new();
        batches(&mut |b| {
            if let Some(i) = b.iter().position(|(t, _)| *t == this) {
                lines = b.swap_remove(i).1;
            }
        });
        written?;
        self.append_lines(lines)
    }

    /// The values under `keys`, in their order, as [`Cache::get`] reads
    /// each. Where each read is a request (object storage), up to 16 run
    /// at once; in a folder they run one after the other (reads from the
    /// page cache gain nothing from threads). The first error is returned.
    pub fn get_many<T: Codec + Send + 'static>(
        &self,
        keys: &[impl AsRef<str> + Sync],
    ) -> Result<Vec<Option<T>>, StoreError> {
        if !self.backend.concurrent_reads() || keys.len() < 2 {
            return keys.iter().map(|k| self.get(k.as_ref())).collect();
        }
        let chunk = keys.len().div_ceil(CONCURRENT_GETS);
        std::thread::scope(|s| {
            let reads: Vec<_> = keys
                .chunks(chunk)
                .map(|keys| {
                    s.spawn(move || {
                        keys.iter()
                            .map(|k| self.get::<T>(k.as_ref()))
                            .collect::<Result<Vec<_>, _>>()
                    })
                })
                .collect();
            let mut values = Vec::with_capacity(keys.len());
            for read in reads {
                values.extend(
                    read.join()
                        .unwrap_or_else(|p| std::panic::resume_unwind(p))?,
                );
            }
            Ok(values)
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::Cache;

    #[test]
    fn a_batch_inside_another_joins_it() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::open(dir.path()).unwrap();
        let log = || {
            let mut logs = std::fs::read_dir(dir.path())
                .unwrap()
                .map(|e| e.unwrap().path())
                .filter(|p| p.to_string_lossy().ends_with("-info.jsonl"));
            logs.next().map_or(0, |p| std::fs::read(p).unwrap().len())
        };
        cache
            .in_one_append(|| {
                cache.put("a", &1u32)?;
                cache.in_one_append(|| cache.put("b", &2u32))?;
                // Nothing written before the outer batch ends.
                assert_eq!(log(), 0);
                cache.put("c", &3u32)
            })
            .unwrap();
        assert!(log() > 0);
        assert_eq!(cache.get::<u32>("b").unwrap(), Some(2));
        assert_eq!(cache.keys().unwrap().len(), 3);
    }
}
