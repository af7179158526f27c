//! The in-memory index: the latest line of each key, from every writer's
//! index file. Readers skip a torn last line (it may still be being
//! written) and a corrupt middle line (with a warning), never the folder.
//!
//! Lines are kept as checked text and decoded when their entry is read, so
//! opening a folder builds no records. Lines a checkpoint covers stay on
//! disk: the index holds the checkpoint's tables, mapped, and in memory
//! only the lines written after it. On object storage the tables are read
//! whole, and the log segments they cover are never read.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use foldhash::fast::RandomState;

use crate::backend::{Appends, Backend, Version};
use crate::error::StoreError;
use crate::index::line::{check_line, LineView, Spans};
use crate::index::records::{Info, Mode};
use crate::index::table::Damaged;
use crate::layout;
use checkpoint::{Base, Hit, Unopened};

pub(crate) mod changes;
pub(crate) mod checkpoint;
pub(crate) mod line;
pub(crate) mod logs;
pub mod records;
pub(crate) mod table;
pub use logs::logs;
pub(super) use logs::read_complete_lines;
use logs::{listing, LogBytes, MAP_MIN};

#[cfg(test)]
thread_local! {
    /// Run on this thread while the store is read again aside, once the
    /// reading ended and before the index's lock is taken.
    pub(crate) static READING_ASIDE: std::cell::RefCell<Option<Box<dyn FnOnce()>>> =
        const { std::cell::RefCell::new(None) };
    /// The steps of the sweeps of [`Index::adopt_aside`] on this thread.
    static SWEEP_STEPS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Where a line stands in the order of writes: later time wins, then the
/// writer id, then the writer's sequence.
#[derive(Debug, Clone, Copy)]
pub struct Stamp {
    pub time: u64,
    pub writer: u32,
    pub seq: u64,
}

/// The latest line of one key.
struct Slot {
    stamp: Stamp,
    /// The line's text; `None` once the key is removed, so an older write
    /// read later cannot resurrect it.
    line: Option<Arc<str>>,
    /// Where its fields are: found when the line is read from disk, or on
    /// the first get of a line this handle wrote (most are never read back);
    /// `None` if the line has escapes and must be parsed each time.
    spans: OnceLock<Option<Spans>>,
    /// The line's offset in its writer's log: a checkpoint that covers it
    /// takes its place.
    at: u64,
    /// The key's hash in the checkpoint's tables ([`table::key_hash`]),
    /// for [`Index::sizes`], which reads no key under the lock.
    hash: u64,
}

/// The live line of a key, as [`Index::get`] finds it.
pub struct Found {
    pub text: Arc<str>,
    pub spans: Option<Spans>,
    pub time: u64,
    pub seq: u64,
}

impl Found {
    /// Whether the entry expired at `now` (nanoseconds since the Unix epoch).
    pub fn expired(&self, key: &str, now: impl FnOnce() -> u64) -> bool {
        let expires = match &self.spans {
            Some(spans) => spans.expires(),
            None => self.view(key).ok().and_then(|v| v.expires),
        };
        expires.is_some_and(|at| at <= now())
    }

    /// The line's fields, without parsing it again where its spans are known.
    pub fn view<'a>(&'a self, key: &'a str) -> Result<LineView<'a>, codec_runtime::DecodeError> {
        match &self.spans {
            Some(spans) => Ok(LineView::from_spans(
                key, &self.text, spans, self.time, self.seq,
            )),
            None => LineView::parse(&self.text),
        }
    }
}

/// A live key and the text of its line.
pub type LiveLine = (Box<str>, Arc<str>);

/// A key, its latest line (`None`: removed, or expired) and the writer id
/// of the log holding that line.
pub type NewestLine = (Box<str>, Option<Arc<str>>, Arc<str>);

/// One writer's index file, read up to `read_to`.
struct WriterFile {
    id: Box<str>,
    read_to: u64,
    /// The bytes of it the checkpoint covers.
    covered: u64,
}

/// What an index knows of the store's checkpoint: whether it changed.
#[derive(PartialEq)]
struct Seen {
    distrusted: bool,
    /// The manifest's version where logs grow in place.
    stamp: Option<Version>,
    /// The version of the manifest of the checkpoint taken up.
    version: Option<Version>,
}

/// The store's checkpoint as [`Index::adopt`] read it.
enum Opened {
    /// No checkpoint, or the one the index has.
    Nothing,
    /// A newer one, with its manifest's version where logs grow in place.
    Base(Box<Base>, Option<Version>),
    /// A damaged one: why.
    Damaged(String),
}

/// What taking up a checkpoint replaced: the tables of the one before,
/// and the lines the new one covers.
#[derive(Default)]
#[must_use = "dropped after the index's lock"]
struct Replaced {
    _base: Option<Arc<Base>>,
    _lines: Vec<(Arc<str>, Slot)>,
}

/// The live entry of each key: the latest line by [`Stamp`].
#[derive(Default)]
pub struct Index {
    /// foldhash, seeded per process: several times faster than SipHash on
    /// short keys, which every put, get and load hashes. Keys are shared
    /// with a [`snapshot`](Self::snapshot), which copies none of them
    /// under the lock.
    entries: HashMap<Arc<str>, Slot, RandomState>,
    writers: Vec<WriterFile>,
    writer_ids: HashMap<Box<str>, u32>,
    pub warnings: Vec<String>,
    /// The checkpoint, if the folder has one that checked.
    base: Option<Arc<Base>>,
    /// The writer number of each writer of the checkpoint, by position.
    base_writers: Vec<u32>,
    /// Where logs grow in place: the version of the manifest the base
    /// was read from, asked for at each refresh (a stat in a folder).
    manifest_stamp: Option<Version>,
    /// Where logs are segments (object storage): the manifest's size when
    /// last listed, a cheap sign that it changed, and the segments listed
    /// (one gone since: a compaction's garbage was deleted, so a newer
    /// manifest replaced what this index holds, whatever its size; a
    /// count of them is no sign, as as many were written meanwhile).
    listed_manifest: Option<u64>,
    listed_logs: std::collections::HashSet<Box<str>, RandomState>,
    /// Where logs are segments: how many segments of each writer the
    /// checkpoint covers.
    segments: HashMap<Box<str>, u64>,
    /// Where logs are segments: those this handle wrote or read that the
    /// checkpoint does not cover, for its builds.
    known: checkpoint::objects::Known,
    /// A damaged checkpoint was found: read the logs alone until a new
    /// one is built.
    distrusted: bool,
    /// The keys whose line changed, once a reader asked for them.
    changes: Option<changes::Changes>,
    /// While keys changed are recorded, after the lines were forgotten
    /// to be read again: how far each log had been read before (lines
    /// a checkpoint covers up to there are no change), and the logs of
    /// copies this index's own compaction made of entries it had read.
    read_before: HashMap<Box<str>, u64>,
    copies_read: Vec<Box<str>>,
    /// The lines of `entries`, by writer, in the order they were applied
    /// (their offsets, rising): those a checkpoint taken up covers are
    /// swept out of `entries` from the front, a few at a time
    /// ([`Index::sweep_covered`]), rather than found among every entry
    /// under the lock.
    applied: Applied,
}

/// The lines an [`Index`] applied, by writer, for its sweeps.
#[derive(Default)]
struct Applied {
    /// Each writer's lines in `entries` (and lines replaced since, left
    /// for the sweep to pass over): offset and key.
    by_writer: Vec<std::collections::VecDeque<(u64, Arc<str>)>>,
    /// How many `by_writer` holds.
    len: usize,
    /// Whether every line of `entries` is recorded. Not until a checkpoint
    /// was taken up (the lines read before one, the whole store where
    /// there is none, would cost memory for nothing), nor once they grew
    /// past twice the entries (keys written again and again, and no
    /// checkpoint taken up to sweep them): the next checkpoint taken up
    /// looks through every entry, and they are recorded from there.
    recording: bool,
}

impl Applied {
    /// Records line `at` of writer `writer`, for key `key`.
    fn push(&mut self, writer: u32, at: u64, key: Arc<str>, entries: usize) {
        if !self.recording {
            return;
        }
        if self.len >= 2 * entries + 8192 {
            *self = Applied::default();
            return;
        }
        let w = writer as usize;
        if self.by_writer.len() <= w {
            self.by_writer.resize_with(w + 1, Default::default);
        }
        self.by_writer[w].push_back((at, key));
        self.len += 1;
    }
}

/// How many lines a sweep of the lines a checkpoint covers passes over
/// under one taking of the index's lock ([`Index::sweep_covered`]): a
/// few µs, about what a put holds it for.
const SWEEP_STEP: usize = 64;

impl Index {
    /// Reads whatever was appended to the folder's index files since last
    /// time, after taking up a newer checkpoint if there is one.
    pub fn refresh(&mut self, backend: &Arc<dyn Backend>) -> Result<(), StoreError> {
        let segments = backend.appends() == Appends::Segments;
        let mut forgot = false;
        let listing = match segments {
            false => {
                self.adopt(backend)?;
                let listing = listing(&**backend)?;
                if !self.read_retired(&listing) {
                    listing
                } else {
                    // An online compaction retired logs this index read:
                    // what they held is in the copies and the logs left,
                    // read again from the start (the checkpoint first).
                    self.forget();
                    forgot = true;
                    self.adopt(backend)?;
                    crate::index::logs::listing(&**backend)?
                }
            }
            true => {
                let listing = listing(&**backend)?;
                let listed: std::collections::HashSet<Box<str>, RandomState> =
                    (listing.logs.iter())
                        .map(|log| log.name.as_str().into())
                        .collect();
                let gone = self.listed_logs.iter().any(|name| !listed.contains(name));
                if listing.manifest != self.listed_manifest || gone {
                    self.adopt(backend)?;
                    self.listed_manifest = listing.manifest;
                }
                self.listed_logs = listed;
                listing
            }
        };
        for log in listing.logs {
            if self.covers_segment(&log.writer) {
                continue;
            }
            let writer = self.writer(&log.writer);
            let file = &self.writers[writer as usize];
            let from = file.read_to.max(file.covered);
            // The listing's size spares reading a log with nothing new.
            if log.size <= from {
                continue;
            }
            // Where the backend maps files (a folder), a long read is mapped.
            let read = match backend.maps().filter(|_| log.size - from >= MAP_MIN) {
                Some(maps) => match maps.map(&log.name) {
                    Ok(map) => Some(LogBytes::Mapped(map)),
                    // Deleted since it was listed: a compaction retired it.
                    Err(e) if e.source.kind() == std::io::ErrorKind::NotFound => continue,
                    Err(e) => return Err(e.into()),
                },
                None => None,
            };
            let read = match read {
                Some(read) => read,
                None => match read_complete_lines(&**backend, &log.name, from)? {
                    Some(buf) => LogBytes::Read(buf),
                    None => continue,
                },
            };
            let buf = read.complete_lines(from);
            if buf.is_empty() {
                continue;
            }
            if segments && from == 0 {
                self.known.insert(log.name.clone(), Arc::from(buf));
            }
            self.apply_lines(buf, writer, &backend.address(&log.name), from);
            self.writers[writer as usize].read_to = from + buf.len() as u64;
        }
        // What the lines forgotten were is of no use past their reading.
        if forgot {
            self.read_before.clear();
            self.copies_read.clear();
        }
        Ok(())
    }

    /// [`Index::refresh`] of the index `index`: where logs grow in place,
    /// the checkpoint is taken up ([`Index::adopt_aside`]) and the store
    /// listed without its lock, which each write takes (listing a folder
    /// takes a while), and the lock is taken to write only if a log holds
    /// lines it did not read, or a compaction retired one it read.
    pub fn refresh_aside(
        index: &parking_lot::RwLock<Index>,
        backend: &Arc<dyn Backend>,
    ) -> Result<(), StoreError> {
        if backend.appends() == Appends::InPlace {
            Index::adopt_aside(index, backend)?;
            let listing = listing(&**backend)?;
            let read = index.read();
            if read.has_read_all(&listing) {
                return Ok(());
            }
            if !read.distrusted && read.read_retired(&listing) {
                drop(read);
                return Index::read_again_aside(index, backend);
            }
        }
        index.write().refresh(backend)
    }

    /// The refresh of the index `index` once a compaction retired logs it
    /// read: the store is read again from its start into a new index
    /// without the lock (the checkpoint and every log it leaves out: a
    /// few milliseconds), which then takes the index's place under it,
    /// and reads there what was appended meanwhile (this handle's writes
    /// among it).
    fn read_again_aside(
        index: &parking_lot::RwLock<Index>,
        backend: &Arc<dyn Backend>,
    ) -> Result<(), StoreError> {
        let mut fresh = index.read().forgotten();
        let read = fresh.refresh(backend);
        #[cfg(test)]
        if let Some(meanwhile) = READING_ASIDE.with_borrow_mut(Option::take) {
            meanwhile();
        }
        let mut index = index.write();
        let mut replaced = None;
        if read.is_ok() && !fresh.distrusted && !index.distrusted {
            replaced = Some(index.take_over(fresh));
        }
        let refreshed = index.refresh(backend);
        drop(index);
        drop(replaced);
        refreshed
    }

    /// A new index, to read the store again from its start as
    /// [`Index::forget`] leaves this one, without this one's lock; then
    /// to [`take_over`](Index::take_over) from it.
    fn forgotten(&self) -> Index {
        Index {
            changes: self.changes.as_ref().map(|_| changes::Changes::default()),
            copies_read: self.copies_read.clone(),
            read_before: self.read_positions(),
            ..Index::default()
        }
    }

    /// Puts `fresh`, an [`Index::forgotten`] of this index that read the
    /// store again, in this one's place, and returns this one, to be
    /// dropped once the lock is let go. Keeps the warnings of both, and
    /// the keys changed as [`Index::forget`] does: those this index
    /// recorded meanwhile, those `fresh` read, and that lines changed no
    /// key names unless this index's own compaction retired what it read.
    /// Lines appended since `fresh` read them are for a refresh to read.
    fn take_over(&mut self, mut fresh: Index) -> Index {
        let mut changes = self.changes.take();
        if let Some(changes) = &mut changes {
            match fresh.changes.take() {
                Some(read) if !fresh.copies_read.is_empty() => changes.absorb(read),
                _ => changes.unknown(),
            }
        }
        // Their use ended with the reading; copies recorded since it
        // started are forgotten too (the next one reads the whole store).
        fresh.read_before.clear();
        fresh.copies_read.clear();
        fresh.changes = changes;
        let mut warnings = std::mem::take(&mut self.warnings);
        warnings.append(&mut fresh.warnings);
        fresh.warnings = warnings;
        std::mem::replace(self, fresh)
    }

    /// Whether this index read every line of the logs of `listing`, and
    /// none of those it read is retired: a refresh with it would read
    /// nothing.
    fn has_read_all(&self, listing: &logs::Listing) -> bool {
        if self.distrusted || self.read_retired(listing) {
            return false;
        }
        (listing.logs.iter()).all(|log| {
            self.covers_segment(&log.writer)
                || match self.writer_ids.get(log.writer.as_str()) {
                    Some(&n) => {
                        let file = &self.writers[n as usize];
                        log.size <= file.read_to.max(file.covered)
                    }
                    None => log.size == 0,
                }
        })
    }

    /// Takes up the store's checkpoint if it changed since last time:
    /// its tables replace the lines it covers. A damaged one is not used
    /// (with a warning): the logs are read whole instead. Where logs grow
    /// in place, the manifest's version tells whether it changed (a stat
    /// in a folder); where they are segments, the caller saw a sign in
    /// the listing, and the manifest and every table are read (one request
    /// each) unless the manifest is the one this index has. A read that
    /// fails is an error, and the index is left as it was: the checkpoint
    /// may hold lines no log holds any more, so reading the logs without
    /// it could miss entries.
    pub fn adopt(&mut self, backend: &Arc<dyn Backend>) -> Result<(), StoreError> {
        if self.distrusted {
            return Ok(());
        }
        let seen = self.checkpoint_seen();
        let opened = Index::open_checkpoint(backend, &seen)?;
        let replaced = self.take_up(&backend.location(), opened);
        let mut lines = Vec::new();
        self.sweep_covered(usize::MAX, &mut lines);
        drop((replaced, lines));
        Ok(())
    }

    /// [`Index::adopt`] of the index `index`, reading the checkpoint
    /// without its lock, which each write takes (opening the tables, and
    /// checking the logs they cover, takes a while; dropping the tables
    /// and lines they replace too): its lock is taken to take it up alone,
    /// if no other thread took one up meanwhile (else the index's next
    /// [`Index::adopt`] does it under the lock).
    pub fn adopt_aside(
        index: &parking_lot::RwLock<Index>,
        backend: &Arc<dyn Backend>,
    ) -> Result<(), StoreError> {
        let seen = index.read().checkpoint_seen();
        if seen.distrusted {
            return Ok(());
        }
        let opened = Index::open_checkpoint(backend, &seen)?;
        if matches!(opened, Opened::Nothing) {
            return Ok(());
        }
        let mut held = index.write();
        if held.checkpoint_seen() != seen {
            return Ok(());
        }
        let replaced = held.take_up(&backend.location(), opened);
        drop(held);
        drop(replaced);
        // The lines it covers leave in steps: a write waits for one step
        // at most, not for every line read since the last checkpoint
        // (100-500 µs in one).
        loop {
            let mut lines = Vec::with_capacity(SWEEP_STEP);
            let mut index = index.write();
            let done = index.sweep_covered(SWEEP_STEP, &mut lines);
            #[cfg(test)]
            SWEEP_STEPS.set(SWEEP_STEPS.get() + 1);
            drop(index);
            drop(lines);
            if done {
                return Ok(());
            }
        }
    }

    /// What this index knows of the store's checkpoint.
    fn checkpoint_seen(&self) -> Seen {
        Seen {
            distrusted: self.distrusted,
            stamp: self.manifest_stamp.clone(),
            version: self.base.as_ref().and_then(|b| b.version.clone()),
        }
    }

    /// The reading of [`Index::adopt`]: the store's checkpoint, if it
    /// changed since `seen`.
    fn open_checkpoint(backend: &Arc<dyn Backend>, seen: &Seen) -> Result<Opened, StoreError> {
        let in_place = backend.appends() == Appends::InPlace;
        let mut stamp = None;
        if in_place {
            stamp = backend.version(layout::CHECKPOINT).ok().flatten();
            if stamp.is_none() || stamp == seen.stamp {
                // No checkpoint (or it was deleted: the tables mapped stay good).
                return Ok(Opened::Nothing);
            }
        }
        Ok(match Base::open(backend) {
            Ok(Some(base)) if in_place => {
                // A log that lost its end (to a power loss, say) and was
                // written again has other lines where the checkpoint
                // expects its own.
                match checkpoint::changed_logs(&**backend, &base.manifest)? {
                    (Some(log), _) => {
                        Opened::Damaged(format!("{log} does not end as it did when covered"))
                    }
                    // A log it covers was deleted since it was read: an
                    // online compaction retired it, and built the
                    // checkpoint that replaces this one, taken up next time.
                    (None, true) => Opened::Nothing,
                    (None, false) => Opened::Base(Box::new(base), stamp),
                }
            }
            Ok(Some(base)) => {
                let have = seen.version.as_ref();
                match have.is_none() || have != base.version.as_ref() {
                    true => Opened::Base(Box::new(base), None),
                    false => Opened::Nothing,
                }
            }
            Ok(None) => Opened::Nothing,
            Err(Unopened::Damaged(Damaged(why))) => Opened::Damaged(why),
            Err(Unopened::Failed(e)) => return Err(e.into()),
        })
    }

    /// Takes up what [`Index::open_checkpoint`] read. Returns what it
    /// replaced, for the caller to drop once it let the lock go.
    fn take_up(&mut self, location: &str, opened: Opened) -> Replaced {
        match opened {
            Opened::Nothing => Replaced::default(),
            Opened::Damaged(why) => {
                self.distrust(location, &why);
                Replaced::default()
            }
            Opened::Base(base, stamp) => self.install(*base, stamp),
        }
    }

    /// Whether this index read lines of a log that `listing` no longer
    /// has, or took them from a checkpoint that covered it: a compaction
    /// retired it. (A log only a checkpoint gave counts too: the next
    /// checkpoint leaves its lines out, and with them keys whose line was
    /// never read.)
    fn read_retired(&self, listing: &logs::Listing) -> bool {
        let mut read = (self.writers.iter())
            .filter(|w| w.read_to > 0 || w.covered > 0)
            .peekable();
        if read.peek().is_none() {
            return false;
        }
        let listed: std::collections::HashSet<&str> =
            listing.logs.iter().map(|log| log.writer.as_str()).collect();
        read.any(|w| !listed.contains(&*w.id))
    }

    /// Forgets every line read, and the checkpoint, to read the store
    /// again from the start; keeps the warnings given and the keys changed
    /// (every line read again adds its key). Unless this index's own
    /// compaction retired what it read ([`Index::copies_read`]), lines it
    /// never read may be gone with the rest (another handle's compaction
    /// dropped a put and the removal that came after it): keys changed that
    /// no line names.
    fn forget(&mut self) {
        if let Some(changes) = self
            .changes
            .as_mut()
            .filter(|_| self.copies_read.is_empty())
        {
            changes.unknown();
        }
        let read_before = self.read_positions();
        *self = Index {
            warnings: std::mem::take(&mut self.warnings),
            distrusted: self.distrusted,
            changes: self.changes.take(),
            copies_read: std::mem::take(&mut self.copies_read),
            read_before,
            ..Index::default()
        };
    }

    /// While keys changed are recorded, how far each log was read, for
    /// [`Index::forget`].
    fn read_positions(&self) -> HashMap<Box<str>, u64> {
        match self.changes {
            Some(_) => (self.writers.iter())
                .map(|w| (w.id.clone(), w.read_to.max(w.covered)))
                .collect(),
            None => HashMap::new(),
        }
    }

    /// Undoes [`Index::copies_read`]: the compaction retired nothing.
    pub fn no_copies_read(&mut self) {
        self.copies_read.clear();
    }

    /// Records that the log of writer `id` holds copies of entries this
    /// index read (its own compaction's): lines that change nothing live.
    pub fn copies_read(&mut self, id: &str) {
        if self.changes.is_some() {
            self.copies_read.push(id.into());
        }
    }

    /// The keys whose line changed since the last call, and whether lines
    /// changed that they do not name; `None` if they were not recorded
    /// (every line is new to the caller). Records them from now on if
    /// `record` (a caller that comes back regularly).
    pub fn take_changes(&mut self, record: bool) -> Option<changes::Changes> {
        let taken = self.changes.take();
        if record {
            self.changes = Some(changes::Changes::default());
        }
        taken
    }

    /// Whether the log `id` is a segment the checkpoint covers.
    fn covers_segment(&self, id: &str) -> bool {
        if self.segments.is_empty() {
            return false;
        }
        let (writer, n) = layout::segment_of(id);
        self.segments.get(writer).is_some_and(|&to| n < to)
    }

    fn install(&mut self, base: Base, stamp: Option<Version>) -> Replaced {
        self.base_writers = base.writer_ids().iter().map(|id| self.writer(id)).collect();
        // Lines it covers that this index never read change what is live
        // without a key recorded.
        let unread = base.segments
            || (base.manifest.writers.iter().zip(&self.base_writers)).any(|(covered, &n)| {
                let w = &self.writers[n as usize];
                let before = self.read_before.get(&w.id).copied().unwrap_or(0);
                let mut copies = self.copies_read.iter();
                covered.to > w.read_to.max(w.covered).max(before)
                    && !copies.any(|id| **id == *layout::segment_of(&w.id).0)
            });
        if let Some(changes) = self.changes.as_mut().filter(|_| unread) {
            changes.unknown();
        }
        if base.segments {
            // Coverage counts segments, each read whole or not at all.
            self.segments = (base.manifest.writers.iter())
                .map(|w| (w.id.as_str().into(), w.to))
                .collect();
            for n in 0..self.writers.len() {
                if self.covers_segment(&self.writers[n].id) {
                    self.writers[n].covered = u64::MAX;
                }
            }
            let mut known = std::mem::take(&mut self.known);
            known.retain(|name, _| {
                let writer = layout::log_writer(name).unwrap_or_default();
                !self.covers_segment(writer)
            });
            self.known = known;
        } else {
            for (covered, &n) in base.manifest.writers.iter().zip(&self.base_writers) {
                let file = &mut self.writers[n as usize];
                file.covered = file.covered.max(covered.to);
            }
        }
        // The lines it covers leave `entries` with the sweeps that follow
        // ([`Index::sweep_covered`]); until then, each weighs against the
        // checkpoint's line of its key as a line after it does, and is
        // never the newer (the checkpoint holds it, or a newer one).
        let mut lines = Vec::new();
        if !self.applied.recording {
            // Not recorded: every entry looked at, and recorded from here.
            let writers = &self.writers;
            lines = (self.entries)
                .extract_if(|_, slot| slot.at < writers[slot.stamp.writer as usize].covered)
                .collect();
            let mut left: Vec<(u32, u64, Arc<str>)> = (self.entries.iter())
                .map(|(key, slot)| (slot.stamp.writer, slot.at, key.clone()))
                .collect();
            left.sort_unstable_by_key(|(writer, at, _)| (*writer, *at));
            self.applied = Applied {
                recording: true,
                ..Applied::default()
            };
            for (writer, at, key) in left {
                self.applied.push(writer, at, key, self.entries.len());
            }
        }
        let base = self.base.replace(Arc::new(base));
        self.manifest_stamp = stamp;
        Replaced {
            _base: base,
            _lines: lines,
        }
    }

    /// Takes out of `entries` the lines the checkpoint covers, passing over
    /// `most` lines at most (into `out`, to be dropped once the lock is
    /// let go); whether it passed over all of them.
    fn sweep_covered(&mut self, most: usize, out: &mut Vec<(Arc<str>, Slot)>) -> bool {
        let mut left = most;
        for (w, lines) in self.applied.by_writer.iter_mut().enumerate() {
            let covered = self.writers.get(w).map_or(0, |file| file.covered);
            while lines.front().is_some_and(|(at, _)| *at < covered) {
                if left == 0 {
                    return false;
                }
                left -= 1;
                let (at, key) = lines.pop_front().expect("checked above");
                self.applied.len -= 1;
                // Unless a newer line of its key replaced it since.
                let same = (self.entries.get(&key))
                    .is_some_and(|slot| slot.stamp.writer as usize == w && slot.at == at);
                if same && let Some(taken) = self.entries.remove_entry(&key) {
                    out.push(taken);
                }
            }
        }
        true
    }

    /// Stops using the checkpoint and reads every log from its start.
    pub fn distrust(&mut self, location: &str, why: &str) {
        self.warnings.push(format!(
            "{location}: the checkpoint is damaged ({why}); reading the logs instead \
             (the next checkpoint rebuilds it; or run `codec verify --rebuild-index`)"
        ));
        self.distrusted = true;
        if let Some(changes) = &mut self.changes {
            changes.unknown();
        }
        self.base = None;
        self.base_writers.clear();
        self.segments.clear();
        self.known.clear();
        self.entries.clear();
        self.applied = Applied::default();
        for file in &mut self.writers {
            file.read_to = 0;
            file.covered = 0;
        }
    }

    /// Whether a damaged checkpoint was found.
    pub fn is_distrusted(&self) -> bool {
        self.distrusted
    }

    /// Trusts the folder's checkpoint again, once rebuilt.
    pub fn trust_again(&mut self) {
        self.distrusted = false;
        self.manifest_stamp = None;
        self.listed_manifest = None;
    }

    /// Bytes of the logs this handle read (or wrote) that no checkpoint
    /// covers, each log counting `at_least` bytes if any of it is not
    /// covered (where each is a segment that costs a request to read).
    pub fn uncovered(&self, at_least: u64) -> u64 {
        self.writers
            .iter()
            .map(|w| match w.read_to.saturating_sub(w.covered) {
                0 => 0,
                bytes => bytes.max(at_least),
            })
            .sum()
    }

    /// Where logs are segments: records that this handle wrote segment
    /// `name`, whole. It counts as listed: once a compaction retired it
    /// and deleted it, the refresh that finds it gone takes up the
    /// checkpoint that replaces what it held (the manifest's size, the
    /// other sign, may be the same), as for a segment it read.
    pub fn wrote_segment(&mut self, name: &str, bytes: &[u8]) {
        self.known.insert(name.to_owned(), Arc::from(bytes));
        self.listed_logs.insert(name.into());
    }

    /// The segments this handle wrote or read that no checkpoint covers.
    pub fn known_segments(&self) -> checkpoint::objects::Known {
        self.known.clone()
    }

    /// Records that this handle appended its writer's log up to `end`.
    pub fn wrote_to(&mut self, writer: u32, end: u64) {
        let file = &mut self.writers[writer as usize];
        file.read_to = file.read_to.max(end);
    }

    /// Applies the complete lines of `buf`, read from `path` at byte `from`.
    fn apply_lines(&mut self, buf: &[u8], writer: u32, address: &str, from: u64) {
        // A first read sizes the map for every line once, rather than
        // rehashing it at each doubling. Later reads mostly update keys it
        // holds.
        if self.entries.is_empty() {
            self.entries
                .reserve(memchr::memchr_iter(b'\n', buf).count());
        }
        let mut start = 0;
        for end in memchr::memchr_iter(b'\n', buf) {
            let raw = &buf[start..end];
            let at = from + start as u64;
            start = end + 1;
            if raw.is_empty() {
                continue; // the separator written after a torn line
            }
            let checked = check_line(raw).and_then(|text| {
                LineView::parse(text)
                    .map(|view| (text, view))
                    .map_err(|e| e.to_string())
            });
            match checked {
                Ok((text, view)) => {
                    let stamp = Stamp {
                        time: view.time,
                        writer,
                        seq: view.seq,
                    };
                    let spans = || OnceLock::from(view.spans(text));
                    let live = view.handler.is_some().then(|| (text, spans()));
                    self.apply(&view.key, stamp, at, live);
                }
                Err(why) => self
                    .warnings
                    .push(format!("{address}: skipped the line at byte {at}: {why}")),
            }
        }
    }

    /// The number of a writer id, for [`Stamp`]s.
    pub fn writer(&mut self, id: &str) -> u32 {
        if let Some(&n) = self.writer_ids.get(id) {
            return n;
        }
        let n = self.writers.len() as u32;
        self.writers.push(WriterFile {
            id: id.into(),
            read_to: 0,
            covered: 0,
        });
        self.writer_ids.insert(id.into(), n);
        n
    }

    /// Records a line of `key` if it is newer than the key's current one;
    /// `line` is the text of an entry and where its fields are (if found
    /// yet), `None` for a removal.
    pub fn apply(
        &mut self,
        key: &str,
        stamp: Stamp,
        at: u64,
        line: Option<(&str, OnceLock<Option<Spans>>)>,
    ) {
        let hash = table::key_hash(key);
        let slot = |line: Option<(&str, OnceLock<Option<Spans>>)>| match line {
            Some((text, spans)) => Slot {
                stamp,
                line: Some(Arc::from(text)),
                spans,
                at,
                hash,
            },
            None => Slot {
                stamp,
                line: None,
                spans: OnceLock::new(),
                at,
                hash,
            },
        };
        let key: Arc<str> = match self.entries.get_key_value(key) {
            Some((known, current)) => {
                if !newer(&self.writers, stamp, current.stamp) {
                    return;
                }
                let known = known.clone();
                self.entries.insert(known.clone(), slot(line));
                known
            }
            None => {
                let key: Arc<str> = key.into();
                self.entries.insert(key.clone(), slot(line));
                key
            }
        };
        let entries = self.entries.len();
        self.applied.push(stamp.writer, at, key.clone(), entries);
        if let Some(changes) = &mut self.changes {
            changes.changed(&key);
        }
    }

    /// The live line of a key: `None` if no line of it was read,
    /// `Some(None)` if the latest one removed it.
    pub fn get(&self, key: &str) -> Result<Option<Option<Found>>, Damaged> {
        let slot = self.entries.get(key);
        let hit = match &self.base {
            Some(base) => base.lookup(key)?,
            None => None,
        };
        let base_newer = |hit: &Hit| {
            let stamp = Stamp {
                time: hit.time,
                writer: self.base_writers[hit.writer as usize],
                seq: hit.seq,
            };
            slot.is_none_or(|slot| newer(&self.writers, stamp, slot.stamp))
        };
        Ok(latest(hit, base_newer, || {
            let slot = slot?;
            Some(slot.line.clone().map(|text| {
                let spans = *(slot.spans).get_or_init(|| LineView::parse(&text).ok()?.spans(&text));
                Found {
                    text,
                    spans,
                    time: slot.stamp.time,
                    seq: slot.stamp.seq,
                }
            }))
        }))
    }

    /// What [`Index::get`] finds of each of `keys`, in two steps:
    /// under the index's lock, only the lines after the checkpoint and the
    /// checkpoint itself (shared, never changed) are taken;
    /// [`Aside::found`] looks the keys up in the checkpoint's tables (a
    /// line parsed for each, from pages that may have to be read) once the
    /// lock is let go. The upkeep's passes look up thousands of keys while
    /// every write waits for the lock.
    pub fn aside(&self, keys: &[&str]) -> Aside {
        let after = keys.iter().map(|key| {
            let slot = self.entries.get(*key)?;
            Some(After {
                time: slot.stamp.time,
                writer: self.writers[slot.stamp.writer as usize].id.clone(),
                seq: slot.stamp.seq,
                line: slot.line.clone(),
                spans: slot.spans.get().copied().flatten(),
            })
        });
        Aside {
            base: self.base.clone(),
            after: after.collect(),
        }
    }

    /// What [`LinesSnapshot::lines`] reads, taken under the index's lock:
    /// the checkpoint (shared, never changed) and the lines after it (a
    /// checkpoint's worth at most), their keys and texts shared, not
    /// copied. The reading of the checkpoint's lines, the work of the
    /// whole store, then runs without the lock, which writers need.
    pub fn snapshot(&self) -> LinesSnapshot {
        self.snapshot_of(|_| true)
    }

    /// [`snapshot`](Self::snapshot) of the lines after the checkpoint
    /// `wanted` says.
    fn snapshot_of(&self, wanted: impl Fn(&Slot) -> bool) -> LinesSnapshot {
        LinesSnapshot {
            base: self.base.clone(),
            base_writers: self.base_writers.clone(),
            writer_ids: self.writers.iter().map(|w| w.id.clone()).collect(),
            tail: (self.entries.iter())
                .filter(|(_, slot)| wanted(slot))
                .map(|(key, slot)| (key.clone(), slot.stamp, slot.line.clone()))
                .collect(),
        }
    }

    /// The checkpoint this index reads, for a reader that reads it without
    /// the lock ([`Index::snapshot_asked`]).
    pub fn base(&self) -> Option<Arc<Base>> {
        self.base.clone()
    }

    /// [`snapshot`](Self::snapshot) for [`LinesSnapshot::newest_needed_of`],
    /// if this index still reads the checkpoint `base` (`None` else): of
    /// the lines after it, those `log_asked` asks for by where they are
    /// (every line of a log asked whole; past the first bytes of one asked
    /// past them), and those of a key whose hash is in `shadowing` (the
    /// checkpoint's lines asked for: a newer line of their key hides
    /// them). The others are copied under the lock for nothing: the
    /// compaction that asks copies none of them, and most of the lines
    /// after the checkpoint are in the segments it keeps (a snapshot of
    /// every one held the lock 110-150 µs in a bounded store, as writes
    /// waited). `shadowing` `None`: every line.
    pub fn snapshot_asked(
        &self,
        base: Option<&Arc<Base>>,
        log_asked: &dyn Fn(&str) -> checkpoint::Asked,
        shadowing: Option<&std::collections::HashSet<u64, RandomState>>,
    ) -> Option<LinesSnapshot> {
        let same = match (base, &self.base) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            (None, None) => true,
            _ => false,
        };
        if !same {
            return None;
        }
        let Some(shadowing) = shadowing else {
            return Some(self.snapshot());
        };
        let asked: Vec<checkpoint::Asked> = self.writers.iter().map(|w| log_asked(&w.id)).collect();
        let wanted = |slot: &Slot| {
            let by_place = match asked.get(slot.stamp.writer as usize) {
                Some(checkpoint::Asked::PastFirst(read)) => slot.at >= *read,
                _ => true,
            };
            by_place || shadowing.contains(&slot.hash)
        };
        Some(self.snapshot_of(wanted))
    }

    /// What [`LinesSnapshot::live_bytes_by_log`] needs of the lines after
    /// the checkpoint, copied under the lock without a key or a line
    /// shared (a compaction choosing its segments takes it as writes wait
    /// for the lock: a snapshot of 3,000 lines held it 110-150 µs, each
    /// line's and key's count a cache miss).
    pub fn sizes(&self) -> SizesSnapshot {
        SizesSnapshot {
            base: self.base.clone(),
            base_writers: self.base_writers.clone(),
            writer_ids: self.writers.iter().map(|w| w.id.clone()).collect(),
            tail: (self.entries.values())
                .map(|slot| {
                    let bytes = slot.line.as_ref().map_or(0, |l| l.len() as u64 + 1);
                    (slot.hash, slot.stamp, bytes)
                })
                .collect(),
        }
    }

    /// Checks the checkpoint whole: every table block, every line it
    /// points at. Returns the keys it holds.
    pub fn verify_checkpoint(&self) -> Result<usize, Damaged> {
        match &self.base {
            Some(base) => base.verify(),
            None => Ok(0),
        }
    }
}

/// What the index says about one live entry.
#[derive(Debug, Clone, PartialEq)]
pub struct EntryInfo {
    /// The key.
    pub key: String,
    /// The value's type wire name (none for raw bytes).
    pub type_name: Option<String>,
    /// The writer's schema fingerprint.
    pub fingerprint: Option<String>,
    /// The handler holding the payload.
    pub handler: String,
    /// The serialization.
    pub mode: Mode,
    /// The payload size in bytes.
    pub size: u64,
    /// The handler's info.
    pub info: Info,
    /// The files and ranges the entry holds outside its line, as its dump
    /// recorded them (see [`Part`](crate::Part)): `None` when it recorded
    /// none (a built-in handler's entry, or one written before entries
    /// recorded their bytes).
    pub parts: Option<Vec<crate::Part>>,
    /// When the entry expires, in nanoseconds since the Unix epoch
    /// ([`PutOptions::ttl`](crate::PutOptions::ttl)); `None`: never.
    pub expires: Option<u64>,
}

impl EntryInfo {
    /// The dtype and shape of an array stored with `put_array`.
    pub fn array_type(&self) -> Option<(String, Vec<usize>)> {
        match self.handler.as_str() {
            layout::ARRAY => parse_array_type(self.type_name.as_deref()?),
            _ => None,
        }
    }

    /// The entry a live index line describes; `None` for a removal.
    pub(super) fn of_line(line: &LineView<'_>) -> Result<Option<EntryInfo>, StoreError> {
        let Some(handler) = &line.handler else {
            return Ok(None);
        };
        let owned = |s: &Option<std::borrow::Cow<'_, str>>| s.as_deref().map(str::to_owned);
        let mut info = line.info().map_err(|e| corrupt_line(&line.key, e))?;
        let parts = match crate::content::parts::Part::of_info(&info) {
            None => None,
            Some(Ok(parts)) => Some(parts),
            Some(Err(message)) => {
                return Err(StoreError::Corrupt {
                    key: line.key.clone().into_owned(),
                    message,
                })
            }
        };
        info.remove(crate::layout::PARTS);
        Ok(Some(EntryInfo {
            key: line.key.clone().into_owned(),
            type_name: owned(&line.type_name),
            fingerprint: owned(&line.fingerprint),
            handler: handler.clone().into_owned(),
            mode: line.mode,
            size: line.size,
            info,
            parts,
            expires: line.expires,
        }))
    }
}

/// `ndarray<<f8>[2, 3]` -> (`<f8`, [2, 3]): the type name `put_array` writes.
pub(super) fn parse_array_type(name: &str) -> Option<(String, Vec<usize>)> {
    let rest = name.strip_prefix("ndarray<")?;
    let (dtype, shape) = rest.split_once('>')?;
    let shape = shape.strip_prefix('[')?.strip_suffix(']')?;
    let dims = if shape.trim().is_empty() {
        Vec::new()
    } else {
        shape
            .split(',')
            .map(|d| d.trim().parse().ok())
            .collect::<Option<Vec<usize>>>()?
    };
    Some((dtype.to_owned(), dims))
}

/// A checked index line that does not read as one (an impossible state
/// unless memory is damaged: lines are parsed when read from disk).
pub(super) fn corrupt_line(key: &str, e: codec_runtime::DecodeError) -> StoreError {
    StoreError::Corrupt {
        key: key.to_owned(),
        message: format!("index line: {e}"),
    }
}

/// Whether the entry of a live line's text expired at `now`: most lines
/// have no expiry, seen without parsing them.
pub(crate) fn line_expired(text: &str, now: u64) -> bool {
    text.contains(r#""expires":"#)
        && LineView::parse(text).is_ok_and(|v| v.expires.is_some_and(|at| at <= now))
}

/// The view of a line the index returned for `key`.
pub(super) fn view<'a>(key: &'a str, found: &'a Found) -> Result<LineView<'a>, StoreError> {
    found.view(key).map_err(|e| corrupt_line(key, e))
}

/// A key's latest line and where it stands; `None` if it removed the key.
type Latest = (Stamp, Option<Arc<str>>);

/// The index's live lines as they were: see [`Index::snapshot`].
pub struct LinesSnapshot {
    base: Option<Arc<Base>>,
    base_writers: Vec<u32>,
    writer_ids: Vec<Box<str>>,
    tail: Vec<(Arc<str>, Stamp, Option<Arc<str>>)>,
}

impl LinesSnapshot {
    /// Every live key and its line, the latest of the checkpoint's and
    /// the tail's; an entry expired at `now` is not live.
    pub fn lines(self, now: u64) -> Result<Vec<LiveLine>, Damaged> {
        Ok(self
            .latest(now)?
            .into_iter()
            .filter_map(|(key, (_, line))| Some((key, line?)))
            .collect())
    }

    /// Each key whose latest line the caller asks for (of each log, what
    /// `log_asked` says, by the writer id of the log, a segment's own;
    /// where it says so, the lines `line_asked` says, by their bytes), and
    /// those of the lines after the checkpoint: that line (`None` if it
    /// removed the key or expired at `now`) and the writer id. The lines
    /// of the checkpoint not asked for are not read ([`Base::needed`]): a
    /// compaction copies few of the store's lines.
    pub fn newest_needed(
        self,
        now: u64,
        log_asked: &dyn Fn(&str) -> checkpoint::Asked,
        line_asked: &dyn Fn(&[u8]) -> bool,
    ) -> Result<Vec<NewestLine>, Damaged> {
        let found = match &self.base {
            Some(base) => base.needed(log_asked, line_asked)?,
            None => None,
        };
        self.newest_needed_of(found, now, log_asked, line_asked)
    }

    /// [`newest_needed`](Self::newest_needed), with what the checkpoint's
    /// [`Base::needed`] read (`found`) for the same `log_asked` and
    /// `line_asked`.
    pub fn newest_needed_of(
        self,
        found: Option<checkpoint::Needed>,
        now: u64,
        log_asked: &dyn Fn(&str) -> checkpoint::Asked,
        line_asked: &dyn Fn(&[u8]) -> bool,
    ) -> Result<Vec<NewestLine>, Damaged> {
        let ids: Vec<Arc<str>> = self.writer_ids.iter().map(|id| Arc::from(&**id)).collect();
        let all = match (&self.base, found) {
            (Some(base), Some(found)) => self.tail_over_needed(base, found, now)?,
            // Two keys of one hash, or no checkpoint: every line read.
            _ => {
                let mut all = self.latest(now)?;
                all.retain(|_, latest| {
                    let id = &ids[latest.0.writer as usize];
                    let text = latest.1.as_deref().unwrap_or("");
                    latest.1.is_none()
                        || log_asked(id) == checkpoint::Asked::Every
                        || line_asked(text.as_bytes())
                });
                all
            }
        };
        Ok(all
            .into_iter()
            .map(|(key, (stamp, line))| (key, line, ids[stamp.writer as usize].clone()))
            .collect())
    }

    /// The lines of the checkpoint `found` read, merged with the tail's:
    /// a line of the tail is the latest of its key unless the checkpoint
    /// holds a newer one (looked up where its hash says it may).
    fn tail_over_needed(
        &self,
        base: &Base,
        found: checkpoint::Needed,
        now: u64,
    ) -> Result<HashMap<Box<str>, Latest, RandomState>, Damaged> {
        let stamp_of = |time: u64, writer: u32, seq: u64| Stamp {
            time,
            writer: self.base_writers[writer as usize],
            seq,
        };
        let mut all: HashMap<Box<str>, Latest, RandomState> = HashMap::with_capacity_and_hasher(
            found.lines.len() + self.tail.len(),
            RandomState::default(),
        );
        for (key, hit) in found.lines {
            let expired = hit.expires.is_some_and(|at| at <= now);
            let stamp = stamp_of(hit.time, hit.writer, hit.seq);
            all.insert(key, (stamp, hit.text.filter(|_| !expired)));
        }
        let ids = &self.writer_ids;
        let newer = |a: Stamp, b: Stamp| newer_by(|n| &ids[n as usize], a, b);
        for (key, stamp, line) in &self.tail {
            let line = line.clone().filter(|text| !line_expired(text, now));
            match all.get_mut(&**key) {
                Some(current) if !newer(*stamp, current.0) => continue,
                Some(current) => {
                    *current = (*stamp, line);
                    continue;
                }
                None => {}
            }
            // Whether the checkpoint's newest line of the hash is older,
            // or else the key's own, looked up.
            let latest = match found.newest.get(&table::key_hash(key)) {
                None => true,
                Some(&(time, writer)) => {
                    let id = |n: u32| &*ids[n as usize];
                    let base_id = id(self.base_writers[writer as usize]);
                    (stamp.time, id(stamp.writer)) > (time, base_id)
                        || match base.lookup(key)? {
                            Some(hit) => newer(*stamp, stamp_of(hit.time, hit.writer, hit.seq)),
                            None => true,
                        }
                }
            };
            if latest {
                all.insert(Box::from(&**key), (*stamp, line));
            }
        }
        Ok(all)
    }

    /// The latest line of each key read; `None` for one that removed the
    /// key or expired at `now` (either hides the older lines).
    fn latest(self, now: u64) -> Result<HashMap<Box<str>, Latest, RandomState>, Damaged> {
        let base = match &self.base {
            Some(base) => base.all()?,
            None => HashMap::default(),
        };
        let mut all: HashMap<Box<str>, Latest, RandomState> =
            HashMap::with_capacity_and_hasher(base.len() + self.tail.len(), RandomState::default());
        for (key, hit) in base {
            let stamp = Stamp {
                time: hit.time,
                writer: self.base_writers[hit.writer as usize],
                seq: hit.seq,
            };
            // The checkpoint's lines were read whole: their expiry is known.
            let expired = hit.expires.is_some_and(|at| at <= now);
            all.insert(key, (stamp, hit.text.filter(|_| !expired)));
        }
        let ids = &self.writer_ids;
        let newer = |a: Stamp, b: Stamp| newer_by(|n| &ids[n as usize], a, b);
        for (key, stamp, line) in self.tail {
            let line = line.filter(|text| !line_expired(text, now));
            match all.get_mut(&*key) {
                Some(current) if !newer(stamp, current.0) => {}
                Some(current) => *current = (stamp, line),
                None => {
                    all.insert(Box::from(&*key), (stamp, line));
                }
            }
        }
        Ok(all)
    }
}

/// What the index holds of each line's size ([`Index::sizes`]): the
/// checkpoint, and the lines after it by their key's hash, stamp and bytes
/// (0 for a removal), newlines counted.
pub struct SizesSnapshot {
    base: Option<Arc<Base>>,
    base_writers: Vec<u32>,
    writer_ids: Vec<Box<str>>,
    tail: Vec<(u64, Stamp, u64)>,
}

impl SizesSnapshot {
    /// About how many bytes of live lines each writer's log holds (by the
    /// log's writer id: a segment's own), newlines counted: from the
    /// checkpoint's table entries and the lines after it, keys told apart
    /// by their hash alone, and no line of the checkpoint read.
    pub fn live_bytes_by_log(self) -> Result<HashMap<Box<str>, u64>, Damaged> {
        let ids = &self.writer_ids;
        // By key hash: the latest line's time, writer and bytes (0 for a
        // removal).
        let mut latest: HashMap<u64, (u64, u32, u64)> = HashMap::new();
        let mut note = |hash: u64, time: u64, writer: u32, bytes: u64| {
            let newer = latest
                .get(&hash)
                .is_none_or(|&(t, w, _)| (time, &ids[writer as usize]) > (t, &ids[w as usize]));
            if newer {
                latest.insert(hash, (time, writer, bytes));
            }
        };
        if let Some(base) = &self.base {
            for e in base.entries() {
                let e = e?;
                let bytes = if e.removed { 0 } else { u64::from(e.len) + 1 };
                note(e.hash, e.time, self.base_writers[e.writer as usize], bytes);
            }
        }
        for &(hash, stamp, bytes) in &self.tail {
            note(hash, stamp.time, stamp.writer, bytes);
        }
        let mut by_log: HashMap<Box<str>, u64> = HashMap::new();
        for (_, writer, bytes) in latest.into_values() {
            *by_log.entry(ids[writer as usize].clone()).or_default() += bytes;
        }
        Ok(by_log)
    }
}

/// The live line of a key: the checkpoint's newest line of it (`hit`) if
/// there is one and `base_newer` says it is newer than the line read
/// after the checkpoint, else that line (`after`, if any).
fn latest(
    hit: Option<Hit>,
    base_newer: impl FnOnce(&Hit) -> bool,
    after: impl FnOnce() -> Option<Option<Found>>,
) -> Option<Option<Found>> {
    if let Some(hit) = hit.filter(|hit| base_newer(hit)) {
        return Some(hit.text.map(|text| Found {
            text,
            spans: hit.spans,
            time: hit.time,
            seq: hit.seq,
        }));
    }
    after()
}

/// Some keys' lines after the checkpoint and the checkpoint, as
/// [`Index::aside`] took them under the index's lock.
pub struct Aside {
    base: Option<Arc<Base>>,
    after: Vec<Option<After>>,
}

/// A key's line after the checkpoint, with its writer's id (the index's
/// writer numbers may change once the lock is let go).
struct After {
    time: u64,
    writer: Box<str>,
    seq: u64,
    line: Option<Arc<str>>,
    spans: Option<Spans>,
}

impl Aside {
    /// The live line of each of `keys` (those [`Index::aside`] was given,
    /// in its order), as [`Index::get`] would have found it when
    /// the lines were taken.
    pub fn found(self, keys: &[&str]) -> Vec<Result<Option<Option<Found>>, Damaged>> {
        let Aside { base, after } = self;
        (keys.iter().zip(after))
            .map(|(key, after)| {
                let hit = match &base {
                    Some(base) => base.lookup(key)?,
                    None => None,
                };
                let writer_ids = base.as_ref().map_or(&[][..], |base| base.writer_ids());
                // As `newer_by` orders stamps: time, writer id, sequence.
                let base_newer = hit.as_ref().is_some_and(|hit| {
                    after.as_ref().is_none_or(|after| {
                        (hit.time, &*writer_ids[hit.writer as usize], hit.seq)
                            > (after.time, &*after.writer, after.seq)
                    })
                });
                Ok(latest(
                    hit,
                    |_| base_newer,
                    || {
                        let after = after?;
                        Some(after.line.map(|text| Found {
                            text,
                            spans: after.spans,
                            time: after.time,
                            seq: after.seq,
                        }))
                    },
                ))
            })
            .collect()
    }
}

fn newer(writers: &[WriterFile], a: Stamp, b: Stamp) -> bool {
    newer_by(|n| &writers[n as usize].id, a, b)
}

/// Whether `a` is the later stamp: by time, then by the id of its writer
/// (`id` of a writer number), then by sequence.
fn newer_by<'w>(id: impl Fn(u32) -> &'w str, a: Stamp, b: Stamp) -> bool {
    (a.time, id(a.writer), a.seq) > (b.time, id(b.writer), b.seq)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn put(index: &mut Index, key: &str, time: u64) {
        let writer = index.writer("w1");
        let stamp = Stamp {
            time,
            writer,
            seq: time,
        };
        let line = Some((r#"{"k":"x"}"#, OnceLock::new()));
        index.apply(key, stamp, time * 10, line);
    }

    /// A line after the checkpoint is the latest of its key only if the
    /// checkpoint holds none newer: another writer's line, timed before
    /// the one the checkpoint covers, is not (a compaction would copy it
    /// for nothing); and the lines of the checkpoint not asked for are
    /// left out.
    #[test]
    fn a_line_after_the_checkpoint_older_than_the_checkpoint_s_is_not_the_latest() {
        use crate::{Cache, CacheOptions};
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (
            Cache::open_with(dir.path(), CacheOptions::default()).unwrap(),
            Cache::open_with(dir.path(), CacheOptions::default()).unwrap(),
        );
        b.put("k", &2u32).unwrap();
        b.put("b only", &2u32).unwrap();
        let newer = b.lookup("k").unwrap().unwrap().time;
        b.admin().checkpoint().unwrap();
        a.writer.lock().pinned_time = Some(newer - 1000);
        a.put("k", &1u32).unwrap();
        a.put("a only", &1u32).unwrap();
        a.writer.lock().pinned_time = None;
        a.refresh().unwrap();
        let latest = |asked: bool| {
            let snapshot = a.index.read().snapshot();
            let log = |_: &str| match asked {
                true => checkpoint::Asked::Every,
                false => checkpoint::Asked::PastFirst(0),
            };
            let lines = snapshot.newest_needed(u64::MAX, &log, &|_| false);
            let mut lines: Vec<(String, u64)> = (lines.unwrap().into_iter())
                .map(|(key, line, _)| {
                    let time = LineView::parse(&line.unwrap()).unwrap().time;
                    (key.into(), time)
                })
                .collect();
            lines.sort();
            lines
        };
        let every = latest(true);
        assert_eq!(every.iter().find(|(key, _)| key == "k").unwrap().1, newer);
        assert_eq!(every.len(), 3);
        // None of the checkpoint's asked for: the lines after it alone.
        let keys: Vec<String> = latest(false).into_iter().map(|(k, _)| k).collect();
        assert_eq!(keys, ["a only"]);
    }

    /// An index read again aside, once a compaction retired what it read,
    /// keeps in its place the keys changed and the warnings the index
    /// recorded while it read: a write of the handle meanwhile is one
    /// the next pass of the bounds must read.
    #[test]
    fn an_index_read_again_aside_keeps_what_the_index_recorded_meanwhile() {
        let mut index = Index::default();
        put(&mut index, "before", 1);
        index.take_changes(true);
        // The handle's own compaction retired what it read: its copies
        // change nothing live.
        index.copies_read("w2");
        let mut fresh = index.forgotten();
        put(&mut fresh, "read again", 2);
        fresh.warnings.push("fresh".into());
        put(&mut index, "meanwhile", 3);
        index.warnings.push("old".into());
        drop(index.take_over(fresh));
        let changes = index.take_changes(false).expect("recorded");
        assert!(!changes.whole);
        assert_eq!(changes.keys(), ["meanwhile".into(), "read again".into()]);
        assert_eq!(index.warnings, ["old", "fresh"]);
        assert!(index.get("read again").unwrap().is_some());
        assert!(index.copies_read.is_empty() && index.read_before.is_empty());
    }

    /// Keys changed recorded from after the reading aside started, which
    /// recorded none: the whole store is to be read.
    #[test]
    fn an_index_that_records_changes_only_since_it_was_read_aside_asks_for_all() {
        let mut index = Index::default();
        let fresh = index.forgotten();
        index.take_changes(true);
        index.copies_read("w2");
        drop(index.take_over(fresh));
        assert!(index.take_changes(false).expect("recorded").whole);
    }

    /// Another handle's compaction retired what the index read: lines it
    /// never read may be gone (a put and the removal after it), so the
    /// whole store is to be read, whatever the reading aside recorded.
    #[test]
    fn an_index_read_again_after_another_s_compaction_asks_for_all() {
        let mut index = Index::default();
        put(&mut index, "before", 1);
        index.take_changes(true);
        let mut fresh = index.forgotten();
        put(&mut fresh, "read again", 2);
        drop(index.take_over(fresh));
        assert!(index.take_changes(false).expect("recorded").whole);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]

        /// A key's line looked up aside (the lines after the checkpoint
        /// under the lock, the checkpoint after it) is the one `get`
        /// finds: two handles' puts and removals, timed out of order, and
        /// checkpoints between them, so that the checkpoint's line and
        /// the one after it each win.
        #[test]
        fn a_key_looked_up_aside_is_found_as_get_finds_it(
            ops in proptest::collection::vec((0..2usize, 0..5u8, 0..8u8, 0..4000u64), 1..40),
        ) {
            use crate::{Cache, CacheOptions};
            let dir = tempfile::tempdir().unwrap();
            let handles = [
                Cache::open_with(dir.path(), CacheOptions::default()).unwrap(),
                Cache::open_with(dir.path(), CacheOptions::default()).unwrap(),
            ];
            let start = crate::cache::now_nanos();
            for (h, key, op, time) in ops {
                let cache = &handles[h];
                let key = format!("k{key}");
                cache.writer.lock().pinned_time = Some(start + time);
                match op {
                    0 => drop(cache.remove(&key).unwrap()),
                    1 => cache.admin().checkpoint().map(drop).unwrap(),
                    _ => cache.put(&key, &time).unwrap(),
                }
                cache.writer.lock().pinned_time = None;
            }
            let keys: Vec<String> = (0..6).map(|k| format!("k{k}")).collect();
            let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
            let seen = |found: Result<Option<Option<Found>>, Damaged>| {
                // Spans aside: a line this handle wrote is parsed by `get`
                // and left for the caller of `found` to parse.
                (found.map(|f| f.map(|f| f.map(|f| (f.text.to_string(), f.time, f.seq)))))
                    .map_err(|damaged| damaged.0)
            };
            for cache in &handles {
                cache.refresh().unwrap();
                let index = cache.index.read();
                let aside = index.aside(&keys).found(&keys);
                for (key, aside) in keys.iter().zip(aside) {
                    proptest::prop_assert_eq!(seen(aside), seen(index.get(key)), "{}", key);
                }
            }
        }
    }

    /// Whether `index` holds a line the checkpoint it took up covers.
    fn holds_a_covered_line(index: &Index) -> bool {
        (index.entries.values())
            .any(|slot| slot.at < index.writers[slot.stamp.writer as usize].covered)
    }

    /// A checkpoint taken up aside takes the lines it covers out of the
    /// index in steps, each under a taking of the lock of its own: a
    /// write waits for one step, not for every line read since the last
    /// checkpoint.
    #[test]
    fn a_checkpoint_taken_up_aside_sweeps_the_lines_it_covers_in_steps() {
        use crate::{Cache, CacheOptions};
        let dir = tempfile::tempdir().unwrap();
        let manual = CacheOptions::default().checkpoint_bytes(0);
        let reader = Cache::open_with(dir.path(), manual.clone()).unwrap();
        let writer = Cache::open_with(dir.path(), manual).unwrap();
        writer.put("first", &0u32).unwrap();
        writer.admin().checkpoint().unwrap();
        reader.refresh().unwrap();
        let lines = 3 * SWEEP_STEP + 10;
        for i in 0..lines {
            writer.put(&format!("k{i}"), &i).unwrap();
        }
        reader.refresh().unwrap();
        assert_eq!(reader.index.read().entries.len(), lines);
        writer.admin().checkpoint().unwrap();
        SWEEP_STEPS.set(0);
        Index::adopt_aside(&reader.index, &reader.backend).unwrap();
        assert_eq!(SWEEP_STEPS.get(), 4);
        let index = reader.index.read();
        assert!(index.entries.is_empty());
        assert_eq!(index.applied.len, 0);
        drop(index);
        for i in [0, SWEEP_STEP, lines - 1] {
            assert_eq!(reader.get::<usize>(&format!("k{i}")).unwrap(), Some(i));
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(32))]

        /// Whatever order handles write, remove, take checkpoints and
        /// refresh in, each ends holding no line its checkpoint covers,
        /// and finds what a handle opened afresh finds.
        #[test]
        fn a_swept_index_finds_what_a_fresh_one_finds(
            ops in proptest::collection::vec((0..2usize, 0..6u8, 0..10u8), 1..80),
        ) {
            use crate::{Cache, CacheOptions};
            let dir = tempfile::tempdir().unwrap();
            let manual = CacheOptions::default().checkpoint_bytes(0);
            let handles = [
                Cache::open_with(dir.path(), manual.clone()).unwrap(),
                Cache::open_with(dir.path(), manual.clone()).unwrap(),
            ];
            for (h, key, op) in ops {
                let cache = &handles[h];
                let key = format!("k{key}");
                match op {
                    0 => drop(cache.remove(&key).unwrap()),
                    1 => cache.admin().checkpoint().map(drop).unwrap(),
                    2 => cache.refresh().unwrap(),
                    _ => cache.put(&key, &u32::from(op)).unwrap(),
                }
            }
            let fresh = Cache::open_with(dir.path(), manual).unwrap();
            for cache in &handles {
                cache.refresh().unwrap();
                proptest::prop_assert!(!holds_a_covered_line(&cache.index.read()));
                for k in 0..6 {
                    let key = format!("k{k}");
                    proptest::prop_assert_eq!(
                        cache.get::<u32>(&key).unwrap(),
                        fresh.get::<u32>(&key).unwrap(),
                        "{}", key
                    );
                }
            }
        }
    }

    /// A snapshot taken under the index's lock, where each write waits,
    /// copies no key and no line: it shares them.
    #[test]
    fn a_snapshot_shares_the_keys_and_lines_of_the_index() {
        let mut index = Index::default();
        let writer = index.writer("w");
        let line = r#"{"k":"key","t":1,"s":1,"h":"json","m":"json","n":2}"#;
        let stamp = Stamp {
            time: 1,
            writer,
            seq: 1,
        };
        index.apply("key", stamp, 0, Some((line, OnceLock::new())));
        let snapshot = index.snapshot();
        let (key, slot) = index.entries.iter().next().unwrap();
        let (shot_key, _, shot_line) = &snapshot.tail[0];
        assert!(Arc::ptr_eq(key, shot_key), "the key was copied");
        assert!(Arc::ptr_eq(
            slot.line.as_ref().unwrap(),
            shot_line.as_ref().unwrap()
        ));
    }

    /// The sizes of the lines after the checkpoint count each key once,
    /// by its latest line (a removal counts none), in that line's log.
    #[test]
    fn the_live_bytes_of_each_log_count_each_key_s_latest_line() {
        let mut index = Index::default();
        let (a, b) = (index.writer("a"), index.writer("b"));
        let mut put = |key: &str, writer: u32, time: u64, line: Option<&str>| {
            let stamp = Stamp {
                time,
                writer,
                seq: time,
            };
            index.apply(key, stamp, time * 100, line.map(|l| (l, OnceLock::new())));
        };
        put("k1", a, 1, Some("1234"));
        put("k2", a, 2, Some("12345678"));
        put("k1", b, 3, Some("12"));
        put("k3", b, 4, Some("123"));
        put("k3", a, 5, None);
        let live = index.sizes().live_bytes_by_log().unwrap();
        // k2's 8 bytes and a newline in a; k1's latest, 2 and a newline,
        // in b; k3 removed.
        assert_eq!(live.get("a"), Some(&9));
        assert_eq!(live.get("b"), Some(&3));
    }

    /// Of the lines after the checkpoint, a compaction's snapshot copies
    /// those in the places it asks for, and those of the keys whose
    /// checkpoint line it asked for (a newer line hides it); not the
    /// others.
    #[test]
    fn a_compaction_s_snapshot_copies_the_lines_it_asks_for_and_those_that_hide_them() {
        use std::collections::HashSet;

        use checkpoint::Asked;
        let mut index = Index::default();
        let (kept, retired) = (index.writer("kept"), index.writer("retired"));
        let mut put = |key: &str, writer: u32, at: u64| {
            let stamp = Stamp {
                time: at + 1,
                writer,
                seq: at,
            };
            index.apply(key, stamp, at, Some(("{}", OnceLock::new())));
        };
        put("read before", kept, 10);
        put("hides one asked", kept, 20);
        put("past what was read", kept, 200);
        put("in a log retired", retired, 30);
        let log_asked = |log: &str| match log {
            "kept" => Asked::PastFirst(100),
            _ => Asked::Every,
        };
        let shadowing: HashSet<u64, RandomState> =
            [table::key_hash("hides one asked")].into_iter().collect();
        let snapshot = index
            .snapshot_asked(None, &log_asked, Some(&shadowing))
            .unwrap();
        let mut keys: Vec<&str> = snapshot.tail.iter().map(|(k, _, _)| &**k).collect();
        keys.sort_unstable();
        assert_eq!(
            keys,
            ["hides one asked", "in a log retired", "past what was read"]
        );
        // Without what the checkpoint's lines asked for, every line.
        let every = index.snapshot_asked(None, &log_asked, None).unwrap();
        assert_eq!(every.tail.len(), 4);
    }

    /// A compaction's snapshot of the lines after a checkpoint the index
    /// no longer reads is none: they are not those after the one taken up.
    #[test]
    fn a_compaction_s_snapshot_after_a_checkpoint_no_longer_read_is_none() {
        let dir = tempfile::tempdir().unwrap();
        let cache = crate::Cache::open(dir.path()).unwrap();
        let every = |_: &str| checkpoint::Asked::Every;
        cache.put("k", &1u32).unwrap();
        cache.admin().checkpoint().unwrap();
        cache.refresh().unwrap();
        let read = cache.index.read().base();
        assert!(read.is_some());
        assert!(cache
            .index
            .read()
            .snapshot_asked(read.as_ref(), &every, None)
            .is_some());
        cache.put("k2", &1u32).unwrap();
        cache.admin().checkpoint().unwrap();
        cache.refresh().unwrap();
        let index = cache.index.read();
        assert!(index.snapshot_asked(read.as_ref(), &every, None).is_none());
        assert!(index.snapshot_asked(None, &every, None).is_none());
    }
}
