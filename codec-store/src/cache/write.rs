//! The write path: schemas once per fingerprint, payloads through their
//! handler, then the index line, in one write.

use parking_lot::MutexGuard;
use std::sync::{Arc, OnceLock};

use crate::backend::Appends;
use crate::cache::now_nanos;
use crate::cache::writers;
use crate::cache::writers::Writer;
use crate::cache::Cache;
use crate::content::handler::{DumpContext, Handler};
use crate::content::parts::Part;
use crate::error::StoreError;
use crate::index::checkpoint;
use crate::index::line;
use crate::index::records::{IndexLine, Info, InfoValue, Mode};
use crate::index::Stamp;
use crate::layout;
use codec_runtime::__store::schema;
use codec_runtime::__store::LargeBin;

/// An entry's encoded bytes, with where their large `bin` values are (for
/// the `auto` handler; none for other encodings).
pub(crate) struct Payload<'a> {
    pub bytes: &'a [u8],
    pub large: &'a [LargeBin],
}

/// A payload encoded in its entry's dump context: its bytes, where its
/// large `bin` values are, and the tokens of the values of handled types
/// it holds the places of.
pub(crate) type MadePayload = (Vec<u8>, Vec<LargeBin>, Vec<InfoValue>);

impl<'a> Payload<'a> {
    pub fn plain(bytes: &'a [u8]) -> Self {
        Payload { bytes, large: &[] }
    }
}

/// How long a write waits for the index's lock on its processor before
/// it sleeps ([`Cache::index_for_write`]). At 15,000 puts a second into a
/// bounded store, puts over 100 µs went from 1,000-1,260 to 530-610 in
/// 300,000 (p99.9 161-174 µs to 121-130 µs); 20 µs did half as well,
/// 500 µs no better.
const SPIN_FOR_INDEX: std::time::Duration = std::time::Duration::from_micros(200);

/// The writes that waited for the index's lock on their processor.
#[cfg(test)]
pub(crate) static SPUN_FOR_INDEX: std::sync::atomic::AtomicU64 =
    std::sync::atomic::AtomicU64::new(0);

impl Cache {
    pub(crate) fn write_schema(&self, info: &schema::SchemaInfo) -> Result<(), StoreError> {
        let mut writer = self.writer.lock();
        if writer.schemas_written.contains(&info.fingerprint) {
            return Ok(());
        }
        // Readers never see half a schema; of writers racing, one writes it
        // (the same bytes).
        let text = serde_json::to_string_pretty(&info.schema)
            .expect("a serde_json::Value has string keys only and always prints");
        let name = layout::schema_object(&info.fingerprint_hex);
        self.backend.create(&name, text.as_bytes(), false)?;
        writer.schemas_written.push(info.fingerprint);
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn write_entry(
        &self,
        key: &str,
        type_name: Option<String>,
        fingerprint: Option<String>,
        mode: Mode,
        payload: Payload<'_>,
        handler: Option<&str>,
        expires: Option<u64>,
    ) -> Result<(), StoreError> {
        let Payload {
            bytes: payload,
            large,
        } = payload;
        let handler = self.chosen_handler(key, handler, payload, large)?;
        let record = !layout::is_built_in_handler(handler.name());
        self.writer.one_write(|| {
            let (info, parts, held) =
                self.dump_with(key, large, record, |ctx| handler.dump(payload, ctx))?;
            // Under the handler's name, not an alias it was asked by. The
            // size is what the entry holds: the payload, or more if the
            // handler wrote more (a user handler's files).
            self.append_entry(
                key,
                type_name,
                fingerprint,
                handler.name(),
                mode,
                (info, &parts, Vec::new()),
                held.max(payload.len() as u64),
                expires,
            )
        })
    }

    /// The handler `name`, or the built-in one the payload's size
    /// chooses (in the line, in the shared file, with its large buffers
    /// apart).
    fn chosen_handler(
        &self,
        key: &str,
        name: Option<&str>,
        payload: &[u8],
        large: &[LargeBin],
    ) -> Result<Arc<dyn Handler>, StoreError> {
        let name = match name {
            Some(name) => name,
            None if payload.len() <= self.options.inline_limit => layout::INLINE,
            None if !large.is_empty() => layout::AUTO,
            None => layout::SHARED,
        };
        self.handler(name)
            .ok_or_else(|| StoreError::UnknownHandler {
                key: key.to_owned(),
                handler: name.to_owned(),
            })
    }

    /// [`write_entry`](Self::write_entry) of the payload `make` encodes
    /// in the entry's dump context, with the tokens of the values of
    /// handled types it stored through their handlers meanwhile
    /// (`content/sub_values.rs`), which the line lists under `#values`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn write_entry_made(
        &self,
        key: &str,
        type_name: Option<String>,
        fingerprint: Option<String>,
        mode: Mode,
        handler: Option<&str>,
        expires: Option<u64>,
        make: impl FnOnce(&mut DumpContext<'_>) -> Result<MadePayload, StoreError>,
    ) -> Result<(), StoreError> {
        self.writer.one_write(|| {
            let mut chosen = None;
            let mut payload_len = 0;
            let mut values = Vec::new();
            let (info, parts, held) = self.dump_with(key, &[], false, |ctx| {
                let (payload, large, found) = make(ctx)?;
                let handler = self.chosen_handler(key, handler, &payload, &large)?;
                ctx.large = large;
                ctx.record = !layout::is_built_in_handler(handler.name());
                let info = handler.dump(&payload, ctx)?;
                payload_len = payload.len() as u64;
                values = found;
                chosen = Some(handler);
                Ok(info)
            })?;
            let handler = chosen.expect("set by a dump that returned");
            if !values.is_empty() {
                let mut writer = self.writer.lock();
                if writer.format_raised < layout::VALUES_FORMAT {
                    crate::cache::open::raise_format(&*self.backend, layout::VALUES_FORMAT)?;
                    writer.format_raised = layout::VALUES_FORMAT;
                }
            }
            // What the sub-values wrote is recorded; what a built-in handler
            // wrote of the payload is not.
            let size = match layout::is_built_in_handler(handler.name()) {
                true => held + payload_len,
                false => held.max(payload_len),
            };
            self.append_entry(
                key,
                type_name,
                fingerprint,
                handler.name(),
                mode,
                (info, &parts, values),
                size,
                expires,
            )
        })
    }

    /// Runs `dump` with the dump context of an entry of `key`: the info
    /// it returns, the files and ranges it wrote (when it `record`s them),
    /// and the bytes the entry holds.
    pub(crate) fn dump_with(
        &self,
        key: &str,
        large: &[LargeBin],
        record: bool,
        dump: impl FnOnce(&mut DumpContext<'_>) -> Result<Info, StoreError>,
    ) -> Result<(Info, Vec<Part>, u64), StoreError> {
        // The writer's lock only for the sequence and segment: the
        // handler runs without it (`cache/underway.rs`). Its files are
        // named by this sequence, which its line's is never below.
        let (seq, segment) = {
            let writer = self.writer.lock();
            (writer.seq, writer.segment)
        };
        let mut ctx = DumpContext {
            backend: &*self.backend,
            writer_id: &self.writer_id,
            seq,
            segment,
            shared: &self.writer.shared,
            fsync: self.options.fsync,
            fsync_shared: self.writer.syncs_appends(self.options.fsync),
            key,
            large: large.to_vec(),
            inline_limit: self.options.inline_limit,
            apart_min: self.options.apart_min,
            subs: Some(self),
            schemas: Vec::new(),
            record,
            parts: Vec::new(),
            inline_bytes: 0,
            files: 0,
            named: &self.writer.files_named,
            allocated: Vec::new(),
        };
        let dumped = dump(&mut ctx);
        let finished = dumped.and_then(|info| Ok((info, ctx.finish()?)));
        let schemas = std::mem::take(&mut ctx.schemas);
        let (info, (parts, held)) = finished?;
        // The sub-values' schemas, before the line that names them.
        for schema in schemas {
            self.write_schema(schema)?;
        }
        Ok((info, parts, held))
    }

    /// Appends the line of an entry that `handler` stored, described by
    /// `info`, having written `parts`, its payload holding the places of
    /// `values`: an entry of a handler that is not built in, or holding
    /// such values, records its parts in its info (`content/parts.rs`).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn append_entry(
        &self,
        key: &str,
        type_name: Option<String>,
        fingerprint: Option<String>,
        handler: &str,
        mode: Mode,
        (mut info, parts, values): (Info, &[Part], Vec<InfoValue>),
        size: u64,
        expires: Option<u64>,
    ) -> Result<(), StoreError> {
        for reserved in ["#key", "#type", layout::PARTS, layout::VALUES] {
            if info.contains_key(reserved) {
                return Err(StoreError::ReservedInfoKey {
                    handler: handler.to_owned(),
                    key: reserved.to_owned(),
                });
            }
        }
        // The handler's own info is bounded; the list of what it wrote is
        // as long as it is.
        check_info_size(key, handler, &info)?;
        if !layout::is_built_in_handler(handler) || !values.is_empty() {
            info.insert(layout::PARTS.to_owned(), Part::to_info(parts));
        }
        if !values.is_empty() {
            info.insert(layout::VALUES.to_owned(), InfoValue::List(values));
        }
        // The handle's time to live, for an entry put without its own.
        let expires = expires.or_else(|| {
            let ttl = u64::try_from(self.options.ttl?.as_nanos()).unwrap_or(u64::MAX);
            Some(now_nanos().saturating_add(ttl))
        });
        self.append_line(IndexLine {
            key: key.to_owned(),
            type_name,
            fingerprint,
            handler: Some(handler.to_owned()),
            mode,
            info,
            size,
            time: 0,
            seq: 0,
            expires,
        })
    }

    /// Appends a line to this writer's index (one write), stamping its time
    /// and sequence, and records it in the in-memory index; inside
    /// [`Cache::put_many`] on this thread, keeps it for the batch's write.
    pub(crate) fn append_line(&self, mut line: IndexLine) -> Result<(), StoreError> {
        let mut guard = self.writer.lock();
        // A compaction's copy keeps the time of the line it copies.
        if let Some(time) = guard.pinned_time {
            line.time = time;
        }
        if !guard.batches.is_empty() {
            let this = std::thread::current().id();
            if let Some((_, batch)) = guard.batches.iter_mut().find(|(t, _)| *t == this) {
                batch.push(line);
                return Ok(());
            }
        }
        self.write_lines(guard, std::slice::from_mut(&mut line))
    }

    /// Appends `lines` to this writer's index in one write (and one sync),
    /// as [`Cache::append_line`] does one.
    pub(crate) fn append_lines(&self, mut lines: Vec<IndexLine>) -> Result<(), StoreError> {
        if lines.is_empty() {
            return Ok(());
        }
        let guard = self.writer.lock();
        self.write_lines(guard, &mut lines)
    }

    /// The index's lock, to record a write's lines: waited for on the
    /// processor a while ([`SPIN_FOR_INDEX`]) before the thread sleeps.
    /// The upkeep takes it briefly and often (a pass takes the lines of
    /// 16 keys under it at a time), and a thread put to sleep waits for
    /// the kernel to wake it, long after the lock is free on a busy
    /// machine. Not on a machine with one processor, where the holder
    /// cannot run meanwhile.
    fn index_for_write(&self) -> parking_lot::RwLockWriteGuard<'_, crate::index::Index> {
        crate::cache::threads::take_spinning(
            SPIN_FOR_INDEX,
            || self.index.try_write(),
            || self.index.is_locked(),
            || self.index.write(),
            || {
                #[cfg(test)]
                SPUN_FOR_INDEX.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            },
        )
    }

    /// Writes `lines` (at least one) under the writer's lock, stamping
    /// their times (those not pinned already) and sequences in order, and
    /// records them in the in-memory index.
    fn write_lines(
        &self,
        mut guard: MutexGuard<'_, Writer>,
        lines: &mut [IndexLine],
    ) -> Result<(), StoreError> {
        let writer = &mut *guard;
        let bytes = &mut writer.line_buf;
        bytes.clear();
        if writer.torn {
            // End the partial line a failed write may have left, so this one
            // starts on a line of its own.
            bytes.push(b'\n');
        }
        let starts = &mut writer.line_starts;
        starts.clear();
        let (mut time, mut seq) = (writer.last_time, writer.seq);
        for line in lines.iter_mut() {
            // Never earlier than this writer's previous line, even if the
            // clock steps back: a writer's own later write must win.
            if line.time == 0 {
                line.time = now_nanos().max(time + 1);
            }
            time = time.max(line.time);
            line.seq = seq;
            seq += 1;
            starts.push(bytes.len());
            line::encode_line(line, bytes)?;
        }
        starts.push(bytes.len());
        if writer.log.is_none() {
            let segment = writer.segment;
            writer.log = Some(writers::create(&*self.backend, &self.writer_id, segment)?);
        }
        let log = writer.log.as_mut().expect("opened above");
        let appended = match log.appender.append(bytes, 1) {
            Ok(appended) => appended,
            Err(e) => {
                // Part of the lines may be there.
                writer.torn = true;
                return Err(e.into());
            }
        };
        if self.writer.syncs_appends(self.options.fsync) {
            log.appender.sync()?;
        }
        writer.torn = false;
        (writer.last_time, writer.seq) = (time, seq);
        let uncovered = {
            let mut index = self.index_for_write();
            let log_writer = index.writer(layout::log_writer(&appended.name).unwrap_or_default());
            for (i, line) in lines.iter().enumerate() {
                let (start, end) = (starts[i], starts[i + 1]);
                let text = std::str::from_utf8(&bytes[start..end - 1])
                    .expect("the JSON writer writes UTF-8");
                let stamp = Stamp {
                    time: line.time,
                    writer: log_writer,
                    seq: line.seq,
                };
                let live = line.handler.is_some().then(|| (text, OnceLock::new()));
                index.apply(&line.key, stamp, appended.offset + start as u64, live);
            }
            index.wrote_to(log_writer, appended.end);
            // Where a log is one object per append, each segment counts
            // as a request of a fresh open, and this handle's builds
            // cover those it wrote without reading them again.
            let at_least = match self.backend.appends() {
                Appends::InPlace => 0,
                Appends::Segments => {
                    index.wrote_segment(&appended.name, bytes);
                    checkpoint::SEGMENT_BYTES
                }
            };
            index.uncovered(at_least)
        };
        self.writer.wrote(appended.end);
        if self.writer.segment_full(appended.end) {
            // Sealed now, or by the last write under way as it ends.
            let mut underway = self.writer.underway.lock();
            underway.ask_seal();
            if underway.is_idle() {
                self.writer.seal_asked(&mut guard, &mut underway);
            }
        }
        drop(guard);
        self.after_write(uncovered);
        Ok(())
    }

    /// After a write that left `uncovered` bytes of logs no checkpoint
    /// covers: the checkpoint a background build made taken up; the
    /// upkeep of the bounds, if the options set some; a checkpoint in the
    /// background past the threshold, with a pass of the bounds.
    fn after_write(&self, uncovered: u64) {
        self.checkpointer.take_up_ended(&self.index);
        let bounded = self.bounded();
        if bounded {
            self.upkeep.after_write(self);
        }
        if self.checkpointer.after_write(&self.index, uncovered) && bounded {
            self.upkeep.start_pass(self);
        }
    }
}

/// Refuses an info nested deeper than [`layout::MAX_INFO_DEPTH`] or with
/// more than [`layout::MAX_INFO_VALUES`] values: its line could not be read
/// back, or would slow every lookup.
fn check_info_size(key: &str, handler: &str, info: &Info) -> Result<(), StoreError> {
    type Exceeded = (usize, &'static str);
    fn walk(value: &InfoValue, depth: usize, count: &mut usize) -> Result<(), Exceeded> {
        *count += 1;
        if *count > layout::MAX_INFO_VALUES {
            return Err((layout::MAX_INFO_VALUES, "values"));
        }
        let children: Box<dyn Iterator<Item = &InfoValue>> = match value {
            InfoValue::List(items) => Box::new(items.iter()),
            InfoValue::Map(map) => Box::new(map.values()),
            _ => return Ok(()),
        };
        if depth >= layout::MAX_INFO_DEPTH {
            return Err((layout::MAX_INFO_DEPTH, "levels of nesting"));
        }
        for child in children {
            walk(child, depth + 1, count)?;
        }
        Ok(())
    }
    let mut count = 0;
    let walked = info.values().try_for_each(|v| walk(v, 1, &mut count));
    walked.map_err(|(limit, what)| StoreError::Handler {
        key: key.to_owned(),
        handler: handler.to_owned(),
        message: format!(
            "its info has more than {limit} {what}, more than an index line holds; \
                 keep large metadata in a data file (DumpContext::write_file or dump_bytes) \
                 and its name in the info"
        ),
    })
}
