//! A checkpoint table: the live line of each key as of a checkpoint, sorted
//! by the key's hash and memory-mapped, so that opening a folder reads none
//! of it and a lookup touches two pages.
//!
//! The table holds no keys: an entry points at its line in a writer's log
//! (which holds the key, checked against the one looked up, and the line's
//! own checksum). Layout, little-endian:
//!
//! ```text
//! header   64 bytes: magic, version, entries, blocks, CRC-32 of the fences, CRC-32 of the header
//! entries  32 bytes each: key hash u64, time u64, log offset u64, writer u32, line length u32
//!          (the top bit of the length marks a removal)
//! fences   u64 per block of 128 entries: the first key hash of the block
//! checks   u32 per block: the CRC-32 of the block's entries
//! ```
//!
//! On backends without memory maps (object storage), where a writer's log
//! is many small objects, a table holds the lines too (version 2): after
//! the checks, the lines its entries point at, each ending in a newline,
//! and an entry's offset is into them. The header says how many bytes
//! they are. Such a table is read whole, in one request.
//!
//! A table is written once, aside, synced, then renamed into place (or
//! created whole, on object storage); never changed after. Its header and
//! fences are checked when it is opened, each block the first time a
//! lookup reads it, each line it holds by its own checksum: a damaged
//! table is found before any of its entries is trusted.

use std::io::{Cursor, Seek, SeekFrom, Write};
use std::ops::Deref;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::backend::Mapped;

const MAGIC: &[u8; 8] = b"codecidx";
/// Entries point into the writers' logs.
const VERSION: u32 = 1;
/// Entries point into the lines the table holds.
const VERSION_LINES: u32 = 2;
const HEADER: usize = 64;
const ENTRY: usize = 32;
/// Entries per block: a block is one 4 KiB page.
pub const BLOCK: usize = 128;
const REMOVED: u32 = 1 << 31;

/// The hash that orders a table: FNV-1a with a final mix, fixed forever
/// (it is part of the file format).
pub fn key_hash(key: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in key.as_bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    // splitmix64's finalizer: every input bit reaches every output bit.
    h ^= h >> 30;
    h = h.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h ^= h >> 27;
    h = h.wrapping_mul(0x94d0_49bb_1331_11eb);
    h ^ (h >> 31)
}

/// One entry: where the live line of a key is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    pub hash: u64,
    /// The line's time (its stamp, with the writer).
    pub time: u64,
    /// The line's offset in its writer's log.
    pub offset: u64,
    /// The writer, by its position in the checkpoint's writer list.
    pub writer: u32,
    /// The line's length, without its newline.
    pub len: u32,
    /// The line removes the key.
    pub removed: bool,
}

impl Entry {
    fn encode(&self, out: &mut [u8]) {
        out[0..8].copy_from_slice(&self.hash.to_le_bytes());
        out[8..16].copy_from_slice(&self.time.to_le_bytes());
        out[16..24].copy_from_slice(&self.offset.to_le_bytes());
        out[24..28].copy_from_slice(&self.writer.to_le_bytes());
        let len = self.len | if self.removed { REMOVED } else { 0 };
        out[28..32].copy_from_slice(&len.to_le_bytes());
    }

    fn decode(b: &[u8]) -> Entry {
        let u64_at = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().expect("8 bytes"));
        let u32_at = |i: usize| u32::from_le_bytes(b[i..i + 4].try_into().expect("4 bytes"));
        let len = u32_at(28);
        Entry {
            hash: u64_at(0),
            time: u64_at(8),
            offset: u64_at(16),
            writer: u32_at(24),
            len: len & !REMOVED,
            removed: len & REMOVED != 0,
        }
    }
}

/// The bytes of a table whose `entries` (sorted by hash) point into the
/// writers' logs.
pub fn encode(entries: &[Entry]) -> Vec<u8> {
    let out =
        write_to(Cursor::new(Vec::new()), entries, None).expect("writing to memory cannot fail");
    out.into_inner()
}

/// The bytes of a table holding its lines: `entries` (sorted by hash)
/// point into `lines` (each line followed by a newline).
pub fn encode_with_lines(entries: &[Entry], lines: &[u8]) -> Vec<u8> {
    let out = write_to(Cursor::new(Vec::new()), entries, Some(lines))
        .expect("writing to memory cannot fail");
    out.into_inner()
}

fn write_to<W: Write + Seek>(
    mut out: W,
    entries: &[Entry],
    lines: Option<&[u8]>,
) -> std::io::Result<W> {
    debug_assert!(entries.windows(2).all(|w| w[0].hash <= w[1].hash));
    let blocks = entries.len().div_ceil(BLOCK);
    let mut fences = Vec::with_capacity(blocks * 8);
    let mut checks = Vec::with_capacity(blocks * 4);
    // The header goes last, once the fences' checksum is known.
    out.write_all(&[0; HEADER])?;
    let mut block = vec![0u8; BLOCK * ENTRY];
    for chunk in entries.chunks(BLOCK) {
        let bytes = &mut block[..chunk.len() * ENTRY];
        for (e, b) in chunk.iter().zip(bytes.chunks_mut(ENTRY)) {
            e.encode(b);
        }
        fences.extend_from_slice(&chunk[0].hash.to_le_bytes());
        checks.extend_from_slice(&crc32fast::hash(bytes).to_le_bytes());
        out.write_all(bytes)?;
    }
    out.write_all(&fences)?;
    out.write_all(&checks)?;
    if let Some(lines) = lines {
        out.write_all(lines)?;
    }
    let header = header(
        entries.len() as u64,
        blocks as u64,
        crc32fast::hash(&fences),
        lines.map(|l| l.len() as u64),
    );
    out.seek(SeekFrom::Start(0))?;
    out.write_all(&header)?;
    Ok(out)
}

fn header(entries: u64, blocks: u64, fences_crc: u32, lines: Option<u64>) -> [u8; HEADER] {
    let mut h = [0u8; HEADER];
    h[0..8].copy_from_slice(MAGIC);
    let version = if lines.is_some() {
        VERSION_LINES
    } else {
        VERSION
    };
    h[8..12].copy_from_slice(&version.to_le_bytes());
    h[16..24].copy_from_slice(&entries.to_le_bytes());
    h[24..32].copy_from_slice(&blocks.to_le_bytes());
    h[32..36].copy_from_slice(&fences_crc.to_le_bytes());
    h[40..48].copy_from_slice(&lines.unwrap_or(0).to_le_bytes());
    let crc = crc32fast::hash(&h[..60]);
    h[60..64].copy_from_slice(&crc.to_le_bytes());
    h
}

/// Makes the checksums of a table's header, fences and blocks right for
/// its bytes, as far as the header's counts fit in them.
#[cfg(feature = "fuzzing")]
pub fn seal(bytes: &mut [u8]) {
    if bytes.len() < HEADER {
        return;
    }
    let u64_at = |b: &[u8], i: usize| u64::from_le_bytes(b[i..i + 8].try_into().expect("8 bytes"));
    let (entries, blocks) = (u64_at(bytes, 16), u64_at(bytes, 24));
    let fences = entries
        .checked_mul(ENTRY as u64)
        .and_then(|e| e.checked_add(HEADER as u64));
    let checks = fences.and_then(|f| f.checked_add(blocks.checked_mul(8)?));
    let end = checks.and_then(|c| c.checked_add(blocks.checked_mul(4)?));
    if let (Some(fences), Some(checks), Some(end)) = (fences, checks, end)
        && end <= bytes.len() as u64
    {
        let (fences, checks) = (fences as usize, checks as usize);
        for n in 0..blocks as usize {
            let start = HEADER + n * BLOCK * ENTRY;
            let stop = HEADER + (entries as usize).min((n + 1) * BLOCK) * ENTRY;
            let crc = crc32fast::hash(bytes.get(start..stop.max(start)).unwrap_or_default());
            bytes[checks + n * 4..checks + n * 4 + 4].copy_from_slice(&crc.to_le_bytes());
        }
        let crc = crc32fast::hash(&bytes[fences..checks]);
        bytes[32..36].copy_from_slice(&crc.to_le_bytes());
    }
    let crc = crc32fast::hash(&bytes[..60]);
    bytes[60..64].copy_from_slice(&crc.to_le_bytes());
}

/// An open table.
pub struct Table {
    map: Bytes,
    entries: usize,
    blocks: usize,
    /// The bytes of the lines it holds, if it holds them.
    lines: Option<usize>,
    /// One bit per block: its checksum was found right.
    checked: Vec<AtomicU64>,
    /// How many writers the checkpoint lists: entries number them.
    writers: usize,
}

/// A table's bytes are not what was written.
#[derive(Debug)]
pub struct Damaged(pub String);

impl Table {
    /// The table of a map of its object, checked (header and fences),
    /// of a checkpoint listing `writers` writers.
    pub fn from_mapped(map: Mapped, writers: usize) -> Result<Table, Damaged> {
        Self::check(Bytes::Mapped(map), writers)
    }

    /// The table of `bytes`, read whole (from a backend without maps), of
    /// a checkpoint listing `writers` writers.
    pub fn from_bytes(bytes: Vec<u8>, writers: usize) -> Result<Table, Damaged> {
        Self::check(Bytes::Owned(bytes), writers)
    }

    fn check(map: Bytes, writers: usize) -> Result<Table, Damaged> {
        let damaged = |why: &str| Err(Damaged(why.to_owned()));
        if map.len() < HEADER || &map[0..8] != MAGIC {
            return damaged("not a checkpoint table");
        }
        let h: [u8; HEADER] = map[..HEADER].try_into().expect("checked above");
        if crc32fast::hash(&h[..60]).to_le_bytes() != h[60..64] {
            return damaged("header checksum mismatch");
        }
        let u64_at = |i: usize| u64::from_le_bytes(h[i..i + 8].try_into().expect("8 bytes"));
        let lines = match u32::from_le_bytes(h[8..12].try_into().expect("4 bytes")) {
            VERSION => None,
            VERSION_LINES => Some(u64_at(40)),
            _ => return damaged("unknown table version"),
        };
        let (entries, blocks) = (u64_at(16), u64_at(24));
        let expected_len = entries
            .checked_mul(ENTRY as u64)
            .and_then(|e| e.checked_add(blocks.checked_mul(12)?))
            .and_then(|e| e.checked_add(HEADER as u64))
            .and_then(|e| e.checked_add(lines.unwrap_or(0)));
        if blocks != entries.div_ceil(BLOCK as u64) || expected_len != Some(map.len() as u64) {
            return damaged("the table's length does not match its header");
        }
        let (entries, blocks) = (entries as usize, blocks as usize);
        let table = Table {
            checked: (0..blocks.div_ceil(64))
                .map(|_| AtomicU64::new(0))
                .collect(),
            map,
            entries,
            blocks,
            lines: lines.map(|l| l as usize),
            writers,
        };
        if crc32fast::hash(table.fences_bytes()).to_le_bytes() != h[32..36] {
            return damaged("fences checksum mismatch");
        }
        Ok(table)
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        self.entries
    }

    fn fences_bytes(&self) -> &[u8] {
        let start = HEADER + self.entries * ENTRY;
        &self.map[start..start + self.blocks * 8]
    }

    fn fence(&self, block: usize) -> u64 {
        let b = &self.fences_bytes()[block * 8..block * 8 + 8];
        u64::from_le_bytes(b.try_into().expect("8 bytes"))
    }

    /// The entries of block `n`, checked against its checksum and the
    /// checkpoint's writers.
    fn block(&self, n: usize) -> Result<&[u8], Damaged> {
        let start = HEADER + n * BLOCK * ENTRY;
        let end = HEADER + (self.entries.min((n + 1) * BLOCK)) * ENTRY;
        let bytes = &self.map[start..end];
        let (word, bit) = (n / 64, 1u64 << (n % 64));
        if self.checked[word].load(Ordering::Relaxed) & bit == 0 {
            let checks = HEADER + self.entries * ENTRY + self.blocks * 8;
            let expected = &self.map[checks + n * 4..checks + n * 4 + 4];
            if crc32fast::hash(bytes).to_le_bytes() != expected {
                return Err(Damaged(format!("block {n} checksum mismatch")));
            }
            // Entries number their writer in the checkpoint's list: a
            // number past it would be taken up by every reader.
            let mut entries = bytes.chunks(ENTRY).map(Entry::decode);
            if let Some(e) = entries.find(|e| e.writer as usize >= self.writers) {
                return Err(Damaged(format!(
                    "block {n}: an entry names writer {}, of {} the checkpoint lists",
                    e.writer, self.writers
                )));
            }
            self.checked[word].fetch_or(bit, Ordering::Relaxed);
        }
        Ok(bytes)
    }

    /// The entries whose key hash is `hash` (keys with the same hash, or
    /// none), each from a checked block.
    pub fn find(&self, hash: u64, out: &mut Vec<Entry>) -> Result<(), Damaged> {
        // The last block starting below `hash`: equal hashes may begin in it.
        let mut block = partition_point(self.blocks, |b| self.fence(b) < hash).saturating_sub(1);
        while block < self.blocks {
            let bytes = self.block(block)?;
            let n = bytes.len() / ENTRY;
            let entry = |i: usize| Entry::decode(&bytes[i * ENTRY..(i + 1) * ENTRY]);
            let mut i = partition_point(n, |i| entry(i).hash < hash);
            while i < n {
                let e = entry(i);
                if e.hash != hash {
                    return Ok(());
                }
                out.push(e);
                i += 1;
            }
            block += 1;
        }
        Ok(())
    }

    /// Every entry, in hash order, from checked blocks.
    pub fn iter(&self) -> impl Iterator<Item = Result<Entry, Damaged>> + '_ {
        (0..self.blocks).flat_map(move |b| {
            let block: Vec<Result<Entry, Damaged>> = match self.block(b) {
                Ok(bytes) => bytes.chunks(ENTRY).map(|e| Ok(Entry::decode(e))).collect(),
                Err(e) => vec![Err(e)],
            };
            block
        })
    }

    /// The line `e` points at, without its newline, if the table holds
    /// its lines; `None` if its entries point into the writers' logs.
    pub fn own_line(&self, e: &Entry) -> Option<Result<&[u8], Damaged>> {
        let len = self.lines?;
        let lines = &self.map[self.map.len() - len..];
        let start = e.offset as usize;
        let end = start.saturating_add(e.len as usize);
        Some(match lines.get(start..=end) {
            Some(line) if line[line.len() - 1] == b'\n' => Ok(&line[..line.len() - 1]),
            _ => Err(Damaged(format!(
                "an entry points past the end of the table's lines ({start}..{end} of {len})"
            ))),
        })
    }

    /// Checks every block; the first damaged one is the error.
    pub fn verify(&self) -> Result<(), Damaged> {
        (0..self.blocks).try_for_each(|b| self.block(b).map(|_| ()))
    }
}

/// A table's bytes: mapped from a file, or read whole.
enum Bytes {
    Mapped(Mapped),
    Owned(Vec<u8>),
}

impl Deref for Bytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            Bytes::Mapped(map) => map,
            Bytes::Owned(bytes) => bytes,
        }
    }
}

/// The first `i` in `0..n` where `pred(i)` is false (`pred` true then false).
fn partition_point(n: usize, pred: impl Fn(usize) -> bool) -> usize {
    let (mut lo, mut hi) = (0, n);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if pred(mid) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::folder::Folder;
    use crate::backend::Maps as _;
    use std::path::Path;

    fn write(path: &Path, entries: &[Entry]) -> std::io::Result<()> {
        std::fs::write(path, encode(entries))
    }

    /// The table at `path`, mapped.
    fn open(path: &Path) -> std::io::Result<Result<Table, Damaged>> {
        let folder = Folder::new(path.parent().expect("a file in a folder"));
        let name = path.file_name().expect("a file").to_string_lossy();
        let map = folder.map(&name).map_err(|e| e.source)?;
        Ok(Table::from_mapped(map, 3))
    }

    fn entry(hash: u64, i: u64) -> Entry {
        Entry {
            hash,
            time: i,
            offset: i * 100,
            writer: (i % 3) as u32,
            len: 99,
            removed: i.is_multiple_of(5),
        }
    }

    #[test]
    fn a_table_finds_every_entry_and_equal_hashes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.idx");
        let mut entries: Vec<Entry> = (0..1000)
            .map(|i| entry(key_hash(&i.to_string()), i))
            .collect();
        // Equal hashes across a block boundary.
        entries.extend((0..200).map(|i| entry(42, 2000 + i)));
        entries.sort_by_key(|e| e.hash);
        write(&path, &entries).unwrap();
        let table = open(&path).unwrap().unwrap();
        assert_eq!(table.len(), 1200);
        let mut found = Vec::new();
        for e in &entries[..] {
            found.clear();
            table.find(e.hash, &mut found).unwrap();
            assert!(found.contains(e));
        }
        found.clear();
        table.find(42, &mut found).unwrap();
        assert_eq!(found.len(), 200);
        found.clear();
        table.find(43, &mut found).unwrap();
        assert!(found.is_empty());
        assert_eq!(table.iter().count(), 1200);
    }

    #[test]
    fn a_damaged_table_is_found_out() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.idx");
        let mut entries: Vec<Entry> = (0..500)
            .map(|i| entry(key_hash(&i.to_string()), i))
            .collect();
        entries.sort_by_key(|e| e.hash);
        write(&path, &entries).unwrap();
        let good = std::fs::read(&path).unwrap();
        for at in [
            3,
            20,
            61,
            HEADER + 5,
            HEADER + 200 * ENTRY + 9,
            good.len() - 3,
            good.len() - 20,
        ] {
            let mut bad = good.clone();
            bad[at] ^= 0x10;
            std::fs::write(&path, &bad).unwrap();
            let damaged = match open(&path).unwrap() {
                Err(_) => true,
                Ok(table) => table.verify().is_err(),
            };
            assert!(damaged, "a flip at byte {at} went unnoticed");
        }
        std::fs::write(&path, &good[..good.len() - 1]).unwrap();
        assert!(open(&path).unwrap().is_err());
    }

    #[test]
    fn a_table_holding_its_lines_finds_them_and_its_damage_is_found_out() {
        let mut lines = Vec::new();
        let mut entries: Vec<Entry> = (0..300u64)
            .map(|i| {
                let line = format!("line {i}");
                let e = Entry {
                    hash: key_hash(&line),
                    time: i,
                    offset: lines.len() as u64,
                    writer: 0,
                    len: line.len() as u32,
                    removed: false,
                };
                lines.extend_from_slice(line.as_bytes());
                lines.push(b'\n');
                e
            })
            .collect();
        entries.sort_by_key(|e| e.hash);
        let good = encode_with_lines(&entries, &lines);
        let table = Table::from_bytes(good.clone(), 1).unwrap();
        for e in &entries {
            let line = table.own_line(e).unwrap().unwrap();
            assert_eq!(line, format!("line {}", e.time).as_bytes());
        }
        for at in [10, 40, HEADER + 7, good.len() - lines.len() - 2] {
            let mut bad = good.clone();
            bad[at] ^= 0x10;
            let damaged = match Table::from_bytes(bad, 1) {
                Err(_) => true,
                Ok(table) => table.verify().is_err(),
            };
            assert!(damaged, "a flip at byte {at} went unnoticed");
        }
        // Lines cut short: the length no longer matches the header.
        assert!(Table::from_bytes(good[..good.len() - 1].to_vec(), 1).is_err());
        // An entry pointing past the lines is an error, not a panic.
        let mut far = entries[0];
        far.offset = u64::MAX - 3;
        assert!(table.own_line(&far).unwrap().is_err());
        // A table of the logs holds no lines.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.idx");
        write(&path, &entries).unwrap();
        assert!(open(&path)
            .unwrap()
            .unwrap()
            .own_line(&entries[0])
            .is_none());
    }
}
