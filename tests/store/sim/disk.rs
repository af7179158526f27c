//! The simulated disk: the store's objects in memory, with what a power
//! cut keeps apart from what a process sees, and faults drawn from the
//! run's seed.
//!
//! Each handle of a run reaches the disk through a [`View`] of its own,
//! so that one handle can crash (every later call of its view fails)
//! while the others go on. Every call of a view is one step of the trace
//! and may draw a fault: an I/O error or a full disk before the call does
//! anything, a timeout after it did or did not apply, a lost response to a
//! conditional write that a retry then finds taken, or the crash of the
//! view's handle (before or after the call applies).
//!
//! What survives a power cut, as a file system allows: an object written
//! or created with `sync`, or named by a later `sync`, is kept as it was
//! then; a log's or data object's appends not synced are kept up to a cut
//! at any byte of them (whole appends before it, one cut short, none
//! after); any other object written without `sync` is kept, lost (its
//! name and bytes: a create or a rename not made durable), or cut short.
//! On a disk whose logs and data objects grow in place (as a folder's
//! files do), an append that fails may leave part of its bytes, and a
//! power cut keeps an object's synced bytes and the rest up to a cut.
//! Conditional replaces are durable once done, as the object stores and
//! the folder backend make them. Deletes are durable once done.
//!
//! A disk whose objects grow in place has a folder's locks too: named
//! locks, shared or alone, that go with their holder (a crashed view
//! holds none), and a lock on each log while its appender lives, so that
//! the log of a handle that is gone is taken up by the next one
//! ([`Backend::take_up_log`]); and maps, which keep the bytes of an
//! object as they were when mapped, deleted or not. One thread runs
//! every handle of a run: a lock that would wait for another holder
//! would wait forever, and fails the run.

use std::collections::{BTreeMap, BTreeSet};
use std::io;
use std::ops::Range;
use std::sync::Arc;
use std::sync::{Mutex, MutexGuard};

use codec::store::backend::memory::Memory;
use codec::store::backend::{
    Appended, Appender, Appends, Backend, BackendError, Created, Listed, Lock, Locking, Locks,
    Mapped, Maps, Replaced, Segments, Version,
};

use super::rng::Rng;
use super::trace::Trace;

/// How often each fault is drawn, per call of a view (out of 1 000).
#[derive(Debug, Clone, Copy, Default)]
pub struct Rates {
    /// An I/O error before the call applies (EIO, or ENOSPC for writes).
    pub error: u32,
    /// A timeout: the call applies or not, and fails.
    pub timeout: u32,
    /// A conditional write's response lost and the request retried: it
    /// applied, and the retry finds the object taken or changed.
    pub lost_response: u32,
    /// The handle crashes at this call (before or after it applies).
    pub crash: u32,
}

/// The disk shared by every view of a run.
pub struct Disk {
    inner: Mutex<State>,
}

struct State {
    rng: Rng,
    rates: Rates,
    /// What a process sees: the in-memory store, which gives each
    /// object a version of its own for conditional replaces.
    mem: Memory,
    /// What a power cut keeps for sure, per object: `None` for an object
    /// no power cut keeps.
    durable: BTreeMap<String, Option<Arc<[u8]>>>,
    /// Objects whose bytes differ from their durable ones.
    pending: BTreeSet<String>,
    /// Appends not synced, per appender, in order.
    chains: BTreeMap<u64, Vec<String>>,
    next_chain: u64,
    /// Whether appends grow their object in place (as in a folder) rather
    /// than making one object each.
    in_place: bool,
    /// Objects appended to in place: a power cut keeps their synced
    /// bytes and a cut of the rest.
    grown: BTreeSet<String>,
    /// Views whose handle crashed.
    dead: BTreeSet<u64>,
    /// Locks held, by token: the lock's name, the view holding it, and
    /// whether it holds it alone (a log's lock is named `log <name>`).
    held: BTreeMap<u64, (String, u64, bool)>,
    next_token: u64,
    /// Views that draw no faults (the checker's).
    calm: BTreeSet<u64>,
    /// The calls each view made so far.
    calls: BTreeMap<u64, u64>,
    /// A crash planned: of view `.0` at its call number `.1`, after the
    /// call applies if `.2` (and the call can apply).
    crash_at: Option<(u64, u64, bool)>,
    /// Whether another handle's commit of the manifest comes first, at
    /// one conditional replace of it in three that draws no other fault.
    overtake: bool,
    next_view: u64,
    trace: Trace,
}

/// A fault drawn for one call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fault {
    None,
    Error,
    TimeoutApplied,
    TimeoutNotApplied,
    LostResponse,
    CrashBefore,
    CrashAfter,
}

impl Disk {
    /// An empty disk whose faults come from `rng` at `rates`.
    pub fn new(rng: Rng, rates: Rates, trace: Trace) -> Arc<Disk> {
        Arc::new(Disk {
            inner: Mutex::new(State {
                rng,
                rates,
                mem: Memory::new(),
                durable: BTreeMap::new(),
                pending: BTreeSet::new(),
                in_place: false,
                grown: BTreeSet::new(),
                chains: BTreeMap::new(),
                next_chain: 0,
                dead: BTreeSet::new(),
                held: BTreeMap::new(),
                next_token: 0,
                calm: BTreeSet::new(),
                calls: BTreeMap::new(),
                crash_at: None,
                overtake: false,
                next_view: 0,
                trace,
            }),
        })
    }

    /// An empty disk whose logs and data objects grow in place, as files
    /// do: an append that fails may leave part of its bytes.
    pub fn in_place(rng: Rng, rates: Rates, trace: Trace) -> Arc<Disk> {
        let disk = Disk::new(rng, rates, trace);
        lock(&disk.inner).in_place = true;
        disk
    }

    /// From now on, one commit of the manifest in three that draws no
    /// other fault finds that another handle committed first: the
    /// manifest is written again, the same bytes at a new version (its
    /// durability as it was), just before the conditional replace.
    pub fn overtake_commits(&self) {
        lock(&self.inner).overtake = true;
    }

    /// A view for a new handle; `calm` views draw no faults.
    pub fn view(self: &Arc<Disk>, calm: bool) -> Arc<View> {
        let mut s = lock(&self.inner);
        let id = s.next_view;
        s.next_view += 1;
        if calm {
            s.calm.insert(id);
        }
        Arc::new(View {
            disk: self.clone(),
            id,
        })
    }

    /// Crashes the handle of view `id` at its call number `call` (from 0,
    /// counting every call it made), after the call applies if `after`
    /// (and it is one that can apply), before it otherwise.
    pub fn crash_at(&self, id: u64, call: u64, after: bool) {
        lock(&self.inner).crash_at = Some((id, call, after));
    }

    /// The calls view `id` made so far.
    pub fn calls(&self, id: u64) -> u64 {
        lock(&self.inner).calls.get(&id).copied().unwrap_or(0)
    }

    /// Crashes the handle of view `id` now: every later call fails.
    pub fn crash(&self, id: u64) {
        lock(&self.inner).dead.insert(id);
    }

    /// A power cut: every handle crashes, and the objects become what the
    /// cut keeps of them, drawn from the seed.
    pub fn power_cut(&self) {
        self.cut(false)
    }

    /// The worst power cut: every handle crashes, and every object not
    /// durable is left empty (its name durable, none of its bytes).
    pub fn power_cut_emptying(&self) {
        self.cut(true)
    }

    fn cut(&self, emptying: bool) {
        let mut s = lock(&self.inner);
        let s = &mut *s;
        for id in 0..s.next_view {
            s.dead.insert(id);
        }
        let chains = std::mem::take(&mut s.chains);
        for (chain, names) in chains {
            let pending: Vec<(String, Vec<u8>)> = names
                .into_iter()
                .filter(|n| s.pending.contains(n))
                .filter_map(|n| s.bytes(&n).map(|b| (n, b)))
                .collect();
            let total: usize = pending.iter().map(|(_, b)| b.len()).sum();
            if total == 0 {
                continue;
            }
            let cut = if emptying {
                0
            } else {
                s.rng.below(total as u64 + 1) as usize
            };
            s.trace.push(format!(
                "power cut: appender {chain} keeps {cut} of {total} unsynced bytes"
            ));
            let mut at = 0;
            for (name, bytes) in pending {
                let starts = at;
                at += bytes.len();
                s.pending.remove(&name);
                let keep = (starts < cut || emptying)
                    .then(|| bytes[..cut.saturating_sub(starts).min(bytes.len())].into());
                s.durable.insert(name, keep);
            }
        }
        let pending = std::mem::take(&mut s.pending);
        for name in pending {
            let Some(bytes) = s.bytes(&name) else {
                continue;
            };
            if s.grown.contains(&name) {
                // What was synced, and the rest up to a cut at any byte.
                let synced = s.durable.get(&name).cloned().flatten();
                let from = synced.as_ref().map_or(0, |b| b.len());
                let cut = if emptying {
                    from
                } else {
                    from + s.rng.below((bytes.len() - from) as u64 + 1) as usize
                };
                s.trace.push(format!(
                    "power cut: {name} keeps {cut} of {} bytes ({from} synced)",
                    bytes.len()
                ));
                let keep = (synced.is_some() || cut > 0).then(|| bytes[..cut].into());
                s.durable.insert(name, keep);
                continue;
            }
            let keep = match if emptying { 3 } else { s.rng.below(3) } {
                3 => {
                    s.trace.push(format!("power cut: {name} left empty"));
                    Some(Vec::new().into())
                }
                0 => {
                    s.trace.push(format!("power cut: {name} not durable, lost"));
                    s.durable.get(&name).cloned().flatten()
                }
                1 => Some(bytes.into()),
                _ => {
                    let cut = s.rng.below(bytes.len() as u64 + 1) as usize;
                    s.trace.push(format!(
                        "power cut: {name} cut at byte {cut} of {}",
                        bytes.len()
                    ));
                    Some(bytes[..cut].into())
                }
            };
            s.durable.insert(name, keep);
        }
        s.mem = Memory::new();
        s.durable.retain(|_, bytes| bytes.is_some());
        for (name, bytes) in &s.durable {
            let bytes = bytes.as_deref().unwrap_or_default();
            s.mem
                .write(name, bytes, true)
                .expect("a name the store wrote");
        }
    }
}

impl Disk {
    /// The writers' logs as a process sees them: each log segment's name
    /// and bytes.
    pub fn logs(&self) -> Vec<(String, Vec<u8>)> {
        let s = lock(&self.inner);
        let listed = s.mem.list("").unwrap_or_default();
        listed
            .into_iter()
            .filter(|l| l.name.ends_with("-info.jsonl"))
            .filter_map(|l| Some((l.name.clone(), s.bytes(&l.name)?)))
            .collect()
    }
}

impl State {
    fn bytes(&self, name: &str) -> Option<Vec<u8>> {
        self.mem.read(name).ok().flatten()
    }

    /// The live view that keeps lock `name` from being taken (`alone`,
    /// or shared), if one does.
    fn holder(&self, name: &str, alone: bool) -> Option<u64> {
        (self.held.values())
            .find(|(held, view, by_itself)| {
                held == name && !self.dead.contains(view) && (alone || *by_itself)
            })
            .map(|&(_, view, _)| view)
    }

    /// Lock `name` held by `view`; its token.
    fn hold(&mut self, name: &str, view: u64, alone: bool) -> u64 {
        let token = self.next_token;
        self.next_token += 1;
        self.held.insert(token, (name.to_owned(), view, alone));
        token
    }
}

/// A lock a view holds, released when dropped (a locked file closed).
struct Holding {
    disk: Arc<Disk>,
    token: u64,
}

impl Drop for Holding {
    fn drop(&mut self) {
        lock(&self.disk.inner).held.remove(&self.token);
    }
}

/// The name of log `name`'s lock, held while an appender appends to it.
fn log_lock(name: &str) -> String {
    format!("log {name}")
}

/// Whether `name` is a writer's log segment.
fn is_log(name: &str) -> bool {
    name.ends_with(LOG_SUFFIX)
}

const LOG_SUFFIX: &str = "-info.jsonl";

/// The name of the log segment after log segment `name`
/// (`<writer>-info.jsonl`, then `<writer>.<n>-info.jsonl`).
fn next_segment(name: &str) -> String {
    let stem = name.strip_suffix(LOG_SUFFIX).unwrap_or(name);
    let (writer, n) = match stem.rsplit_once('.') {
        Some((writer, n)) if n.bytes().all(|b| b.is_ascii_digit()) => {
            (writer, n.parse::<u64>().unwrap_or(0))
        }
        _ => (stem, 0),
    };
    format!("{writer}.{}{LOG_SUFFIX}", n + 1)
}

/// One handle's way to the disk; a clone is the same handle's.
#[derive(Clone)]
pub struct View {
    disk: Arc<Disk>,
    id: u64,
}

impl View {
    /// Its id, to crash it by.
    pub fn id(&self) -> u64 {
        self.id
    }

    fn address_of(name: &str) -> String {
        format!("sim://{name}")
    }

    fn fail(op: &'static str, name: &str, kind: io::ErrorKind, why: &str) -> BackendError {
        BackendError::new(
            op,
            Self::address_of(name),
            io::Error::new(kind, why.to_owned()),
        )
    }

    /// The error of every call of a view whose handle crashed.
    fn crashed(op: &'static str, name: &str) -> BackendError {
        Self::fail(
            op,
            name,
            io::ErrorKind::BrokenPipe,
            "the handle crashed (simulated)",
        )
    }

    /// Draws the fault of one call (`mutates`: it can apply or not) and
    /// writes its trace line.
    fn draw(
        &self,
        s: &mut State,
        op: &'static str,
        name: &str,
        what: &str,
        mutates: bool,
    ) -> Fault {
        if s.dead.contains(&self.id) {
            return Fault::CrashBefore;
        }
        let call = s.calls.entry(self.id).or_insert(0);
        let this = *call;
        *call += 1;
        let planned = match s.crash_at {
            Some((id, at, after)) if id == self.id && at == this => Some(if after && mutates {
                Fault::CrashAfter
            } else {
                Fault::CrashBefore
            }),
            _ => None,
        };
        let fault = if let Some(planned) = planned {
            planned
        } else if s.calm.contains(&self.id) {
            Fault::None
        } else {
            let r = s.rates;
            let roll = s.rng.below(1000) as u32;
            let mut at = 0;
            let mut hit = |rate: u32| {
                at += rate;
                roll < at
            };
            if hit(r.crash) {
                if mutates && s.rng.below(2) == 0 {
                    Fault::CrashAfter
                } else {
                    Fault::CrashBefore
                }
            } else if hit(r.error) {
                Fault::Error
            } else if hit(r.timeout) {
                if mutates && s.rng.below(2) == 0 {
                    Fault::TimeoutApplied
                } else {
                    Fault::TimeoutNotApplied
                }
            } else if hit(r.lost_response) && matches!(op, "create" | "replace") {
                Fault::LostResponse
            } else {
                Fault::None
            }
        };
        let shown = match fault {
            Fault::None => String::new(),
            Fault::Error => " !error".into(),
            Fault::TimeoutApplied => " !timeout (applied)".into(),
            Fault::TimeoutNotApplied => " !timeout".into(),
            Fault::LostResponse => " !response lost, retried".into(),
            Fault::CrashBefore => " !crash".into(),
            Fault::CrashAfter => " !crash (applied)".into(),
        };
        s.trace
            .push(format!("h{} {op} {name}{what}{shown}", self.id));
        if matches!(fault, Fault::CrashBefore | Fault::CrashAfter) {
            s.dead.insert(self.id);
        }
        fault
    }

    /// The error a call fails with after `fault`, if it fails.
    fn error_of(op: &'static str, name: &str, fault: Fault) -> Option<BackendError> {
        match fault {
            Fault::None | Fault::LostResponse => None,
            Fault::Error if matches!(op, "write" | "create" | "append") => Some(Self::fail(
                op,
                name,
                io::ErrorKind::StorageFull,
                "no space left (simulated)",
            )),
            Fault::Error => Some(Self::fail(
                op,
                name,
                io::ErrorKind::Other,
                "I/O error (simulated)",
            )),
            Fault::TimeoutApplied | Fault::TimeoutNotApplied => Some(Self::fail(
                op,
                name,
                io::ErrorKind::TimedOut,
                "timed out (simulated)",
            )),
            Fault::CrashBefore | Fault::CrashAfter => Some(Self::crashed(op, name)),
        }
    }

    fn applies(fault: Fault) -> bool {
        matches!(
            fault,
            Fault::None | Fault::TimeoutApplied | Fault::LostResponse | Fault::CrashAfter
        )
    }

    fn check(op: &'static str, name: &str) -> Result<(), BackendError> {
        codec::store::backend::check_name(name)
            .map_err(|e| BackendError::new(op, Self::address_of(name), e))
    }

    /// Writes `name` as a process sees it; durable now if `sync`.
    fn put(s: &mut State, name: &str, bytes: &[u8], sync: bool) {
        s.mem.write(name, bytes, sync).expect("a checked name");
        Self::after_put(s, name, bytes, sync);
    }

    fn after_put(s: &mut State, name: &str, bytes: &[u8], sync: bool) {
        if sync {
            s.durable.insert(name.to_owned(), Some(bytes.into()));
            s.pending.remove(name);
        } else {
            s.durable.entry(name.to_owned()).or_insert(None);
            s.pending.insert(name.to_owned());
        }
    }

    /// Makes `names` durable as they are now.
    fn make_durable(s: &mut State, names: &[String]) {
        for name in names {
            if let Some(bytes) = s.bytes(name) {
                s.durable.insert(name.clone(), Some(bytes.into()));
                s.pending.remove(name);
            }
        }
        for chain in s.chains.values_mut() {
            chain.retain(|n| !names.contains(n));
        }
    }

    /// A call that reads: its fault drawn, then `read` on the memory store.
    fn reading<T>(
        &self,
        op: &'static str,
        name: &str,
        what: &str,
        read: impl FnOnce(&Memory) -> Result<T, BackendError>,
    ) -> Result<T, BackendError> {
        let mut s = lock(&self.disk.inner);
        let fault = self.draw(&mut s, op, name, what, false);
        if let Some(e) = Self::error_of(op, name, fault) {
            return Err(e);
        }
        read(&s.mem).map_err(|e| BackendError::new(e.op, Self::address_of(name), e.source))
    }
}

impl Backend for View {
    fn location(&self) -> String {
        "sim://".to_owned()
    }

    fn address(&self, name: &str) -> String {
        Self::address_of(name)
    }

    fn read(&self, name: &str) -> Result<Option<Vec<u8>>, BackendError> {
        Self::check("read", name)?;
        self.reading("read", name, "", |m| m.read(name))
    }

    fn read_range(&self, name: &str, range: Range<u64>) -> Result<Vec<u8>, BackendError> {
        Self::check("read", name)?;
        let what = format!(" {}..{}", range.start, range.end);
        self.reading("read", name, &what, |m| m.read_range(name, range))
    }

    fn list(&self, prefix: &str) -> Result<Vec<Listed>, BackendError> {
        self.reading("list", prefix, "", |m| m.list(prefix))
    }

    fn read_versioned(&self, name: &str) -> Result<Option<(Vec<u8>, Version)>, BackendError> {
        Self::check("read", name)?;
        self.reading("read", name, " (versioned)", |m| m.read_versioned(name))
    }

    fn write(&self, name: &str, bytes: &[u8], sync: bool) -> Result<(), BackendError> {
        Self::check("write", name)?;
        let mut s = lock(&self.disk.inner);
        let what = format!(" {}B sync={sync}", bytes.len());
        let fault = self.draw(&mut s, "write", name, &what, true);
        if Self::applies(fault) {
            Self::put(&mut s, name, bytes, sync);
        }
        Self::error_of("write", name, fault).map_or(Ok(()), Err)
    }

    fn create(&self, name: &str, bytes: &[u8], sync: bool) -> Result<Created, BackendError> {
        Self::check("create", name)?;
        let mut s = lock(&self.disk.inner);
        let what = format!(" {}B sync={sync}", bytes.len());
        let fault = self.draw(&mut s, "create", name, &what, true);
        let mut created = Created::Exists;
        if Self::applies(fault) {
            created = s.mem.create(name, bytes, sync).expect("a checked name");
            if created == Created::Yes {
                Self::after_put(&mut s, name, bytes, sync);
            }
        }
        if let Some(e) = Self::error_of("create", name, fault) {
            return Err(e);
        }
        if fault == Fault::LostResponse {
            // The retry finds the object its first request created.
            return Ok(Created::Exists);
        }
        Ok(created)
    }

    fn replace(
        &self,
        name: &str,
        bytes: &[u8],
        version: &Version,
    ) -> Result<Replaced, BackendError> {
        Self::check("replace", name)?;
        let mut s = lock(&self.disk.inner);
        let what = format!(" {}B", bytes.len());
        let fault = self.draw(&mut s, "replace", name, &what, true);
        let overtaken = fault == Fault::None && s.overtake && name == "checkpoint.json";
        if overtaken
            && s.rng.below(3) == 0
            && let Some(now) = s.mem.read(name).expect("a checked name")
        {
            s.mem.write(name, &now, false).expect("a checked name");
            s.trace.push(format!(
                "h{} replace {name}: another handle committed first",
                self.id
            ));
        }
        let mut replaced = Replaced::Changed;
        if Self::applies(fault) {
            replaced = s.mem.replace(name, bytes, version).expect("a checked name");
            if matches!(replaced, Replaced::Yes(_)) {
                Self::after_put(&mut s, name, bytes, true);
            }
        }
        if let Some(e) = Self::error_of("replace", name, fault) {
            return Err(e);
        }
        if fault == Fault::LostResponse {
            // The retry finds the object at the version its first
            // request made.
            return Ok(Replaced::Changed);
        }
        Ok(replaced)
    }

    fn delete(&self, name: &str) -> Result<(), BackendError> {
        Self::check("delete", name)?;
        let mut s = lock(&self.disk.inner);
        let fault = self.draw(&mut s, "delete", name, "", true);
        if Self::applies(fault) {
            s.mem.delete(name).expect("a checked name");
            s.durable.remove(name);
            s.pending.remove(name);
        }
        Self::error_of("delete", name, fault).map_or(Ok(()), Err)
    }

    fn append_to(&self, name: &str) -> Result<Box<dyn Appender>, BackendError> {
        Self::check("append", name)?;
        let chain = {
            let mut s = lock(&self.disk.inner);
            let chain = s.next_chain;
            s.next_chain += 1;
            s.trace
                .push(format!("h{} appender {chain} on {name}", self.id));
            chain
        };
        let view = Arc::new(View {
            disk: self.disk.clone(),
            id: self.id,
        });
        if lock(&self.disk.inner).in_place {
            let mut s = lock(&self.disk.inner);
            let end = s.bytes(name).map_or(0, |b| b.len() as u64);
            // A folder's log is created and locked before another handle
            // can see it.
            let mut held = None;
            if is_log(name) {
                if s.dead.contains(&self.id) {
                    return Err(Self::crashed("append", name));
                }
                if end == 0 {
                    s.mem.write(name, &[], false).expect("a checked name");
                    s.durable.entry(name.to_owned()).or_insert(None);
                    s.pending.insert(name.to_owned());
                    s.grown.insert(name.to_owned());
                }
                held = Some(s.hold(&log_lock(name), self.id, true));
            }
            drop(s);
            return Ok(Box::new(GrowingAppender {
                view,
                name: name.to_owned(),
                end,
                _held: held.map(|token| Holding {
                    disk: self.disk.clone(),
                    token,
                }),
            }));
        }
        Ok(Box::new(SimAppender {
            segments: Segments::new(View::clone(&view), name),
            view,
            chain,
            written: Vec::new(),
        }))
    }

    fn appends(&self) -> Appends {
        match lock(&self.disk.inner).in_place {
            true => Appends::InPlace,
            false => Appends::Segments,
        }
    }

    fn concurrent_reads(&self) -> bool {
        false // one thread: the calls, and so the faults, come in one order
    }

    fn maps(&self) -> Option<&dyn Maps> {
        lock(&self.disk.inner).in_place.then_some(self as &dyn Maps)
    }

    fn locks(&self) -> Option<&dyn Locks> {
        lock(&self.disk.inner)
            .in_place
            .then_some(self as &dyn Locks)
    }

    fn take_up_log(&self, logs: &[String]) -> Result<Option<Box<dyn Appender>>, BackendError> {
        let mut s = lock(&self.disk.inner);
        if !s.in_place {
            return Ok(None);
        }
        let first = logs.first().map_or("-", String::as_str);
        let what = format!(" ({} logs)", logs.len());
        let fault = self.draw(&mut s, "take up", first, &what, false);
        if let Some(e) = Self::error_of("take up", first, fault) {
            return Err(e);
        }
        for name in logs {
            let Some(bytes) = s.bytes(name) else {
                continue; // deleted meanwhile
            };
            if let Some(holder) = s.holder(&log_lock(name), true) {
                s.trace.push(format!("h{}: {name} is h{holder}'s", self.id));
                continue;
            }
            if s.bytes(&next_segment(name)).is_some() {
                continue; // sealed
            }
            let token = s.hold(&log_lock(name), self.id, true);
            s.trace.push(format!("h{} takes up {name}", self.id));
            drop(s);
            return Ok(Some(Box::new(GrowingAppender {
                view: Arc::new(self.clone()),
                name: name.clone(),
                end: bytes.len() as u64,
                _held: Some(Holding {
                    disk: self.disk.clone(),
                    token,
                }),
            })));
        }
        Ok(None)
    }

    fn sync(&self, names: &[String]) -> Result<(), BackendError> {
        let mut s = lock(&self.disk.inner);
        let what = format!(" ({} objects)", names.len());
        let first = names.first().map_or("-", String::as_str);
        let fault = self.draw(&mut s, "sync", first, &what, true);
        if Self::applies(fault) {
            Self::make_durable(&mut s, names);
        }
        Self::error_of("sync", first, fault).map_or(Ok(()), Err)
    }
}

/// A log or data object of one handle: a segment per append (as on
/// object storage, and as [`Memory`] keeps them), not durable until
/// synced, kept up to a cut by a power cut before then.
struct SimAppender {
    segments: Segments<View>,
    view: Arc<View>,
    chain: u64,
    /// The segments it appended, to sync.
    written: Vec<String>,
}

impl Appender for SimAppender {
    fn append(&mut self, bytes: &[u8], align: u64) -> Result<Appended, BackendError> {
        let appended = self.segments.append(bytes, align)?;
        let mut s = lock(&self.view.disk.inner);
        if s.pending.contains(&appended.name) {
            s.chains
                .entry(self.chain)
                .or_default()
                .push(appended.name.clone());
        }
        self.written.push(appended.name.clone());
        Ok(appended)
    }

    fn sync(&mut self) -> Result<(), BackendError> {
        self.view.sync(&self.written)
    }

    fn end(&self) -> (String, u64) {
        self.segments.end()
    }
}

/// The lock of `m`, also after a panic of the run while it was held
/// (the run reports the panic; the state is only read for its trace).
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A log or data object that grows in place, as a file does: an append
/// that fails may leave part of its bytes (a full disk midway), and what
/// is not synced is kept up to a cut at any byte by a power cut.
struct GrowingAppender {
    view: Arc<View>,
    name: String,
    end: u64,
    /// A log's lock, held while it appends.
    _held: Option<Holding>,
}

impl Appender for GrowingAppender {
    fn append(&mut self, bytes: &[u8], align: u64) -> Result<Appended, BackendError> {
        let name = self.name.clone();
        let mut s = lock(&self.view.disk.inner);
        let what = format!(" {}B", bytes.len());
        let fault = self.view.draw(&mut s, "append", &name, &what, true);
        let mut object = s.bytes(&name).unwrap_or_default();
        let align = align.max(1) as usize;
        let offset = object.len().div_ceil(align) * align;
        let mut grown = vec![0; offset - object.len()];
        grown.extend_from_slice(bytes);
        let kept = match fault {
            f if View::applies(f) => grown.len(),
            Fault::Error => {
                let kept = s.rng.below(grown.len() as u64 + 1) as usize;
                s.trace
                    .push(format!("{name}: {kept} bytes of the append written"));
                kept
            }
            _ => 0,
        };
        if kept > 0 {
            object.extend_from_slice(&grown[..kept]);
            s.mem.write(&name, &object, false).expect("a checked name");
            s.durable.entry(name.clone()).or_insert(None);
            s.pending.insert(name.clone());
            s.grown.insert(name.clone());
        }
        self.end = object.len() as u64;
        if let Some(e) = View::error_of("append", &name, fault) {
            return Err(e);
        }
        Ok(Appended {
            name,
            offset: offset as u64,
            end: self.end,
        })
    }

    fn sync(&mut self) -> Result<(), BackendError> {
        self.view.sync(std::slice::from_ref(&self.name))
    }

    fn end(&self) -> (String, u64) {
        (self.name.clone(), self.end)
    }
}

impl Maps for View {
    fn map(&self, name: &str) -> Result<Mapped, BackendError> {
        let bytes = self.reading("map", name, "", |m| m.read(name))?;
        let Some(bytes) = bytes else {
            let e = io::Error::new(io::ErrorKind::NotFound, "no such object");
            return Err(BackendError::new("map", Self::address_of(name), e));
        };
        Mapped::copied(&bytes).map_err(|e| BackendError::new("map", Self::address_of(name), e))
    }
}

impl Locks for View {
    fn lock(&self, name: &str, how: Locking) -> Result<Option<Lock>, BackendError> {
        let mut s = lock(&self.disk.inner);
        if s.dead.contains(&self.id) {
            return Err(Self::crashed("lock", name));
        }
        let alone = how != Locking::Shared;
        if let Some(holder) = s.holder(name, alone) {
            s.trace.push(format!(
                "h{} lock {name} {how:?}: h{holder} has it",
                self.id
            ));
            assert_eq!(
                how,
                Locking::TryAlone,
                "h{} would wait forever for lock {name}, which h{holder} holds \
                 (one thread runs every handle)",
                self.id
            );
            return Ok(None);
        }
        let token = s.hold(name, self.id, alone);
        s.trace.push(format!("h{} lock {name} {how:?}", self.id));
        drop(s);
        Ok(Some(Lock::new(Holding {
            disk: self.disk.clone(),
            token,
        })))
    }
}
