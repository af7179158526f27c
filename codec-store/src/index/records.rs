//! The records the store writes to disk. They are Codec types themselves, so
//! their schemas are committed under `schemas/` and checked for drift.

use std::collections::BTreeMap;

use codec_derive::Codec;

/// `codec-store.json`: what a reader checks before anything else.
#[derive(Codec, Debug, Clone, PartialEq)]
#[codec(crate = "codec_runtime", name = "codec.store.Meta")]
pub struct StoreMeta {
    /// The folder layout version.
    pub format: u32,
}

/// `compacting.json`: the files a compaction replaced and is deleting.
/// Readers ignore them, so a compaction stopped midway leaves the folder
/// as it was after it, never a mix of before and after.
#[derive(Codec, Debug, Clone, PartialEq)]
#[codec(crate = "codec_runtime", name = "codec.store.Compacting")]
pub struct Compacting {
    /// Index and data files, relative to the folder.
    pub replaced: Vec<String>,
    /// What online compactions retired while handles had the folder
    /// open: readers ignore those files at once too, and they are deleted
    /// once their retirement is older than the compaction's grace period
    /// (or by the next compaction that has the folder to itself).
    #[codec(default)]
    pub retired: Vec<RetiredFiles>,
}

/// `compacted.json`: what the last compaction that had the folder to
/// itself left, its logs and data by size. The next one, finding them as
/// they were and each of their lines live, has nothing to give back, and
/// copies nothing.
#[derive(Codec, Debug, Clone, PartialEq)]
#[codec(crate = "codec_runtime", name = "codec.store.LastCompaction")]
pub struct LastCompaction {
    /// Each log, by name, and its size.
    pub logs: BTreeMap<String, u64>,
    /// How many files `data/` held.
    pub data_files: u64,
    /// Their bytes.
    pub data_bytes: u64,
}

/// The files one online compaction of a folder retired.
#[derive(Codec, Debug, Clone, PartialEq)]
#[codec(crate = "codec_runtime", name = "codec.store.RetiredFiles")]
pub struct RetiredFiles {
    /// Index and data files, relative to the folder.
    pub files: Vec<String>,
    /// When they were retired, in nanoseconds since the Unix epoch.
    pub at: u64,
}

impl Compacting {
    /// Every file readers ignore: replaced or retired.
    pub fn ignored(&self) -> impl Iterator<Item = &String> {
        (self.replaced.iter()).chain(self.retired.iter().flat_map(|r| &r.files))
    }
}

/// How an entry's value was serialized.
#[derive(Codec, Debug, Clone, Copy, PartialEq, Eq, Default)]
#[codec(
    crate = "codec_runtime",
    name = "codec.store.Mode",
    rename_all = "lowercase"
)]
pub enum Mode {
    /// The value's MessagePack encoding (with its schema fingerprint).
    #[default]
    MsgPack,
    /// The value's JSON encoding (with its schema fingerprint).
    Json,
    /// Bytes stored as they are.
    Raw,
}

/// A value in a handler's info: handlers describe where they put a payload
/// (a file, an offset) and what it holds (a shape, a dtype, per-column
/// metadata), as any JSON value, like exca's info.
#[derive(Codec, Debug, Clone, PartialEq)]
#[codec(crate = "codec_runtime", name = "codec.store.InfoValue", untagged)]
pub enum InfoValue {
    /// An offset, a length, a count.
    Int(i64),
    /// A file name, an encoded payload.
    Text(String),
    /// JSON `null`.
    Null,
    /// A flag.
    Bool(bool),
    /// A number with a fraction (a non-finite one is written `null`).
    Float(f64),
    /// A list of values.
    List(Vec<InfoValue>),
    /// A map of values by name.
    Map(BTreeMap<String, InfoValue>),
}

impl InfoValue {
    /// The text, if this is one.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            InfoValue::Text(text) => Some(text),
            _ => None,
        }
    }

    /// The integer, if this is one.
    pub fn as_int(&self) -> Option<i64> {
        match self {
            InfoValue::Int(n) => Some(*n),
            _ => None,
        }
    }
}

impl From<bool> for InfoValue {
    fn from(v: bool) -> Self {
        InfoValue::Bool(v)
    }
}

impl From<f64> for InfoValue {
    fn from(v: f64) -> Self {
        InfoValue::Float(v)
    }
}

impl<T: Into<InfoValue>> From<Vec<T>> for InfoValue {
    fn from(v: Vec<T>) -> Self {
        InfoValue::List(v.into_iter().map(Into::into).collect())
    }
}

impl From<Info> for InfoValue {
    fn from(v: Info) -> Self {
        InfoValue::Map(v)
    }
}

impl From<i64> for InfoValue {
    fn from(v: i64) -> Self {
        InfoValue::Int(v)
    }
}

impl From<String> for InfoValue {
    fn from(v: String) -> Self {
        InfoValue::Text(v)
    }
}

impl From<&str> for InfoValue {
    fn from(v: &str) -> Self {
        InfoValue::Text(v.to_owned())
    }
}

/// What a handler returns from a dump and receives at load.
pub type Info = BTreeMap<String, InfoValue>;

/// One line of a writer's index file: an entry, or the deletion of a key.
///
/// On disk the line is this record's JSON followed by a checksum field:
/// `{"#key":"a","#type":"Chunk",...,"crc":"1a2b3c4d"}`, the CRC-32 covering
/// every byte before `,"crc"`.
#[derive(Codec, Debug, Clone, PartialEq)]
#[codec(crate = "codec_runtime", name = "codec.store.IndexLine")]
pub struct IndexLine {
    /// The entry's key.
    #[codec(rename = "#key")]
    pub key: String,
    /// The wire name of the value's type; `None` for raw bytes and deletions.
    #[codec(rename = "#type")]
    pub type_name: Option<String>,
    /// The schema fingerprint of the value's type, as hex.
    #[codec(default)]
    pub fingerprint: Option<String>,
    /// The handler that stored the payload; `None` marks a deletion.
    pub handler: Option<String>,
    /// How the value was serialized.
    #[codec(default)]
    pub mode: Mode,
    /// Where the handler put the payload.
    #[codec(default)]
    pub info: Info,
    /// Payload size in bytes.
    #[codec(default)]
    pub size: u64,
    /// Nanoseconds since the Unix epoch when the entry was written: later wins.
    pub time: u64,
    /// Position of the line in its writer's sequence: breaks ties within a writer.
    pub seq: u64,
    /// Nanoseconds since the Unix epoch from which the entry is expired:
    /// absent for reads, reclaimed by maintenance. `None`: it never expires
    /// (and the field is left out of the line).
    #[codec(default, skip_serializing_if = "Option::is_none")]
    pub expires: Option<u64>,
}

impl IndexLine {
    /// The line that removes `key`, at time `at` (0: when it is written).
    pub fn removal(key: &str, at: u64) -> IndexLine {
        IndexLine {
            key: key.to_owned(),
            type_name: None,
            fingerprint: None,
            handler: None,
            mode: Mode::Raw,
            info: Info::new(),
            size: 0,
            time: at,
            seq: 0,
            expires: None,
        }
    }
}

/// `checkpoint.json`: the checkpoint's tables and how much of each
/// writer's log they cover. Lines after that are read from the logs.
#[derive(Codec, Debug, Clone, PartialEq, Default)]
#[codec(crate = "codec_runtime", name = "codec.store.Checkpoint")]
pub struct Checkpoint {
    /// The checkpoint format version.
    pub format: u32,
    /// The tables (numbers of `index/<n>.idx`), oldest first: a key's
    /// latest line is the newest of its entries in all of them.
    pub tables: Vec<u64>,
    /// The number the next table gets.
    pub next_table: u64,
    /// Every writer the tables name, in the order their entries number them.
    pub writers: Vec<Covered>,
    /// Compactions committed so far (on object storage): a compaction
    /// that finds another one committed since it started gives up.
    #[codec(default)]
    pub compactions: u64,
    /// Logs a compaction replaced (on object storage), whose objects are
    /// deleted once it is older than its grace period.
    #[codec(default)]
    pub retired: Vec<Retired>,
}

/// The segments of one writer's log a compaction replaced.
#[derive(Codec, Debug, Clone, PartialEq)]
#[codec(crate = "codec_runtime", name = "codec.store.Retired")]
pub struct Retired {
    /// The writer id.
    pub id: String,
    /// The segments of its log replaced: those numbered below this.
    pub to: u64,
    /// The segments of its shared data that existed then: those numbered
    /// below this.
    #[codec(default)]
    pub data_to: u64,
    /// The files of its entries (`data/<writer>-<seq>...`, the `file`
    /// handler's and others' own) whose lines it replaced: those of
    /// sequences below this.
    #[codec(default)]
    pub files_to: u64,
    /// When the compaction started, in nanoseconds since the Unix epoch.
    pub at: u64,
}

/// How much of one writer's log a checkpoint covers.
#[derive(Codec, Debug, Clone, PartialEq)]
#[codec(crate = "codec_runtime", name = "codec.store.Covered")]
pub struct Covered {
    /// The writer id.
    pub id: String,
    /// The bytes of its log the tables cover (whole lines).
    pub to: u64,
    /// The CRC-32 of the last 64 of those bytes (fewer in a shorter log):
    /// a log that lost its end (to a power loss) and was written again
    /// no longer matches.
    #[codec(default)]
    pub tail: u32,
}

/// One use of a key, as a line of a `used/<writer>-<n>.jsonl` object: see
/// [`Admin::reduce_size`](crate::Admin::reduce_size).
#[derive(Codec, Debug, Clone, PartialEq)]
#[codec(crate = "codec_runtime", name = "codec.store.UseLine")]
pub struct UseLine {
    /// The key.
    #[codec(rename = "#key")]
    pub key: String,
    /// Nanoseconds since the Unix epoch: when the key was used (the first
    /// use of it in its handle's interval).
    pub at: u64,
}

/// `locks/<hash>.lock` where the backend has no locks that go with their
/// holder (object storage): the lease of a key being computed with
/// [`CacheOptions::memo_lock`](crate::CacheOptions::memo_lock).
#[derive(Codec, Debug, Clone, PartialEq)]
#[codec(crate = "codec_runtime", name = "codec.store.Lease")]
pub struct LeaseRecord {
    /// Who holds it: the holder's writer id and the number of its claim.
    pub holder: String,
    /// Nanoseconds since the Unix epoch, by the holder's clock: when the
    /// lease expires unless its holder renews it.
    pub expires: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The records are the store's layout: a change of one is a change of
    /// `STORE_FORMAT`, seen here first (`CODEC_UPDATE_SCHEMAS=1` rewrites
    /// the committed schemas once the format is raised).
    #[test]
    fn the_records_have_not_drifted() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/schemas");
        let check = codec::schema::DriftCheck::new(dir)
            .add::<StoreMeta>()
            .add::<IndexLine>()
            .add::<Mode>()
            .add::<InfoValue>()
            .add::<Compacting>()
            .add::<LastCompaction>()
            .add::<Checkpoint>()
            .add::<Covered>()
            .add::<Retired>()
            .add::<UseLine>()
            .add::<LeaseRecord>();
        if let Err(e) = check.run() {
            panic!("{e}");
        }
    }
}
