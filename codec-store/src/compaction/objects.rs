//! Compaction where each append is an object of its own (object storage,
//! memory): online, while other handles go on writing and reading. The
//! copy and the report are those of every compaction
//! ([`compact`](super::compact)); what this one does its own way is
//! retiring what it copied, since it cannot have the store to itself.
//!
//! A compaction there is a checkpoint whose table holds copies of the live
//! entries rather than the lines of the logs they came from:
//! - it reads the manifest (its version and how many compactions it
//!   counts), then lists the logs: the *snapshot*, every segment that
//!   exists then;
//! - a handle opened after that (so it reads at least the snapshot) copies
//!   each live entry into a new writer: its data into new objects, its line
//!   with the time of the line copied, so a write made meanwhile by
//!   another handle (later) still wins, and the copy wins a tie with its
//!   original (a new writer's id sorts after every older one);
//! - it commits a manifest covering the snapshot's segments, whose table
//!   holds the copies and whatever was written after the snapshot, by
//!   compare-and-swap on the version read (again from the newer version
//!   if a checkpoint came in between). If another compaction committed
//!   first, it reports so: its copies stay, as ordinary entries, until the
//!   next compaction.
//!
//! The snapshot's segments and data are garbage from then on, but a
//! reader that opened before may still read them: they are deleted by a
//! later compaction once this one's commit is older than its grace period
//! (counted from the commit, not the start: a reader may have read the
//! manifest before it just before the commit, however long the copies
//! took). Then
//! every log segment the snapshot had of each writer is deleted, and the
//! shared data segments the snapshot had of the writers that wrote no
//! line after it. A put whose data went in before the snapshot and whose
//! line comes after is safe as long as it takes less than the grace
//! period. Objects of the `file` handler (one per entry) are not deleted
//! there yet.

use std::sync::Arc;
use std::time::Duration;

use crate::backend::{Appends, Backend};
use crate::cache::now_nanos;
use crate::cache::Cache;
use crate::compaction::sealed::{compact_sealed, Compaction};
use crate::compaction::{compact_alone, copy_live_entries, store_size, with_handlers, Compacted};
use crate::content::handler::Handler;
use crate::error::StoreError;
use crate::index::checkpoint::objects::Sources;
use crate::index::checkpoint::parse_manifest;
use crate::index::checkpoint::{build_from, damaged, Start, Stop};
use crate::index::logs;
use crate::index::records::{Checkpoint, Covered, LeaseRecord, Retired};
use crate::index::table::Damaged;
use crate::layout;
use crate::options::CacheOptions;

/// How often a compaction commits again after a checkpoint came in
/// between.
const TRIES: usize = 8;

/// [`Admin::compact_backend`](crate::Admin::compact_backend).
pub(crate) fn compact_backend(
    backend: Arc<dyn Backend>,
    handlers: &[Arc<dyn Handler>],
    grace: Duration,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Compacted, StoreError> {
    if backend.read(layout::META)?.is_none() {
        return Err(StoreError::open(
            backend.location(),
            format!("it is not a codec cache (no {})", layout::META),
        ));
    }
    match backend.appends() {
        Appends::InPlace => compact_alone(backend, handlers, progress),
        Appends::Segments => compact_online(backend, handlers, grace, progress),
    }
}

/// [`Admin::compact_online`](crate::Admin::compact_online): the store
/// `cache` has open, with the handlers registered on it.
pub(crate) fn compact_handle_online(
    cache: &Cache,
    grace: Duration,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Compacted, StoreError> {
    let handlers: Vec<Arc<dyn Handler>> = (cache.handlers.read()).values().cloned().collect();
    let backend = cache.backend.clone();
    match backend.appends() {
        Appends::InPlace => compact_sealed(
            Some(cache),
            backend,
            &handlers,
            Compaction::Asked(grace),
            progress,
        ),
        Appends::Segments => compact_online(backend, &handlers, grace, progress),
    }
}

fn compact_online(
    backend: Arc<dyn Backend>,
    handlers: &[Arc<dyn Handler>],
    grace: Duration,
    mut progress: impl FnMut(usize, usize),
) -> Result<Compacted, StoreError> {
    let started = now_nanos();
    let size_before = store_size(&*backend)?;
    let (manifest, version) = read_manifest(&*backend)?;
    let snapshot = snapshot(&*backend)?;
    let data_snapshot = data_segments(&*backend)?;
    let (mut freed, mut retired) = collect(&*backend, &manifest.retired, grace, started)?;

    // The copies are written by a handle that reads nothing: one that
    // read the store is enough. They are synced before the manifest that
    // retires what they copy is committed: else, where a write is not
    // durable once done, a power cut could keep the manifest and lose
    // the copies (on object storage a sync costs nothing).
    let options = CacheOptions {
        checkpoint_bytes: 0,
        fsync: true,
        ..CacheOptions::default()
    };
    let old = with_handlers(
        Cache::open_backend(backend.clone(), options.clone())?,
        handlers,
    );
    let new = with_handlers(Cache::open_unread(backend.clone(), options)?, handlers);
    let (kept, dropped) = copy_live_entries(&old, &new, &mut progress)?;

    // Stamped when committed: a handle that read the manifest before
    // then may read what they name until `grace` after.
    let retiring = retired.len();
    retired.extend(snapshot.iter().map(|w| {
        Retired {
            id: w.id.clone(),
            to: w.to,
            data_to: data_snapshot
                .iter()
                .filter(|(id, _, _)| *id == w.id)
                .map(|&(_, n, _)| n + 1)
                .max()
                .unwrap_or(0),
            at: 0,
        }
    }));
    let mut next = Checkpoint {
        writers: snapshot,
        compactions: manifest.compactions + 1,
        retired,
        ..manifest.clone()
    };
    next.tables.clear();
    let next = commit(&backend, next, retiring, &manifest, version)?;
    // The uses of removed keys go with them, and the leases of holders
    // gone for longer than the grace period.
    new.keep_uses_of_own_entries()?;
    drop((old, new));
    freed += remove_expired_leases(&*backend, grace)?;
    if grace.is_zero() {
        freed += collect(&*backend, &next.retired, grace, now_nanos())?.0;
    }
    Ok(Compacted {
        kept,
        dropped,
        freed,
        schemas_removed: 0,
        size_before,
        size_after: store_size(&*backend)?,
    })
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
            return Err(StoreError::unsupported(
                backend.location(),
                "another compaction committed while this one copied the entries; \
                 nothing was lost (this one's copies stay as ordinary entries until the \
                 next compaction): compact again to reclaim its space",
            ));
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

/// How many segments of each writer's log exist now.
fn snapshot(backend: &dyn Backend) -> Result<Vec<Covered>, StoreError> {
    let mut out: Vec<Covered> = Vec::new();
    for log in logs(backend)? {
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
    Ok(out)
}

/// The shared data segments of the store: the writer, the segment's
/// number, its size (`data/<writer>.bin`, `data/<writer>.<n>.bin`).
fn data_segments(backend: &dyn Backend) -> Result<Vec<(String, u64, u64)>, StoreError> {
    let mut out = Vec::new();
    for object in backend.list(&format!("{}/", layout::DATA))? {
        let file = &object.name[layout::DATA.len() + 1..];
        if let Some(segment) = file.strip_suffix(".bin") {
            let (id, n) = layout::segment_of(segment);
            out.push((id.to_owned(), n, object.size));
        }
    }
    Ok(out)
}

/// Deletes what the compactions of `retired` replaced, for those older
/// than `grace` at `now`: the segments they replaced, and every data
/// object of a writer that wrote nothing after. Returns the bytes freed
/// and the compactions still too young.
fn collect(
    backend: &dyn Backend,
    retired: &[Retired],
    grace: Duration,
    now: u64,
) -> Result<(u64, Vec<Retired>), StoreError> {
    if retired.is_empty() {
        return Ok((0, Vec::new()));
    }
    let (logs, data) = (logs(backend)?, data_segments(backend)?);
    let mut freed = 0;
    let mut young = Vec::new();
    for r in retired {
        if r.at.saturating_add(grace.as_nanos() as u64) > now {
            young.push(r.clone());
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
                freed += log.size;
            } else {
                wrote_after = true;
            }
        }
        if wrote_after {
            continue;
        }
        for (id, n, size) in &data {
            if *id == r.id && *n < r.data_to {
                let name = layout::segment_name(&layout::data_object(&layout::shared_name(id)), *n);
                backend.delete(&name)?;
                freed += size;
            }
        }
    }
    Ok((freed, young))
}
