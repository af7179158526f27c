//! One run of the simulation: handles on the simulated disk (writers
//! with and without `fsync`, a reader, one that builds checkpoints, one
//! that compacts) take steps in an order drawn from the seed, among
//! crashes of a handle and power cuts, and after each fault a fresh
//! handle checks what the README promises.

use std::collections::{BTreeMap, BTreeSet};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;
use std::time::Duration;

use codec::{Cache, CacheOptions, PutOptions};

use super::disk::{Disk, Rates};
use super::rng::Rng;
use super::trace::Trace;

/// What went wrong in a run, with what led there.
pub struct Failure {
    pub seed: u64,
    pub step: usize,
    pub what: String,
    pub trace: Trace,
}

/// A handle's part in the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Writer { fsync: bool },
    Reader,
    Checkpointer,
    Compactor,
}

struct Handle {
    role: Role,
    /// Open: its view's id and the handle.
    open: Option<(u64, Cache)>,
}

/// What the run knows of a key.
#[derive(Default)]
struct Key {
    /// The values of every put tried, acknowledged or not.
    tried: BTreeSet<u64>,
    /// The value a fresh handle must see, or a later one: the last
    /// acknowledged put, or after a power cut what survived of them.
    floor: Option<u64>,
    /// The last put acknowledged with `fsync: true`, or what a fresh
    /// handle saw after the last power cut.
    durable: Option<u64>,
    /// A power cut took the data of an entry written without `fsync`
    /// and left its line: reads may fail until the key is put again.
    damaged: bool,
}

/// The steps of one run.
pub const STEPS: usize = 60;

struct Sim {
    seed: u64,
    rng: Rng,
    disk: Arc<Disk>,
    trace: Trace,
    handles: Vec<Handle>,
    keys: BTreeMap<String, Key>,
    next_value: u64,
    /// Appends grow in place, in segments sealed at a size, as in a
    /// folder.
    in_place: bool,
    /// Power cuts so far.
    cuts: u32,
}

/// Runs seed `seed` for `steps` steps; its trace, or the first failure.
pub fn run(seed: u64, steps: usize) -> Result<Trace, Failure> {
    // Writer ids and table numbers from the seed: one seed, one run.
    struct Unseed;
    impl Drop for Unseed {
        fn drop(&mut self) {
            codec::store::__ids::seed_on_this_thread(None);
        }
    }
    codec::store::__ids::seed_on_this_thread(Some(seed));
    let _unseed = Unseed;
    let mut rng = Rng::new(seed);
    let trace = Trace::default();
    let rates = match rng.below(4) {
        0 => Rates::default(),
        1 => Rates {
            error: 5,
            timeout: 5,
            lost_response: 10,
            crash: 2,
        },
        2 => Rates {
            error: 20,
            timeout: 20,
            lost_response: 40,
            crash: 5,
        },
        _ => Rates {
            error: 0,
            timeout: 0,
            lost_response: 0,
            crash: 10,
        },
    };
    trace.push(format!("seed {seed}: {rates:?}"));
    // One seed in 8 keeps logs and data growing in place, as in a
    // folder, with its locks (its checkpoints point into the logs, and
    // its compaction runs online on sealed segments); the others one
    // object per append.
    let in_place = seed % 8 == 7;
    let disk = match in_place {
        true => {
            trace.push("appends grow in place".to_owned());
            Disk::in_place(rng.split(), rates, trace.clone())
        }
        false => Disk::new(rng.split(), rates, trace.clone()),
    };
    // One seed in 16 (none of those that found a defect, whose runs stay
    // as they were) has commits of the manifest overtaken by another
    // handle's: checkpoints and compactions then try again.
    if seed % 16 == 11 {
        trace.push("commits of the manifest overtaken".to_owned());
        disk.overtake_commits();
    }
    let roles = [
        Role::Writer { fsync: true },
        Role::Writer { fsync: false },
        Role::Writer { fsync: true },
        Role::Reader,
        Role::Checkpointer,
        Role::Compactor,
    ];
    let mut sim = Sim {
        seed,
        rng: rng.split(),
        disk,
        trace: trace.clone(),
        handles: roles
            .iter()
            .map(|&role| Handle { role, open: None })
            .collect(),
        keys: BTreeMap::new(),
        next_value: 0,
        in_place,
        cuts: 0,
    };
    // A check after every step finds the step that broke a promise
    // (it changes the run: the checker's calls are steps of the trace).
    let check_each = std::env::var_os("CODEC_SIM_CHECK_EACH").is_some();
    for step in 0..steps {
        sim.guarded(step, |sim| sim.step())?;
        if check_each {
            sim.guarded(step, |sim| sim.check("after the step"))?;
        }
    }
    sim.guarded(steps, |sim| sim.check("at the end"))?;
    sim.guarded(steps, |sim| {
        sim.power_cut();
        sim.check("after the last power cut")
    })?;
    Ok(trace)
}

impl Sim {
    /// Runs `f` for step `step`; a panic is a failure like the others.
    fn guarded(
        &mut self,
        step: usize,
        f: impl FnOnce(&mut Sim) -> Result<(), String>,
    ) -> Result<(), Failure> {
        let result = catch_unwind(AssertUnwindSafe(|| f(self)));
        let what = match result {
            Ok(Ok(())) => return Ok(()),
            Ok(Err(what)) => what,
            Err(panic) => {
                let message = panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                    .unwrap_or_default();
                format!("panicked: {message}")
            }
        };
        self.trace.push(format!("FAILED: {what}"));
        Err(Failure {
            seed: self.seed,
            step,
            what,
            trace: self.trace.clone(),
        })
    }

    fn step(&mut self) -> Result<(), String> {
        let roll = self.rng.below(100);
        match roll {
            0..=39 => self.put(),
            40..=57 => self.get(),
            58..=65 => self.on_role(Role::Checkpointer, "checkpoint", |c| {
                c.admin().checkpoint().map(|_| String::new())
            }),
            66..=70 => self.on_role(Role::Compactor, "compaction", |c| {
                c.admin()
                    .compact_online(Duration::from_secs(3600), |_, _| {})
                    .map(|done| format!(" kept {}", done.kept))
            }),
            71..=78 => self.crash(),
            79..=81 => {
                self.power_cut();
                self.check("after a power cut")
            }
            _ => self.check("after a crash or an error"),
        }
    }

    /// Handle `i`, opened if it is not; `None` if opening failed.
    fn handle(&mut self, i: usize) -> Option<&Cache> {
        if self.handles[i].open.is_none() {
            let role = self.handles[i].role;
            let fsync = matches!(role, Role::Writer { fsync: true });
            let view = self.disk.view(false);
            let id = view.id();
            self.trace.push(format!("step: open h{id} as {role:?}"));
            match Cache::open_backend(view, options(self.in_place).fsync(fsync)) {
                Ok(cache) => self.handles[i].open = Some((id, cache)),
                Err(e) => {
                    self.trace.push(format!("step: open h{id} failed: {e}"));
                    self.disk.crash(id);
                    return None;
                }
            }
        }
        self.handles[i].open.as_ref().map(|(_, c)| c)
    }

    fn put(&mut self) -> Result<(), String> {
        let writers: Vec<usize> = (0..self.handles.len())
            .filter(|&i| matches!(self.handles[i].role, Role::Writer { .. }))
            .collect();
        let i = writers[self.rng.below(writers.len() as u64) as usize];
        let Role::Writer { fsync } = self.handles[i].role else {
            unreachable!("a writer")
        };
        // Keys of writers with `fsync` and of those without apart: an
        // entry written without it may survive a power cut in part.
        let key = format!("{}{}", if fsync { "f" } else { "n" }, self.rng.below(6));
        let value = self.next_value;
        self.next_value += 1;
        let len = match self.rng.below(3) {
            0 => 8,
            _ => 100 + self.rng.below(2000) as usize,
        };
        let file = self.rng.below(4) == 0;
        let bytes = encode(&key, value, len);
        self.keys
            .entry(key.clone())
            .or_default()
            .tried
            .insert(value);
        let Some(cache) = self.handle(i) else {
            return Ok(());
        };
        let result = if file {
            cache.put_with(&key, &bytes, &PutOptions::default().handler("file"))
        } else {
            cache.put(&key, &bytes)
        };
        let how = if file { " (file)" } else { "" };
        match result {
            Ok(()) => {
                self.trace.push(format!(
                    "step: put {key} = v{value} ({len}B){how}: acknowledged"
                ));
                let k = self.keys.get_mut(&key).expect("inserted above");
                k.floor = Some(value);
                k.damaged = false;
                if fsync {
                    k.durable = Some(value);
                }
            }
            Err(e) => {
                self.trace
                    .push(format!("step: put {key} = v{value} ({len}B){how}: {e}"));
                self.close_if_crashed(i);
            }
        }
        Ok(())
    }

    fn get(&mut self) -> Result<(), String> {
        let i = self.rng.below(self.handles.len() as u64) as usize;
        let key = format!(
            "{}{}",
            if self.rng.below(2) == 0 { "f" } else { "n" },
            self.rng.below(6)
        );
        let Some(cache) = self.handle(i) else {
            return Ok(());
        };
        let got = cache.get::<Vec<u8>>(&key);
        let h = self.handles[i].open.as_ref().map_or(0, |(id, _)| *id);
        match got {
            Ok(found) => {
                let shown = self.judge(&key, found.as_deref(), false)?;
                self.trace.push(format!("step: get {key} on h{h}: {shown}"));
            }
            Err(e) => {
                self.trace.push(format!("step: get {key} on h{h}: {e}"));
                self.close_if_crashed(i);
            }
        }
        Ok(())
    }

    /// Runs `f` on the handle of `role`, for `what`.
    fn on_role(
        &mut self,
        role: Role,
        what: &str,
        f: impl FnOnce(&Cache) -> Result<String, codec::StoreError>,
    ) -> Result<(), String> {
        let i = self
            .handles
            .iter()
            .position(|h| h.role == role)
            .expect("every role has a handle");
        let Some(cache) = self.handle(i) else {
            return Ok(());
        };
        let result = f(cache);
        match result {
            Ok(more) => self.trace.push(format!("step: {what}: done{more}")),
            Err(e) => {
                self.trace.push(format!("step: {what}: {e}"));
                self.close_if_crashed(i);
            }
        }
        Ok(())
    }

    /// Drops handle `i` if its view crashed (the process is gone).
    fn close_if_crashed(&mut self, i: usize) {
        // A handle whose call failed may have crashed: a crashed view
        // fails every call, so try one.
        if let Some((id, cache)) = &self.handles[i].open {
            let id = *id;
            if cache.refresh().is_err() {
                self.trace.push(format!("step: drop h{id}"));
                self.disk.crash(id);
                self.handles[i].open = None;
            }
        }
    }

    fn crash(&mut self) -> Result<(), String> {
        let open: Vec<usize> = (0..self.handles.len())
            .filter(|&i| self.handles[i].open.is_some())
            .collect();
        if open.is_empty() {
            return Ok(());
        }
        let i = open[self.rng.below(open.len() as u64) as usize];
        if let Some((id, _)) = self.handles[i].open.take() {
            self.trace.push(format!("step: crash h{id}"));
            self.disk.crash(id);
        }
        Ok(())
    }

    fn power_cut(&mut self) {
        self.trace.push("step: power cut".to_owned());
        self.cuts += 1;
        for h in &mut self.handles {
            h.open = None;
        }
        self.disk.power_cut();
        for k in self.keys.values_mut() {
            k.floor = k.durable;
        }
    }

    /// A fresh handle, on a view without faults, reads every key and
    /// verifies the index.
    fn check(&mut self, when: &str) -> Result<(), String> {
        let after_cut = when.contains("power cut");
        let view = self.disk.view(true);
        let id = view.id();
        self.trace.push(format!("check {when}, on h{id}"));
        let cache = Cache::open_backend(view, options(self.in_place))
            .map_err(|e| format!("the store does not open {when}: {e}"))?;
        let keys: Vec<String> = self.keys.keys().cloned().collect();
        for key in keys {
            match cache.get::<Vec<u8>>(&key) {
                Ok(found) => {
                    let value = self.judge(&key, found.as_deref(), true)?;
                    self.trace.push(format!("check: {key} = {value}"));
                    let k = self.keys.get_mut(&key).expect("listed");
                    if let Some(v) = found.as_deref().and_then(|b| decode(&key, b)) {
                        // What a fresh handle sees stays seen; right
                        // after a power cut, it is what survived it, and
                        // durable.
                        k.floor = Some(v);
                        if after_cut {
                            k.durable = k.durable.max(Some(v));
                        }
                    }
                }
                Err(e) => {
                    let k = &self.keys[&key];
                    // Written without `fsync`, an entry's line may
                    // survive a power cut and its data not.
                    let lost = key.starts_with('n') && (self.cuts > 0 || k.floor.is_none());
                    if lost {
                        self.trace.push(format!("check: {key}: {e} (data lost)"));
                        // No promise is left for it: a compaction
                        // drops it, and it reads as missing then.
                        let k = self.keys.get_mut(&key).expect("listed");
                        (k.damaged, k.floor, k.durable) = (true, None, None);
                    } else {
                        return Err(format!("{key} does not read back {when}: {e}"));
                    }
                }
            }
        }
        self.lines_once(when)?;
        // Tables are synced before the manifest that names them, and the
        // manifest is replaced whole: no fault leaves a checkpoint that
        // does not verify (a half-applied one).
        match cache.admin().verify_index() {
            Ok(n) => self.trace.push(format!("check: verify: {n} keys")),
            Err(e) => {
                let repaired = match cache.admin().checkpoint() {
                    Ok(()) => match cache.admin().verify_index() {
                        Ok(_) => "a checkpoint repairs it".to_owned(),
                        Err(e) => format!("a checkpoint does not repair it: {e}"),
                    },
                    Err(e) => format!("a checkpoint fails: {e}"),
                };
                return Err(format!(
                    "the index does not verify {when}: {e} ({repaired})"
                ));
            }
        }
        for warning in cache.warnings() {
            self.trace.push(format!("check: warning: {warning}"));
            // The store reads on without a damaged checkpoint, but no
            // fault of the disk damages one: a half-applied build did.
            // Save one way, in a folder: its logs are not synced for a
            // checkpoint, so a power cut may take the end of a log the
            // checkpoint covers, which it then finds changed.
            let log_cut = self.in_place
                && self.cuts > 0
                && warning.contains("does not end as it did when covered");
            if warning.contains("checkpoint is damaged") && !log_cut {
                return Err(format!(
                    "a fresh handle finds a damaged checkpoint {when}: {warning}"
                ));
            }
        }
        Ok(())
    }

    /// Every line is in a writer's log once: a line's time and sequence
    /// number belong to one write, so a line twice is an append applied
    /// twice (a retry that did not see its first try land).
    fn lines_once(&self, when: &str) -> Result<(), String> {
        let mut seen: BTreeMap<(String, Vec<u8>), String> = BTreeMap::new();
        for (name, bytes) in self.disk.logs() {
            let stem = name.trim_end_matches("-info.jsonl");
            // A segment `<writer>.<n>` belongs to its writer's log.
            let writer = match stem.rsplit_once('.') {
                Some((id, n)) if n.bytes().all(|b| b.is_ascii_digit()) => id,
                _ => stem,
            };
            let complete = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
            // Only lines whose checksum holds: the start of a line a cut
            // tore, ended by the writer that took the log up, is no line
            // (two such starts of one line can read the same).
            for line in bytes[..complete]
                .split(|&b| b == b'\n')
                .filter(|l| checks(l))
            {
                let at = (writer.to_owned(), line.to_vec());
                if let Some(first) = seen.insert(at, name.clone()) {
                    return Err(format!(
                        "a line of {first} is in {name} again {when}: an append applied twice"
                    ));
                }
            }
        }
        Ok(())
    }

    /// Judges value `found` of `key`: one that was put, and (`fresh`: read
    /// by a fresh handle) no older than the floor. Returns its name.
    fn judge(&self, key: &str, found: Option<&[u8]>, fresh: bool) -> Result<String, String> {
        let k = self.keys.get(key);
        let floor = k.and_then(|k| k.floor).filter(|_| fresh);
        let Some(bytes) = found else {
            if let Some(floor) = floor {
                return Err(format!(
                    "{key} is missing; v{floor} was acknowledged{}",
                    if k.is_some_and(|k| k.durable == Some(floor)) {
                        " and is durable"
                    } else {
                        ""
                    }
                ));
            }
            return Ok("none".to_owned());
        };
        let Some(value) = decode(key, bytes) else {
            return Err(format!(
                "{key} reads as {} bytes that no put wrote",
                bytes.len()
            ));
        };
        if !k.is_some_and(|k| k.tried.contains(&value)) {
            return Err(format!("{key} reads as v{value}, never put under it"));
        }
        if let Some(floor) = floor.filter(|&f| value < f) {
            return Err(format!(
                "{key} reads as v{value}, older than v{floor} acknowledged"
            ));
        }
        Ok(format!("v{value}"))
    }
}

/// Whether `line` ends in the checksum of what comes before it
/// (`,"crc":"<8 hex digits>"}`).
pub fn checks(line: &[u8]) -> bool {
    const SUFFIX: usize = r#","crc":"00000000"}"#.len();
    let Some(body) = line.len().checked_sub(SUFFIX) else {
        return false;
    };
    let (text, suffix) = line.split_at(body);
    let crc = (suffix.strip_prefix(br#","crc":""#))
        .and_then(|rest| rest.strip_suffix(br#""}"#))
        .and_then(|hex| std::str::from_utf8(hex).ok())
        .and_then(|hex| u32::from_str_radix(hex, 16).ok());
    crc == Some(crc32fast::hash(text))
}

fn options(in_place: bool) -> CacheOptions {
    // Checkpoints only when asked for, so that no thread of the store's
    // own calls the disk.
    let options = CacheOptions::default().checkpoint_bytes(0).inline_limit(64);
    match in_place {
        // Segments sealed after a few puts: compactions find some.
        true => options.segment_bytes(1200),
        false => options,
    }
}

/// The bytes of value `value` of `key`, `len` long at least: the key,
/// the value's number and length, then bytes that depend on both.
fn encode(key: &str, value: u64, len: usize) -> Vec<u8> {
    let mut bytes = format!("{key}|{value}|{len}|").into_bytes();
    bytes.extend((0..len).map(|i| (value as usize * 31 + i) as u8));
    bytes
}

/// The value number of `bytes`, if they are the whole bytes
/// [`encode`] gives for `key`.
fn decode(key: &str, bytes: &[u8]) -> Option<u64> {
    let mut parts = bytes.splitn(4, |&b| b == b'|');
    let (k, v, len) = (parts.next()?, parts.next()?, parts.next()?);
    let value: u64 = std::str::from_utf8(v).ok()?.parse().ok()?;
    let len: usize = std::str::from_utf8(len).ok()?.parse().ok()?;
    (k == key.as_bytes() && encode(key, value, len) == bytes).then_some(value)
}
