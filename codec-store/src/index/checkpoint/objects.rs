//! How a checkpoint build reads where each append is an object of its own
//! (object storage, memory): a writer's log is one object per append
//! ([`Segments`](crate::backend::Appends::Segments)), so a table holds
//! the lines it points at and is read whole, and the manifest counts the
//! segments of each writer it covers. The build itself is the one of
//! every backend ([`build`](super::build)).
//!
//! A handle holds the bytes of the segments it wrote or read that no
//! checkpoint covers ([`Known`]): its builds in the background cover
//! those, with no request for a segment, rather than reading every segment
//! of every writer again (handles writing at once would each read them all).

use std::collections::HashMap;
use std::sync::Arc;

use crate::backend::Backend;
use crate::error::StoreError;
use crate::index::checkpoint::build::{add_lines, writer_of, OlderTables};
use crate::index::checkpoint::checked;
use crate::index::logs;
use crate::index::records::Checkpoint;
use crate::index::table::{self, Damaged, Entry, Table};
use crate::layout;

/// Segments a handle holds, by object name: their bytes, whole lines.
pub type Known = HashMap<String, Arc<[u8]>>;

/// The segments a build reads.
#[derive(Clone, Copy)]
pub enum Sources<'a> {
    /// Every segment listed: those known from there, the others by a
    /// request each.
    Listed(&'a Known),
    /// The known ones only (no request), each writer's up to its first
    /// segment not known.
    Known(&'a Known),
    /// Every segment listed, each read by a request (and where logs grow
    /// in place, which reads them where the checkpoint ends).
    Every,
}

/// The newest line of each key among the segments the manifest does not
/// cover that `sources` gives, as entries sorted by hash pointing into
/// `text`; moves the manifest's coverage past them. Also returns the lines
/// read.
pub(super) fn read_new_segments(
    backend: &dyn Backend,
    manifest: &mut Checkpoint,
    text: &mut Vec<u8>,
    sources: Sources<'_>,
) -> Result<(Vec<Entry>, u64), StoreError> {
    let none = Known::new();
    let (mut names, known, listed) = match sources {
        Sources::Every => {
            let listed = logs(backend)?.into_iter().map(|log| (log.writer, log.name));
            (listed.collect::<Vec<_>>(), &none, true)
        }
        Sources::Listed(known) => {
            let listed = logs(backend)?.into_iter().map(|log| (log.writer, log.name));
            (listed.collect::<Vec<_>>(), known, true)
        }
        Sources::Known(known) => {
            let names = known
                .keys()
                .filter_map(|name| Some((layout::log_writer(name)?.to_owned(), name.clone())));
            (names.collect(), known, false)
        }
    };
    // By writer, then segment number: coverage moves over each segment in
    // turn.
    names.sort_by_cached_key(|(writer, _)| {
        let (id, n) = layout::segment_of(writer);
        (id.to_owned(), n)
    });
    let mut newest: HashMap<Box<str>, Entry> = HashMap::new();
    let mut lines = 0;
    for (writer, name) in names {
        let (id, n) = layout::segment_of(&writer);
        let w = writer_of(manifest, id);
        let to = manifest.writers[w].to;
        // Known segments cover a writer's log up to the first one missing;
        // listed ones are all there is.
        if n < to || (!listed && n > to) {
            continue;
        }
        let bytes = match known.get(&name) {
            Some(bytes) => bytes.to_vec(),
            None if listed => match backend.read(&name)? {
                Some(bytes) => bytes,
                // A segment gone since the listing went with a
                // compaction, which replaced the manifest too: this build
                // will not commit.
                None => continue,
            },
            None => continue,
        };
        // A segment is one append of whole lines.
        let complete = memchr::memrchr(b'\n', &bytes).map_or(0, |i| i + 1);
        let from = text.len() as u64;
        text.extend_from_slice(&bytes[..complete]);
        lines += add_lines(&mut newest, &bytes[..complete], from, w, &manifest.writers);
        manifest.writers[w].to = n + 1;
    }
    let mut entries: Vec<Entry> = newest.into_values().collect();
    entries.sort_unstable_by_key(|e| (e.hash, e.writer, e.offset));
    Ok((entries, lines))
}

/// The tables of a checkpoint that hold their lines: merged, their lines
/// are copied to the end of `text`, where the build's entries point.
pub(super) struct HoldingTables<'a> {
    pub(super) tables: &'a [(u64, Table)],
    pub(super) text: &'a mut Vec<u8>,
}

impl OlderTables for HoldingTables<'_> {
    fn count(&self) -> usize {
        self.tables.len()
    }

    fn len(&self, t: usize) -> usize {
        self.tables[t].1.len()
    }

    fn entries(&mut self, t: usize) -> Result<Vec<Entry>, Damaged> {
        pull(&self.tables[t].1, self.text)
    }

    fn key(&self, e: &Entry) -> Result<String, Damaged> {
        Ok(checked(line_at(self.text, e))?.1.key.into_owned())
    }
}

/// The entries of a table, their lines copied to the end of `text`.
fn pull(table: &Table, text: &mut Vec<u8>) -> Result<Vec<Entry>, Damaged> {
    let mut out = Vec::with_capacity(table.len());
    for e in table.iter() {
        let mut e = e?;
        let line = table
            .own_line(&e)
            .unwrap_or_else(|| Err(Damaged("a table without its lines".into())))?;
        let offset = text.len() as u64;
        text.extend_from_slice(line);
        text.push(b'\n');
        e.offset = offset;
        out.push(e);
    }
    Ok(out)
}

/// The line entry `e` points at in `text`.
fn line_at<'a>(text: &'a [u8], e: &Entry) -> &'a [u8] {
    &text[e.offset as usize..e.offset as usize + e.len as usize]
}

/// The table of `entries`, holding the lines they point at in `text`
/// (and pointing into its own lines from then on).
pub(super) fn table_bytes(entries: &mut [Entry], text: &[u8]) -> Vec<u8> {
    let mut lines = Vec::new();
    for e in entries.iter_mut() {
        let offset = lines.len() as u64;
        lines.extend_from_slice(line_at(text, e));
        lines.push(b'\n');
        e.offset = offset;
    }
    table::encode_with_lines(entries, &lines)
}
