//! The logs of a store: which there are, and their complete lines from
//! where a refresh starts.

use crate::backend::Backend;
use crate::error::StoreError;
use crate::index::records::Compacting;
use crate::layout;

/// The complete lines of log `name` after byte `from`; `None` if there
/// are none yet. A final line without its newline is left for later.
pub(crate) fn read_complete_lines(
    backend: &dyn Backend,
    name: &str,
    from: u64,
) -> Result<Option<Vec<u8>>, StoreError> {
    // To the end, even past the listed size if the log grew meanwhile.
    let mut buf = match backend.read_range(name, from..u64::MAX) {
        Ok(buf) => buf,
        // Deleted since it was listed: an online compaction retired it.
        Err(e) if e.source.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    match memchr::memrchr(b'\n', &buf) {
        Some(i) => {
            buf.truncate(i + 1);
            Ok(Some(buf))
        }
        None => Ok(None),
    }
}

/// From this many unread bytes on, a log is mapped rather than read: a
/// fresh open of 1,000 entries (290 KB of log) spent 180 µs reading it
/// into fresh memory, most of it in page faults, and 8 µs mapping it.
pub(super) const MAP_MIN: u64 = 64 << 10;

/// A log's bytes from where a refresh starts: mapped, or read.
pub(super) enum LogBytes {
    Mapped(crate::backend::Mapped),
    Read(Vec<u8>),
}

impl LogBytes {
    /// The complete lines from byte `from` of the log (a read starts there
    /// already): up to the last newline, empty if there is none.
    pub(super) fn complete_lines(&self, from: u64) -> &[u8] {
        let bytes = match self {
            LogBytes::Mapped(map) => map.get(from as usize..).unwrap_or_default(),
            LogBytes::Read(buf) => buf,
        };
        match memchr::memrchr(b'\n', bytes) {
            Some(i) => &bytes[..=i],
            None => &[],
        }
    }
}

/// One writer's log, as listed.
#[derive(Debug)]
pub struct LogObject {
    /// The writer (for a log in segments, the segment's own id).
    pub writer: String,
    /// The object's name.
    pub name: String,
    /// Its size when listed.
    pub size: u64,
}

/// The logs of a store: `<writer>-info.jsonl`, by name, without those a
/// stopped compaction replaced (their entries were copied).
pub fn logs(backend: &dyn Backend) -> Result<Vec<LogObject>, StoreError> {
    Ok(listing(backend)?.logs)
}

/// What one listing of a store's root says.
pub(super) struct Listing {
    pub(super) logs: Vec<LogObject>,
    /// The size of the checkpoint's manifest, if there is one.
    pub(super) manifest: Option<u64>,
}

pub(super) fn listing(backend: &dyn Backend) -> Result<Listing, StoreError> {
    let mut out = Vec::new();
    let mut replaced = Vec::new();
    let mut manifest = None;
    for listed in backend.list("")? {
        if let Some(writer) = layout::log_writer(&listed.name) {
            out.push(LogObject {
                writer: writer.to_owned(),
                name: listed.name,
                size: listed.size,
            });
        } else if listed.name == layout::COMPACT_MARKER {
            // Gone since it was listed: an online compaction deleted what
            // it listed, then it.
            if let Some(bytes) = backend.read(layout::COMPACT_MARKER)? {
                let marker: Compacting = codec_runtime::from_json_slice(&bytes)
                    .map_err(|e| damaged_marker(backend, &e))?;
                replaced = marker.ignored().cloned().collect();
            }
        } else if listed.name == layout::CHECKPOINT {
            manifest = Some(listed.size);
        }
    }
    out.retain(|log| !replaced.contains(&log.name));
    Ok(Listing {
        logs: out,
        manifest,
    })
}

/// The record of the compaction under way (`compacting.json`).
pub(crate) fn read_marker(backend: &dyn Backend) -> Result<Compacting, StoreError> {
    let bytes = backend.read(layout::COMPACT_MARKER)?.ok_or_else(|| {
        let gone = std::io::Error::from(std::io::ErrorKind::NotFound);
        StoreError::io(backend.address(layout::COMPACT_MARKER), gone)
    })?;
    codec_runtime::from_json_slice(&bytes).map_err(|e| damaged_marker(backend, &e))
}

/// The error of a record of a compaction that does not read.
pub(crate) fn damaged_marker(backend: &dyn Backend, e: &dyn std::fmt::Display) -> StoreError {
    StoreError::damaged_file(
        backend,
        layout::COMPACT_MARKER,
        format!(
            "{e}. It lists the logs a compaction replaced, which readers skip, and is written \
             whole: the disk or another program changed it"
        ),
    )
}
