//! Folder checkpoints whose tables were written by a faulty or hostile
//! writer, their checksums right: an entry that does not say what its line
//! says (its key's hash, its time, whether it removes the key) is found
//! out when it is read, and the checkpoint put aside with a warning for
//! the logs, so a lookup answers with the newest line of its key, never
//! another line, nor none.

use std::path::Path;

use codec::{Cache, StoreError};

use crate::fixtures::{chunk, manual, Chunk};

/// A table's layout, as `codec-store/src/index/table.rs` documents it (the
/// file format, little-endian): a header of 64 bytes, then entries of 32
/// bytes, in blocks of 128, then a fence (u64) and a CRC-32 (u32) a block.
const HEADER: usize = 64;
const ENTRY: usize = 32;
const BLOCK: usize = 128;
/// The top bit of an entry's line length marks a removal.
const REMOVED: u32 = 1 << 31;

/// One entry of a table: where the newest line of a key is.
#[derive(Debug)]
struct Entry {
    time: u64,
    writer: u32,
    offset: u64,
    len: u32,
    removed: bool,
}

impl Entry {
    fn read(b: &[u8]) -> Entry {
        let u64_at = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().unwrap());
        let u32_at = |i: usize| u32::from_le_bytes(b[i..i + 4].try_into().unwrap());
        Entry {
            time: u64_at(8),
            offset: u64_at(16),
            writer: u32_at(24),
            len: u32_at(28) & !REMOVED,
            removed: u32_at(28) & REMOVED != 0,
        }
    }

    /// Writes every field back but the key hash, which orders the table.
    fn write(&self, b: &mut [u8]) {
        b[8..16].copy_from_slice(&self.time.to_le_bytes());
        b[16..24].copy_from_slice(&self.offset.to_le_bytes());
        b[24..28].copy_from_slice(&self.writer.to_le_bytes());
        let len = self.len | if self.removed { REMOVED } else { 0 };
        b[28..32].copy_from_slice(&len.to_le_bytes());
    }
}

/// Rewrites each table of the checkpoint of the folder store in `dir`
/// with `edit` applied to its entries (given the text of the line each
/// points at), then makes the table's checksums right again, as a writer
/// computing them over wrong entries would: the checksums cannot tell, so
/// only the check of each entry against its line can. The checksums are
/// computed here from the documented format, since the library keeps its
/// own private.
fn forge_tables(dir: &Path, edit: impl Fn(&str, &mut Entry)) {
    let text = std::fs::read_to_string(dir.join("checkpoint.json")).unwrap();
    let manifest: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    let logs: Vec<Vec<u8>> = (manifest["writers"].as_array().unwrap().iter())
        .map(|w| {
            let id = w["id"].as_str().unwrap();
            std::fs::read(dir.join(format!("{id}-info.jsonl"))).unwrap()
        })
        .collect();
    for n in manifest["tables"].as_array().unwrap() {
        let path = dir.join(format!("index/{:016x}.idx", n.as_u64().unwrap()));
        let mut bytes = std::fs::read(&path).unwrap();
        let count = u64::from_le_bytes(bytes[16..24].try_into().unwrap()) as usize;
        let blocks = count.div_ceil(BLOCK);
        for b in bytes[HEADER..HEADER + count * ENTRY].chunks_mut(ENTRY) {
            let mut e = Entry::read(b);
            let log = &logs[e.writer as usize];
            let line = &log[e.offset as usize..e.offset as usize + e.len as usize];
            edit(std::str::from_utf8(line).unwrap(), &mut e);
            e.write(b);
        }
        // The fences hold each block's first key hash, which no edit
        // changes; each block's CRC-32 is of its entries' bytes.
        let fences = HEADER + count * ENTRY;
        let checks = fences + blocks * 8;
        for block in 0..blocks {
            let start = HEADER + block * BLOCK * ENTRY;
            let end = HEADER + count.min((block + 1) * BLOCK) * ENTRY;
            let crc = crc32fast::hash(&bytes[start..end]).to_le_bytes();
            bytes[checks + block * 4..checks + block * 4 + 4].copy_from_slice(&crc);
        }
        let crc = crc32fast::hash(&bytes[fences..checks]).to_le_bytes();
        bytes[32..36].copy_from_slice(&crc);
        let crc = crc32fast::hash(&bytes[..60]).to_le_bytes();
        bytes[60..64].copy_from_slice(&crc);
        std::fs::write(&path, bytes).unwrap();
    }
}

/// Whether `line` is an index line of `key`.
fn of(line: &str, key: &str) -> bool {
    line.starts_with(&format!(r##"{{"#key":"{key}","##))
}

/// `reader` put the checkpoint aside, saying `why`, and a fresh handle's
/// check of the store finds the entry out too; the next checkpoint
/// `reader` builds is built from the logs alone, and trusted.
fn found_out(dir: &Path, reader: &Cache, why: &str) {
    let warnings = reader.warnings();
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("checkpoint is damaged") && w.contains(why)),
        "{warnings:?}"
    );
    let fresh = Cache::open_with(dir, manual()).unwrap();
    match fresh.admin().verify_index() {
        Err(StoreError::DamagedFile { address, message }) => {
            assert_eq!(address.as_path(), Some(&*dir.join("checkpoint.json")));
            assert!(message.contains(why), "{message}");
            assert!(
                message.contains("codec verify --rebuild-index"),
                "{message}"
            );
        }
        other => panic!("{other:?}"),
    }
    reader.admin().checkpoint().unwrap();
    let fresh = Cache::open_with(dir, manual()).unwrap();
    fresh.admin().verify_index().unwrap();
    assert_eq!(fresh.keys().unwrap(), reader.keys().unwrap());
    assert!(fresh.warnings().is_empty(), "{:?}", fresh.warnings());
}

/// A folder store of `k` and `other`, checkpointed, with the handle that
/// wrote them.
fn k_and_other_checkpointed() -> (tempfile::TempDir, Cache) {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open_with(dir.path(), manual()).unwrap();
    cache.put("k", &chunk(1)).unwrap();
    cache.put("other", &chunk(3)).unwrap();
    cache.admin().checkpoint().unwrap();
    (dir, cache)
}

/// Why an entry of `k` whose time or removal is not its line's is damage.
const MISMATCH: &str = "the entry of `k` does not match its line";

#[test]
fn a_table_entry_newer_than_its_line_is_found_out_and_the_newer_put_after_it_read() {
    let (dir, cache) = k_and_other_checkpointed();
    cache.put("k", &chunk(2)).unwrap();
    drop(cache);
    // An hour after its line: trusted, it would hide the put after it.
    forge_tables(dir.path(), |line, e| {
        if of(line, "k") {
            e.time += 3_600 * 1_000_000_000;
        }
    });
    let reader = Cache::open_with(dir.path(), manual()).unwrap();
    assert_eq!(reader.get::<Chunk>("k").unwrap(), Some(chunk(2)));
    assert_eq!(reader.get::<Chunk>("other").unwrap(), Some(chunk(3)));
    found_out(dir.path(), &reader, MISMATCH);
}

#[test]
fn a_table_entry_that_calls_a_put_a_removal_is_found_out_and_the_value_read() {
    let (dir, cache) = k_and_other_checkpointed();
    drop(cache);
    forge_tables(dir.path(), |line, e| e.removed |= of(line, "k"));
    let reader = Cache::open_with(dir.path(), manual()).unwrap();
    assert_eq!(reader.get::<Chunk>("k").unwrap(), Some(chunk(1)));
    assert_eq!(reader.len().unwrap(), 2);
    found_out(dir.path(), &reader, MISMATCH);
}

#[test]
fn a_table_entry_that_calls_a_removal_a_put_is_found_out_and_the_key_stays_removed() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open_with(dir.path(), manual()).unwrap();
    cache.put("k", &chunk(1)).unwrap();
    cache.remove("k").unwrap();
    cache.put("other", &chunk(3)).unwrap();
    cache.admin().checkpoint().unwrap();
    drop(cache);
    forge_tables(dir.path(), |line, e| e.removed &= !of(line, "k"));
    let reader = Cache::open_with(dir.path(), manual()).unwrap();
    assert_eq!(reader.get::<Chunk>("k").unwrap(), None);
    assert_eq!(reader.len().unwrap(), 1);
    found_out(dir.path(), &reader, MISMATCH);
}

#[test]
fn a_table_entry_pointing_at_another_keys_line_is_found_out_and_both_keys_read() {
    let (dir, cache) = k_and_other_checkpointed();
    drop(cache);
    // The entry of `k` made a copy of that of `other`, but for the key's
    // hash, which orders the table: only the line's key can tell.
    let other = std::cell::Cell::new(None);
    forge_tables(dir.path(), |line, e| {
        if of(line, "other") {
            other.set(Some((e.time, e.offset, e.len)));
        }
    });
    let (time, offset, len) = other.get().unwrap();
    forge_tables(dir.path(), |line, e| {
        if of(line, "k") {
            (e.time, e.offset, e.len) = (time, offset, len);
        }
    });
    let reader = Cache::open_with(dir.path(), manual()).unwrap();
    assert_eq!(reader.get::<Chunk>("k").unwrap(), Some(chunk(1)));
    assert_eq!(reader.get::<Chunk>("other").unwrap(), Some(chunk(3)));
    let fresh = Cache::open_with(dir.path(), manual()).unwrap();
    assert_eq!(fresh.keys().unwrap(), ["k", "other"]);
    found_out(dir.path(), &reader, "points at the line of `other`");
}

#[test]
fn a_checkpoint_that_merges_an_entry_not_pointing_at_a_line_is_built_again_from_the_logs() {
    let (dir, cache) = k_and_other_checkpointed();
    drop(cache);
    // The entry of `k` points into the middle of its line.
    forge_tables(dir.path(), |line, e| {
        if of(line, "k") {
            (e.offset, e.len) = (e.offset + 1, e.len - 1);
        }
    });
    // A put of `k` makes the next checkpoint merge its entry with the
    // table's, which reads the key of the table's entry from its line.
    let writer = Cache::open_with(dir.path(), manual()).unwrap();
    writer.put("k", &chunk(2)).unwrap();
    writer.admin().checkpoint().unwrap();
    let warnings = writer.warnings();
    assert!(
        (warnings.iter()).any(|w| w.contains("the checkpoint is damaged") && w.contains("rebuilt")),
        "{warnings:?}"
    );
    let fresh = Cache::open_with(dir.path(), manual()).unwrap();
    assert_eq!(fresh.admin().verify_index().unwrap(), 2);
    assert_eq!(fresh.get::<Chunk>("k").unwrap(), Some(chunk(2)));
    assert_eq!(fresh.get::<Chunk>("other").unwrap(), Some(chunk(3)));
    assert!(fresh.warnings().is_empty(), "{:?}", fresh.warnings());
}
