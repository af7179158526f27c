//! How object storage and memory retire what a compaction copied: each
//! append is an object of its own, so every segment is sealed, and no
//! lock keeps other compactions out. The retirement is the checkpoint's
//! manifest, committed by compare-and-swap:
//! - the compaction reads the manifest (its version, and how many
//!   compactions it counts), then lists the logs: the *snapshot*, every
//!   segment that exists then, which it retires;
//! - once its copies are durable, it commits a manifest covering the
//!   snapshot's segments, whose table holds the copies and whatever was
//!   written after the snapshot, by compare-and-swap on the version read
//!   (again from the newer version if a checkpoint came in between). If
//!   another compaction committed first, it reports so: its copies stay,
//!   as ordinary entries, until the next compaction.
//!
//! The snapshot's segments and data are garbage from then on, but a
//! reader that opened before may still read them: they are deleted by a
//! later compaction once this one's commit is older than its grace period
//! (counted from the commit, not the start: a reader may have read the
//! manifest before it just before the commit, however long the copies
//! took). Then every log segment the snapshot had of each writer is
//! deleted, and the shared data segments the snapshot had: at once for
//! the writers that wrote no line after it, else once that later
//! compaction committed its copies of every live line (a put whose data
//! went in before the snapshot and whose line came after names them: it
//! is copied first). Such a put is safe as long as it takes less than the
//! grace period. The files of entries of their own (the `file` handler's,
//! `data/<writer>-<seq>...`) go the same way: those numbered below the
//! sequence after the last line of the writer's segments retired (a file
//! is named by the sequence its line will have at least, so a put of
//! another thread may take that sequence first, and be in the snapshot
//! while the line naming the file comes after).
//!
//! A compaction holds a lease (`locks/compact.lock`) while it runs: the
//! store's own skips its turn while another holds it.

use std::sync::Arc;
use std::time::Duration;

use crate::backend::{Backend, Listed};
use crate::cache::lease::{Lease, Leases, Watch};
use crate::cache::{now_nanos, Cache};
use crate::compaction::marker::{entry_file_seq, last_seq};
use crate::compaction::sealed::{Compaction, Retirement, Retiring, Segments};
use crate::error::StoreError;
use crate::index::checkpoint::objects::Sources;
use crate::index::checkpoint::parse_manifest;
use crate::index::checkpoint::{build_from, damaged, Start, Stop};
use crate::index::logs;
use crate::index::logs::LogObject;
use crate::index::records::{Checkpoint, Covered, LeaseRecord, Retired};
use crate::index::table::Damaged;
use crate::layout;

/// How often a compaction commits again after a checkpoint came in
/// between.
const TRIES: usize = 8;

/// Why a compaction another one committed before failed.
const OVERTAKEN: &str = "another compaction committed while this one copied the entries; \
                         nothing was lost (this one's copies stay as ordinary entries until \
                         the next compaction): compact again to reclaim its space";

/// Whether `e` says that another compaction committed first: nothing to
/// warn of where the store compacts by itself (the other did the work).
pub(crate) fn overtaken(e: &StoreError) -> bool {
    matches!(e, StoreError::Unsupported { message, .. } if message == OVERTAKEN)
}

/// How long the lease of a compaction lasts unless renewed (every third
/// of it while the compaction runs): the store's own compactions skip
/// their turn that long at most after one was killed.
const LEASE: Duration = Duration::from_secs(60);

/// The retirement of a compaction of object storage, from the manifest
/// it read.
pub(super) struct Manifest {
    backend: Arc<dyn Backend>,
    /// The compaction's lease (`locks/compact.lock`), where it got it: the
    /// store's own compactions skip their turn while another holds it, as
    /// in a folder (two copying at once would be work lost for one, whose
    /// commit fails).
    _lease: Option<Lease>,
    manifest: Checkpoint,
    version: Option<crate::backend::Version>,
    /// What earlier compactions retired that is not deleted yet.
    retired: Vec<Retired>,
    /// The shared data segments of the snapshot: writer, number, size.
    data: Vec<(String, u64, u64)>,
    /// The data that earlier compactions retired, past their grace period,
    /// deleted once this one committed the copies of every live line
    /// (name, size).
    due: Vec<(String, u64)>,
    /// Whether this compaction committed its manifest.
    committed: bool,
    /// The asking handle's writer, and the number of its shared data
    /// objects that hold the data of writes whose lines this compaction
    /// reads ([`LogWriter::data_mark`](crate::cache::writers::LogWriter::data_mark)).
    own: Option<(String, u64)>,
}

impl Manifest {
    /// Reads the manifest a compaction of `backend` starts from and takes
    /// the compaction's lease; `None` if the store's own (`how`) finds the
    /// lease held (one asked for goes on, and races the other to commit).
    pub(super) fn begin(
        backend: Arc<dyn Backend>,
        how: Compaction,
    ) -> Result<Option<Manifest>, StoreError> {
        let (manifest, version) = read_manifest(&*backend)?;
        // Named by this process and the compactions the manifest counts:
        // another compaction of the same manifest cannot hold it at once,
        // and the name is the same in every run of a simulated store.
        let holder = format!("compaction-{}-{}", std::process::id(), manifest.compactions);
        let name = format!("{}/{}", layout::KEY_LOCKS, layout::COMPACT_LOCK);
        let leases = Leases::new(backend.clone(), LEASE);
        let lease = leases.try_take(&name, &holder, &mut Watch::default())?;
        if lease.is_none() && matches!(how, Compaction::IfFree(_)) {
            return Ok(None);
        }
        Ok(Some(Manifest {
            backend,
            _lease: lease,
            retired: manifest.retired.clone(),
            manifest,
            version,
            data: Vec::new(),
            due: Vec::new(),
            committed: false,
            own: None,
        }))
    }
}

impl Retirement for Manifest {
    fn collect(&mut self, grace: Duration, now: u64) -> Result<u64, StoreError> {
        let done = collect(&*self.backend, &self.retired, self.own.as_ref(), grace, now)?;
        self.retired = done.kept;
        // Before the commit, the data left goes once it committed: every
        // live line it read is copied, one naming that data too. (After,
        // the next compaction deletes it.)
        if !self.committed {
            self.due = done.left;
        }
        Ok(done.freed)
    }

    fn remove_gone_holders(&mut self, grace: Duration) -> Result<u64, StoreError> {
        remove_expired_leases(&*self.backend, grace)
    }

    fn segments(&mut self, cache: Option<&Cache>) -> Result<Segments, StoreError> {
        // The asking handle's writes under way end first (the barrier of a
        // seal): its data written before is named by lines the compaction
        // reads, and goes with its copies.
        if let Some(cache) = cache {
            cache.writer.seal_now()?;
            self.own = Some((cache.writer_id.clone(), cache.writer.data_mark()));
        }
        let sealed = logs(&*self.backend)?;
        self.data = data_segments(&self.backend.list(&format!("{}/", layout::DATA))?);
        Ok(Segments {
            sealed,
            active: Vec::new(),
            held: Vec::new(),
        })
    }

    fn every_line(&self) -> bool {
        // The committed manifest's table is built from the segments it
        // does not cover, and holds none of the lines the tables read held.
        true
    }

    fn retiring(&mut self, _sealed: &[LogObject]) -> Result<Retiring, StoreError> {
        // A writer's data goes at once only if it wrote no line after the
        // snapshot, else once a later compaction copied every live line:
        // a line kept names none of it that goes.
        Ok(Retiring {
            logs: Default::default(),
            data: Default::default(),
        })
    }

    fn retire(&mut self, sealed: &[LogObject], _copies: &str) -> Result<u64, StoreError> {
        let covered = coverage(sealed);
        let files_to = files_to(&*self.backend, sealed)?;
        // Stamped when committed: a handle that read the manifest before
        // then may read what they name until the grace period after.
        let retiring = self.retired.len();
        let mut retired = std::mem::take(&mut self.retired);
        retired.extend(covered.iter().map(|w| {
            Retired {
                id: w.id.clone(),
                to: w.to,
                data_to: (self.data.iter())
                    .filter(|(id, _, _)| *id == w.id)
                    .map(|&(_, n, _)| n + 1)
                    .max()
                    .unwrap_or(0),
                files_to: files_to.get(w.id.as_str()).copied().unwrap_or(0),
                at: 0,
            }
        }));
        let mut next = Checkpoint {
            writers: covered,
            compactions: self.manifest.compactions + 1,
            retired,
            ..self.manifest.clone()
        };
        next.tables.clear();
        let committed = commit(
            &self.backend,
            next,
            retiring,
            &self.manifest,
            self.version.take(),
        )?;
        self.retired = committed.retired;
        self.committed = true;
        // The compactions that retired it stay listed until the next one
        // finds it gone.
        let mut freed = 0;
        for (name, size) in std::mem::take(&mut self.due) {
            self.backend.delete(&name)?;
            freed += size;
        }
        Ok(freed)
    }
}

/// By writer, the sequence after the last line of its segments among
/// `sealed`: the files of its entries numbered below are named by lines
/// of those segments (or by a put's line written after them, whose data
/// went in before).
fn files_to(
    backend: &dyn Backend,
    sealed: &[LogObject],
) -> Result<std::collections::BTreeMap<String, u64>, StoreError> {
    // In order: a simulated store's requests are the same in every run.
    let mut last: std::collections::BTreeMap<&str, &LogObject> = Default::default();
    for log in sealed {
        let (id, n) = layout::segment_of(&log.writer);
        let newer = last
            .get(id)
            .is_none_or(|known| layout::segment_of(&known.writer).1 < n);
        if newer {
            last.insert(id, log);
        }
    }
    let mut out = std::collections::BTreeMap::new();
    for (id, log) in last {
        if let Some(seq) = last_seq(backend, log)? {
            out.insert(id.to_owned(), seq + 1);
        }
    }
    Ok(out)
}

/// How many segments of each writer's log the logs `sealed` reach to.
fn coverage(sealed: &[LogObject]) -> Vec<Covered> {
    let mut out: Vec<Covered> = Vec::new();
    for log in sealed {
        let (id, n) = layout::segment_of(&log.writer);
        match out.iter_mut().find(|w| w.id == id) {
            Some(w) => w.to = w.to.max(n + 1),
            None => out.push(Covered {
                id: id.to_owned(),
                to: n + 1,
                tail: 0,
            }),
        }
    }
    out
}

/// Commits the compaction's manifest `next`, built on `manifest` read at
/// `version`: again from a newer version if a checkpoint came in between
/// (reading only the segments written since the last try, and merging
/// them with the table it built); an error if a compaction did. What it
/// retires (`next.retired` from `retiring` on) is stamped with the time
/// of each try, so that its grace period runs from the commit: a handle
/// that read the manifest before may read the objects retired until then.
/// Returns the manifest committed.
fn commit(
    backend: &Arc<dyn Backend>,
    next: Checkpoint,
    retiring: usize,
    manifest: &Checkpoint,
    version: Option<crate::backend::Version>,
) -> Result<Checkpoint, StoreError> {
    let mut start = Start::bare(next, version);
    for _ in 0..TRIES {
        let now = now_nanos();
        for r in &mut start.manifest.retired[retiring..] {
            r.at = now;
        }
        let committed = start.manifest.clone();
        let overtaken = match build_from(backend, start, true, Sources::Every)? {
            Ok(_) => return Ok(committed),
            Err(Stop::Overtaken(overtaken)) => overtaken,
            Err(Stop::Damaged(why)) => return Err(damaged(&**backend, why)),
        };
        let (now, now_version) = read_manifest(&**backend)?;
        if now.compactions != manifest.compactions {
            return Err(StoreError::unsupported(backend.location(), OVERTAKEN));
        }
        // The next try reads only the segments written since this one
        // listed them: a short window for checkpoints to commit in.
        start = Start::after(overtaken, now.next_table, now_version);
    }
    Err(StoreError::unsupported(
        backend.location(),
        "checkpoints kept being committed while this compaction committed its own; \
         compact again",
    ))
}

/// Deletes the leases (`locks/`) that expired more than `grace` ago by
/// this clock: their holders are gone (a live one renews its lease every
/// third of its duration). Returns the bytes freed.
fn remove_expired_leases(backend: &dyn Backend, grace: Duration) -> Result<u64, StoreError> {
    let before = now_nanos().saturating_sub(u64::try_from(grace.as_nanos()).unwrap_or(u64::MAX));
    let mut freed = 0;
    for listed in backend.list(&format!("{}/", layout::KEY_LOCKS))? {
        let Some(bytes) = backend.read(&listed.name)? else {
            continue; // released meanwhile
        };
        // A lease that does not read is not one of this codec's: kept.
        let Ok(lease) = codec_runtime::from_json_slice::<LeaseRecord>(&bytes) else {
            continue;
        };
        if lease.expires < before {
            backend.delete(&listed.name)?;
            freed += bytes.len() as u64;
        }
    }
    Ok(freed)
}

/// The manifest and its version; an empty one if there is none or it is
/// damaged (a compaction rebuilds it whole).
fn read_manifest(
    backend: &dyn Backend,
) -> Result<(Checkpoint, Option<crate::backend::Version>), StoreError> {
    let empty = Checkpoint {
        format: 1,
        ..Checkpoint::default()
    };
    Ok(match backend.read_versioned(layout::CHECKPOINT)? {
        Some((bytes, version)) => match parse_manifest(&bytes) {
            Ok(manifest) => (manifest, Some(version)),
            Err(Damaged(_)) => (empty, Some(version)),
        },
        None => (empty, None),
    })
}

/// The shared data segments among the objects of `data/` listed: the
/// writer, the segment's number, its size (`data/<writer>.bin`,
/// `data/<writer>.<n>.bin`).
fn data_segments(data: &[Listed]) -> Vec<(String, u64, u64)> {
    let mut out = Vec::new();
    for object in data {
        let file = &object.name[layout::DATA.len() + 1..];
        if let Some(segment) = file.strip_suffix(".bin") {
            let (id, n) = layout::segment_of(segment);
            out.push((id.to_owned(), n, object.size));
        }
    }
    out
}

/// What [`collect`] leaves.
struct Collected {
    /// Bytes freed.
    freed: u64,
    /// The compactions still too young, and those whose data is left.
    kept: Vec<Retired>,
    /// The data left, of writers that wrote lines after the snapshot that
    /// retired it (name, size): one of those lines may name it.
    left: Vec<(String, u64)>,
}

/// Deletes what the compactions of `retired` replaced, for those older
/// than `grace` at `now`: the log segments they replaced, and the data
/// segments of the writers that wrote no line after, and of the asking
/// handle's writer those below its mark (`own`: every line naming them
/// was read, and copied). The data of the others is left, with the
/// compactions that retired it: a line written after the snapshot (a put
/// whose data went in before) may name it, and it goes once a compaction
/// copied every live line.
fn collect(
    backend: &dyn Backend,
    retired: &[Retired],
    own: Option<&(String, u64)>,
    grace: Duration,
    now: u64,
) -> Result<Collected, StoreError> {
    let mut done = Collected {
        freed: 0,
        kept: Vec::new(),
        left: Vec::new(),
    };
    if retired.is_empty() {
        return Ok(done);
    }
    let listed = backend.list(&format!("{}/", layout::DATA))?;
    let (logs, data) = (logs(backend)?, data_segments(&listed));
    for r in retired {
        if r.at.saturating_add(grace.as_nanos() as u64) > now {
            done.kept.push(r.clone());
            continue;
        }
        let mut wrote_after = false;
        for log in &logs {
            let (id, n) = layout::segment_of(&log.writer);
            if id != r.id {
                continue;
            }
            if n < r.to {
                backend.delete(&log.name)?;
                done.freed += log.size;
            } else {
                wrote_after = true;
            }
        }
        let mut left = false;
        for (id, n, size) in &data {
            if *id == r.id && *n < r.data_to {
                let name = layout::segment_name(&layout::data_object(&layout::shared_name(id)), *n);
                let read = own.is_some_and(|(writer, mark)| writer == id && n < mark);
                if wrote_after && !read {
                    done.left.push((name, *size));
                    left = true;
                } else {
                    backend.delete(&name)?;
                    done.freed += size;
                }
            }
        }
        // The files of entries of their own (`data/<writer>-<seq>...`).
        for object in &listed {
            let file = &object.name[layout::DATA.len() + 1..];
            if entry_file_seq(file, &r.id).is_some_and(|seq| seq < r.files_to) {
                if wrote_after {
                    done.left.push((object.name.clone(), object.size));
                    left = true;
                } else {
                    backend.delete(&object.name)?;
                    done.freed += object.size;
                }
            }
        }
        if left {
            done.kept.push(r.clone());
        }
    }
    Ok(done)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::memory::Memory;
    use crate::compaction::sealed::compact_sealed;
    use crate::{Cache, CacheOptions};

    /// Two compactions copying at once: one commits, the other's work is
    /// lost. The store's own skips its turn while another holds the lease.
    #[test]
    fn the_store_s_own_compaction_skips_its_turn_while_another_runs() {
        let backend: Arc<dyn Backend> = Arc::new(Memory::new());
        let cache = Cache::open_backend(backend.clone(), CacheOptions::default()).unwrap();
        cache.put("a", &1u32).unwrap();
        cache.put("a", &2u32).unwrap();
        let own = Compaction::IfFree(Duration::ZERO);
        let compact = || compact_sealed(Some(&cache), backend.clone(), &[], own, &mut |_, _| {});
        let under_way = Manifest::begin(backend.clone(), Compaction::Asked(Duration::ZERO));
        let under_way = under_way.unwrap().expect("the lease is free");
        assert_eq!(compact().unwrap().kept, 0);
        assert!(Manifest::begin(backend.clone(), own).unwrap().is_none());
        drop(under_way);
        assert_eq!(compact().unwrap().kept, 1);
        assert_eq!(cache.get::<u32>("a").unwrap(), Some(2));
        // Released: no lease left behind.
        assert!(backend.list("locks/").unwrap().is_empty());
    }
}
