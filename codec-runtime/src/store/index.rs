//! Index files: one JSON line per entry, each with a CRC-32, appended with a
//! single write. Readers skip a torn last line (it may still be being
//! written) and a corrupt middle line (with a warning), never the folder.

use std::collections::HashMap;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use super::error::StoreError;
use super::records::IndexLine;

const SUFFIX_LEN: usize = r#","crc":"00000000"}"#.len();

/// The bytes of one index line, newline included.
pub fn encode_line(line: &IndexLine) -> Result<Vec<u8>, StoreError> {
    let mut json = crate::to_json_vec(line)?;
    json.pop(); // the closing brace: the checksum field goes before it
    let crc = crc32fast::hash(&json);
    json.extend_from_slice(format!(",\"crc\":\"{crc:08x}\"}}\n").as_bytes());
    Ok(json)
}

/// Parses one line (without its newline), checking its checksum.
pub fn decode_line(bytes: &[u8]) -> Result<IndexLine, String> {
    if bytes.len() < SUFFIX_LEN + 2 || !bytes.starts_with(b"{") {
        return Err("not an index line".into());
    }
    let (body, suffix) = bytes.split_at(bytes.len() - SUFFIX_LEN);
    let hex = suffix
        .strip_prefix(br#","crc":""#)
        .and_then(|s| s.strip_suffix(br#""}"#))
        .ok_or("no checksum at the end of the line")?;
    let expected = std::str::from_utf8(hex)
        .ok()
        .and_then(|h| u32::from_str_radix(h, 16).ok())
        .ok_or("malformed checksum")?;
    if crc32fast::hash(body) != expected {
        return Err("checksum mismatch".into());
    }
    crate::from_json_slice(bytes).map_err(|e| e.to_string())
}

/// What reading new lines of one index file found.
pub struct ReadLines {
    pub lines: Vec<IndexLine>,
    pub warnings: Vec<String>,
}

/// Reads the complete lines of `path` after byte `*offset`, and moves
/// `*offset` past them. A final line without its newline is left for later.
pub fn read_new_lines(path: &Path, offset: &mut u64) -> Result<ReadLines, StoreError> {
    let mut file = File::open(path).map_err(|e| StoreError::io(path, e))?;
    let len = file.metadata().map_err(|e| StoreError::io(path, e))?.len();
    let mut out = ReadLines {
        lines: Vec::new(),
        warnings: Vec::new(),
    };
    if len <= *offset {
        return Ok(out);
    }
    file.seek(SeekFrom::Start(*offset))
        .map_err(|e| StoreError::io(path, e))?;
    let mut buf = Vec::with_capacity((len - *offset) as usize);
    file.take(len - *offset)
        .read_to_end(&mut buf)
        .map_err(|e| StoreError::io(path, e))?;
    let complete = match buf.iter().rposition(|&b| b == b'\n') {
        Some(i) => i + 1,
        None => return Ok(out),
    };
    let mut line_start = *offset;
    for raw in buf[..complete].split(|&b| b == b'\n') {
        let at = line_start;
        line_start += raw.len() as u64 + 1;
        if raw.is_empty() {
            continue; // the separator written after a torn line
        }
        match decode_line(raw) {
            Ok(line) => out.lines.push(line),
            Err(why) => out.warnings.push(format!(
                "{}: skipped the line at byte {at}: {why}",
                path.display()
            )),
        }
    }
    *offset += complete as u64;
    Ok(out)
}

/// The index files of a folder: `<writer>-info.jsonl`.
pub fn index_files(dir: &Path) -> Result<Vec<(String, PathBuf)>, StoreError> {
    let mut out = Vec::new();
    let entries = std::fs::read_dir(dir).map_err(|e| StoreError::io(dir, e))?;
    for entry in entries {
        let entry = entry.map_err(|e| StoreError::io(dir, e))?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if let Some(writer) = name.strip_suffix("-info.jsonl") {
            out.push((writer.to_owned(), entry.path()));
        }
    }
    out.sort();
    Ok(out)
}

/// The live entry of each key: the latest line by (time, writer, seq).
#[derive(Default)]
pub struct Index {
    pub entries: HashMap<String, (IndexLine, String)>,
    pub offsets: HashMap<PathBuf, u64>,
    pub warnings: Vec<String>,
}

impl Index {
    /// Reads whatever was appended to the folder's index files since last time.
    pub fn refresh(&mut self, dir: &Path) -> Result<(), StoreError> {
        for (writer, path) in index_files(dir)? {
            let offset = self.offsets.entry(path.clone()).or_insert(0);
            let read = read_new_lines(&path, offset)?;
            self.warnings.extend(read.warnings);
            for line in read.lines {
                self.apply(line, &writer);
            }
        }
        Ok(())
    }

    /// Records a line if it is newer than the key's current one. Deletions
    /// are kept as lines without a handler, so an older write read later
    /// cannot resurrect the key.
    pub fn apply(&mut self, line: IndexLine, writer: &str) {
        let newer = match self.entries.get(&line.key) {
            Some((current, current_writer)) => {
                (line.time, writer, line.seq) > (current.time, current_writer.as_str(), current.seq)
            }
            None => true,
        };
        if newer {
            self.entries
                .insert(line.key.clone(), (line, writer.to_owned()));
        }
    }

    /// The live line of a key.
    pub fn get(&self, key: &str) -> Option<&IndexLine> {
        self.entries
            .get(key)
            .map(|(line, _)| line)
            .filter(|line| line.handler.is_some())
    }
}
