//! The write path: schemas once per fingerprint, payloads through their
//! handler, then the index line, in one write.

use std::io::Write;
use std::sync::OnceLock;

use super::handler::DumpContext;
use super::index::Stamp;
use super::records::{IndexLine, Info, Mode};
use super::{layout, line, now_nanos, writers, Cache, StoreError};
use crate::msgpack::LargeBin;
use crate::schema;

/// An entry's encoded bytes, with where their large `bin` values are (for
/// the `auto` handler; none for other encodings).
pub(super) struct Payload<'a> {
    pub bytes: &'a [u8],
    pub large: &'a [LargeBin],
}

impl<'a> Payload<'a> {
    pub fn plain(bytes: &'a [u8]) -> Self {
        Payload { bytes, large: &[] }
    }
}

impl Cache {
    pub(super) fn write_schema(&self, info: &schema::SchemaInfo) -> Result<(), StoreError> {
        let mut writer = self.writer.lock().unwrap_or_else(|e| e.into_inner());
        if writer.schemas_written.contains(&info.fingerprint) {
            return Ok(());
        }
        let path = layout::schema_path(&self.dir, &info.fingerprint_hex);
        if !path.exists() {
            // Write aside, then rename: readers never see half a schema.
            let tmp = path.with_extension(format!("json.{}.tmp", self.writer_id));
            let text =
                serde_json::to_string_pretty(&info.schema).map_err(|e| StoreError::Custom {
                    message: e.to_string(),
                })?;
            std::fs::write(&tmp, text).map_err(|e| StoreError::io(&tmp, e))?;
            std::fs::rename(&tmp, &path).map_err(|e| StoreError::io(&path, e))?;
        }
        writer.schemas_written.push(info.fingerprint);
        Ok(())
    }

    pub(super) fn write_entry(
        &self,
        key: &str,
        type_name: Option<String>,
        fingerprint: Option<String>,
        mode: Mode,
        payload: Payload<'_>,
        handler: Option<&str>,
    ) -> Result<(), StoreError> {
        let Payload {
            bytes: payload,
            large,
        } = payload;
        let name = match handler {
            Some(name) => name,
            None if payload.len() <= self.options.inline_limit => layout::INLINE,
            None if !large.is_empty() => layout::AUTO,
            None => layout::SHARED,
        };
        let handler = self
            .handler(name)
            .ok_or_else(|| StoreError::UnknownHandler {
                key: key.to_owned(),
                handler: name.to_owned(),
            })?;
        let info = self.dump_with(key, large, |ctx| handler.dump(payload, ctx))?;
        // Under the handler's name, not an alias it was asked by.
        self.append_entry(
            key,
            type_name,
            fingerprint,
            handler.name(),
            mode,
            info,
            payload.len() as u64,
        )
    }

    /// Runs `dump` with the dump context of an entry of `key`.
    pub(super) fn dump_with(
        &self,
        key: &str,
        large: &[LargeBin],
        dump: impl FnOnce(&mut DumpContext<'_>) -> Result<Info, StoreError>,
    ) -> Result<Info, StoreError> {
        let mut writer = self.writer.lock().unwrap_or_else(|e| e.into_inner());
        let seq = writer.seq;
        let mut ctx = DumpContext {
            data_dir: &self.data_dir,
            writer_id: &self.writer_id,
            seq,
            shared: &mut writer.shared,
            fsync: self.options.fsync,
            key,
            large,
            inline_limit: self.options.inline_limit,
        };
        dump(&mut ctx)
    }

    /// Appends the line of an entry that `handler` stored, described by `info`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn append_entry(
        &self,
        key: &str,
        type_name: Option<String>,
        fingerprint: Option<String>,
        handler: &str,
        mode: Mode,
        info: Info,
        size: u64,
    ) -> Result<(), StoreError> {
        for reserved in ["#key", "#type"] {
            if info.contains_key(reserved) {
                return Err(StoreError::ReservedInfoKey {
                    handler: handler.to_owned(),
                    key: reserved.to_owned(),
                });
            }
        }
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
        })
    }

    /// Appends a line to this writer's index (one write), stamping its time
    /// and sequence, and records it in the in-memory index.
    pub(super) fn append_line(&self, mut line: IndexLine) -> Result<(), StoreError> {
        let path = &self.index_path;
        let mut guard = self.writer.lock().unwrap_or_else(|e| e.into_inner());
        let writer = &mut *guard;
        // Never earlier than this writer's previous line, even if the clock
        // steps back: a writer's own later write must win.
        line.time = now_nanos().max(writer.last_time + 1);
        writer.last_time = line.time;
        line.seq = writer.seq;
        let bytes = &mut writer.line_buf;
        bytes.clear();
        if writer.torn {
            // End the partial line a failed write may have left, so this one
            // starts on a line of its own.
            bytes.push(b'\n');
        }
        let start = bytes.len();
        line::encode_line(&line, bytes)?;
        if writer.log.is_none() {
            writer.log = Some(writers::create(&self.dir, &self.writer_id)?);
        }
        let log = writer.log.as_mut().expect("opened above");
        let at = log.end + start as u64;
        if let Err(e) = log.file.write_all(bytes) {
            writer.torn = true;
            // Part of the line may be there: find the log's end again.
            log.end = log.file.metadata().map_or(log.end, |m| m.len());
            return Err(StoreError::io(path, e));
        }
        log.end += bytes.len() as u64;
        let end = log.end;
        if self.options.fsync {
            log.file.sync_data().map_err(|e| StoreError::io(path, e))?;
        }
        writer.torn = false;
        writer.seq += 1;
        let text = std::str::from_utf8(&bytes[start..bytes.len() - 1])
            .expect("the JSON writer writes UTF-8");
        let uncovered = {
            let mut index = self.index.write().unwrap_or_else(|e| e.into_inner());
            let stamp = Stamp {
                time: line.time,
                writer: index.writer(&self.writer_id),
                seq: line.seq,
            };
            let live = line.handler.is_some().then(|| (text, OnceLock::new()));
            index.apply(&line.key, stamp, at, live);
            index.wrote_to(stamp.writer, end);
            index.uncovered()
        };
        drop(guard);
        self.after_write(uncovered);
        Ok(())
    }
}
