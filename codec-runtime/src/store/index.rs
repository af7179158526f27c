//! The in-memory index: the latest line of each key, from every writer's
//! index file. Readers skip a torn last line (it may still be being
//! written) and a corrupt middle line (with a warning), never the folder.
//!
//! Lines are kept as checked text and decoded when their entry is read, so
//! opening a folder builds no records.

use std::collections::HashMap;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use foldhash::fast::RandomState;

use super::error::StoreError;
use super::line::{check_line, LineView, Spans};
use super::records::{Info, Mode};

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
}

/// The live line of a key, as [`Index::get`] finds it.
pub struct Found {
    pub text: Arc<str>,
    pub spans: Option<Spans>,
    pub time: u64,
    pub seq: u64,
}

impl Found {
    /// The line's fields, without parsing it again where its spans are known.
    pub fn view<'a>(&'a self, key: &'a str) -> Result<LineView<'a>, crate::DecodeError> {
        match &self.spans {
            Some(spans) => Ok(LineView::from_spans(
                key, &self.text, spans, self.time, self.seq,
            )),
            None => LineView::parse(&self.text),
        }
    }
}

/// One writer's index file, read up to `read_to`.
struct WriterFile {
    id: Box<str>,
    read_to: u64,
}

/// The live entry of each key: the latest line by [`Stamp`].
#[derive(Default)]
pub struct Index {
    /// foldhash, seeded per process: several times faster than SipHash on
    /// short keys, which every put, get and load hashes.
    entries: HashMap<Box<str>, Slot, RandomState>,
    writers: Vec<WriterFile>,
    writer_ids: HashMap<Box<str>, u32>,
    pub warnings: Vec<String>,
}

impl Index {
    /// Reads whatever was appended to the folder's index files since last time.
    pub fn refresh(&mut self, dir: &Path) -> Result<(), StoreError> {
        for (id, path) in index_files(dir)? {
            let writer = self.writer(&id);
            let from = self.writers[writer as usize].read_to;
            let Some(buf) = read_complete_lines(&path, from)? else {
                continue;
            };
            self.apply_lines(&buf, writer, &path, from);
            self.writers[writer as usize].read_to = from + buf.len() as u64;
        }
        Ok(())
    }

    /// Applies the complete lines of `buf`, read from `path` at byte `from`.
    fn apply_lines(&mut self, buf: &[u8], writer: u32, path: &Path, from: u64) {
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
                    self.apply(&view.key, stamp, live);
                }
                Err(why) => self.warnings.push(format!(
                    "{}: skipped the line at byte {at}: {why}",
                    path.display()
                )),
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
        line: Option<(&str, OnceLock<Option<Spans>>)>,
    ) {
        let slot = |line: Option<(&str, OnceLock<Option<Spans>>)>| match line {
            Some((text, spans)) => Slot {
                stamp,
                line: Some(Arc::from(text)),
                spans,
            },
            None => Slot {
                stamp,
                line: None,
                spans: OnceLock::new(),
            },
        };
        match self.entries.get_mut(key) {
            Some(current) => {
                if newer(&self.writers, stamp, current.stamp) {
                    *current = slot(line);
                }
            }
            None => {
                self.entries.insert(key.into(), slot(line));
            }
        }
    }

    /// The live line of a key: `None` if no line of it was read,
    /// `Some(None)` if the latest one removed it.
    pub fn get(&self, key: &str) -> Option<Option<Found>> {
        let slot = self.entries.get(key)?;
        Some(slot.line.clone().map(|text| {
            let spans = *slot
                .spans
                .get_or_init(|| LineView::parse(&text).ok()?.spans(&text));
            Found {
                text,
                spans,
                time: slot.stamp.time,
                seq: slot.stamp.seq,
            }
        }))
    }

    /// The live keys, unordered.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.entries
            .iter()
            .filter(|(_, slot)| slot.line.is_some())
            .map(|(key, _)| &**key)
    }

    /// Every live key with the text of its line, unordered.
    pub fn lines(&self) -> impl Iterator<Item = (&str, &str)> {
        self.entries
            .iter()
            .filter_map(|(key, slot)| Some((&**key, slot.line.as_deref()?)))
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
}

impl EntryInfo {
    /// The dtype and shape of an array stored with `put_array`.
    pub fn array_type(&self) -> Option<(String, Vec<usize>)> {
        match self.handler.as_str() {
            "array" => parse_array_type(self.type_name.as_deref()?),
            _ => None,
        }
    }

    /// The entry a live index line describes; `None` for a removal.
    pub(super) fn of_line(line: &LineView<'_>) -> Result<Option<EntryInfo>, StoreError> {
        let Some(handler) = &line.handler else {
            return Ok(None);
        };
        let owned = |s: &Option<std::borrow::Cow<'_, str>>| s.as_deref().map(str::to_owned);
        Ok(Some(EntryInfo {
            key: line.key.clone().into_owned(),
            type_name: owned(&line.type_name),
            fingerprint: owned(&line.fingerprint),
            handler: handler.clone().into_owned(),
            mode: line.mode,
            size: line.size,
            info: line.info().map_err(|e| corrupt_line(&line.key, e))?,
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
pub(super) fn corrupt_line(key: &str, e: crate::DecodeError) -> StoreError {
    StoreError::Corrupt {
        key: key.to_owned(),
        message: format!("index line: {e}"),
    }
}

/// The view of a line the index returned for `key`.
pub(super) fn view<'a>(key: &'a str, found: &'a Found) -> Result<LineView<'a>, StoreError> {
    found.view(key).map_err(|e| corrupt_line(key, e))
}

fn newer(writers: &[WriterFile], a: Stamp, b: Stamp) -> bool {
    let id = |s: Stamp| &*writers[s.writer as usize].id;
    (a.time, id(a), a.seq) > (b.time, id(b), b.seq)
}

/// The complete lines of `path` after byte `from`; `None` if there are none
/// yet. A final line without its newline is left for later.
fn read_complete_lines(path: &Path, from: u64) -> Result<Option<Vec<u8>>, StoreError> {
    let mut file = File::open(path).map_err(|e| StoreError::io(path, e))?;
    let len = file.metadata().map_err(|e| StoreError::io(path, e))?.len();
    if len <= from {
        return Ok(None);
    }
    file.seek(SeekFrom::Start(from))
        .map_err(|e| StoreError::io(path, e))?;
    // To the end, even past `len` if the file grew: one read of the size
    // the file had, where reading `len` bytes through `take` reads in
    // growing chunks.
    let mut buf = Vec::new();
    file.read_to_end(&mut buf)
        .map_err(|e| StoreError::io(path, e))?;
    match memchr::memrchr(b'\n', &buf) {
        Some(i) => {
            buf.truncate(i + 1);
            Ok(Some(buf))
        }
        None => Ok(None),
    }
}

/// The index files of a folder: `<writer>-info.jsonl`.
pub fn index_files(dir: &Path) -> Result<Vec<(String, PathBuf)>, StoreError> {
    let mut out = Vec::new();
    let mut replaced = Vec::new();
    let entries = std::fs::read_dir(dir).map_err(|e| StoreError::io(dir, e))?;
    for entry in entries {
        let entry = entry.map_err(|e| StoreError::io(dir, e))?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if let Some(writer) = name.strip_suffix("-info.jsonl") {
            out.push((writer.to_owned(), entry.path()));
        } else if name == super::compact::MARKER {
            replaced = super::compact::read_marker(dir)?.replaced;
        }
    }
    // Files a stopped compaction replaced: their entries were copied.
    out.retain(|(_, path)| {
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        !replaced.iter().any(|r| r == name)
    });
    out.sort();
    Ok(out)
}
