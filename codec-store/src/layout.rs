//! The names of a cache folder on disk: files, suffixes, markers and the
//! built-in handlers. Nothing else in the store spells them.
//!
//! ```text
//! codec-store.json            the layout version
//! codec-store.lock            shared by handles, exclusive for a compaction
//! <writer>-info.jsonl         one index log per writer; once it is
//!                             sealed, the writer's next segment is
//!                             <writer>.<n>-info.jsonl, with its data in
//!                             data/<writer>.<n>.bin
//! compacting.json             the files a compaction replaced (and,
//!                             online, when: they are deleted once no
//!                             handle may read them)
//! compact.lock                held by the handle compacting online
//! compacted.json              the logs and data the last compaction with
//!                             the folder to itself left, by size
//! checkpoint.json             the checkpoint: its tables and what they cover
//! checkpoint.lock             held by the handle building a checkpoint
//! index/<n>.idx               the checkpoint's sorted tables (on object
//!                             storage, <n> is the manifest's generation
//!                             and 32 random bits)
//! data/<writer>.bin           a writer's shared data file
//! data/<writer>-<seq>.<ext>   one file per entry
//! schemas/<fingerprint>.json  each writer schema, once
//! locks/<hash>.lock           a key being computed (memo_lock): a locked
//!                             file, or on object storage a lease
//! used/<writer>-<n>.jsonl     keys a handle used, and when (flushed)
//! ```

/// The layout version file.
pub const META: &str = "codec-store.json";
/// The folder lock: shared by every handle, exclusive for a compaction.
pub const LOCK: &str = "codec-store.lock";
/// The marker of a compaction that has copied every live entry.
pub const COMPACT_MARKER: &str = "compacting.json";
/// What the last compaction with the folder to itself left.
pub const LAST_COMPACTION: &str = "compacted.json";
/// Held (exclusively, without waiting) by the handle compacting a folder
/// online.
pub const COMPACT_LOCK: &str = "compact.lock";
/// The suffix of a writer's index log: `<writer>-info.jsonl`.
pub const LOG_SUFFIX: &str = "-info.jsonl";
/// The suffix of a log being created, before it is locked and visible.
pub const NEW_LOG_SUFFIX: &str = "-info.jsonl.new";
/// The suffix of a writer's next log, made ahead of the seal that names
/// it, locked by its writer meanwhile.
pub const NEXT_LOG_SUFFIX: &str = "-info.jsonl.next";
/// The checkpoint's manifest.
pub const CHECKPOINT: &str = "checkpoint.json";
/// Held (exclusively, without waiting) by the handle building a checkpoint.
pub const CHECKPOINT_LOCK: &str = "checkpoint.lock";
/// The folder of the checkpoint's tables.
pub const TABLES: &str = "index";
/// The suffix of a checkpoint table.
pub const TABLE_SUFFIX: &str = ".idx";
/// The folder of payload files.
pub const DATA: &str = "data";
/// The folder of writer schemas.
pub const SCHEMAS: &str = "schemas";
/// The folder of per-key lock files (or leases) of `memo_lock`.
pub const KEY_LOCKS: &str = "locks";
/// The folder of the records of when keys were used.
pub const USED: &str = "used";
/// The suffix of a record of uses.
pub const USED_SUFFIX: &str = ".jsonl";

/// The object name of the `n`th record of uses of the handle of writer
/// `id` that drew `session` (random bits): a handle that takes up the id
/// of one gone does not meet that one's names.
pub fn used_object(id: &str, session: u32, n: u64) -> String {
    format!("{USED}/{id}-{session:08x}-{n}{USED_SUFFIX}")
}

/// The suffix of a file written aside before it is renamed into place.
pub const TMP_SUFFIX: &str = ".tmp";

/// Payloads in the index line.
pub const INLINE: &str = "inline";
/// Payloads appended to the writer's shared data file.
pub const SHARED: &str = "shared";
/// One file per entry.
pub const FILE: &str = "file";
/// Large byte buffers of a value apart, the rest inline or shared.
pub const AUTO: &str = "auto";
/// Arrays, memory-mapped.
pub const ARRAY: &str = "array";
/// An Arrow `RecordBatch`, as an Arrow IPC file in the shared data file.
pub const ARROW: &str = "arrow";
/// A list of Arrow `RecordBatch`es of one schema, as one Arrow IPC file.
pub const ARROW_BATCHES: &str = "arrow-batches";

/// The cargo feature of codec that provides a built-in handler, for the
/// error of a reader built without it.
pub fn handler_feature(name: &str) -> Option<&'static str> {
    match name {
        ARRAY => Some("ndarray"),
        ARROW | ARROW_BATCHES => Some("arrow"),
        _ => None,
    }
}

/// The key of an entry's info that lists the files and ranges it holds
/// (`content/parts.rs`), for the handlers a program brings.
pub const PARTS: &str = "#parts";

/// The key of an entry's info that lists the tokens of the values of
/// types with a handler that its payload holds the places of
/// (`content/sub_values.rs`).
pub const VALUES: &str = "#values";

/// Whether a handler is one of codec's own, which every handle has (and
/// whose entries record no parts).
pub fn is_built_in_handler(name: &str) -> bool {
    [INLINE, SHARED, FILE, AUTO, ARRAY, ARROW, ARROW_BATCHES].contains(&name)
}

/// Whether a handler is one codec chooses by size (compaction chooses again).
pub fn is_sized_handler(name: &str) -> bool {
    [INLINE, SHARED, AUTO].contains(&name)
}

/// The file name of writer `id`'s index log.
pub fn log_name(id: &str) -> String {
    format!("{id}{LOG_SUFFIX}")
}

/// Whether a folder holding an entry of this name holds a cache: its
/// layout file, or a writer's index log (the one file every cache has).
pub fn marks_a_cache(name: &str) -> bool {
    name == META || name.ends_with(LOG_SUFFIX)
}

/// Whether an entry of a folder that holds no cache yet may be the
/// beginning of one (another handle creating it at this moment): the lock,
/// a file being written aside, or an empty `data/` or `schemas/`. Hidden
/// files (`.gitignore` in a folder kept empty for the cache) count as
/// nothing.
pub fn may_begin_a_cache(name: &str, empty_folder: bool) -> bool {
    name == LOCK
        || name.ends_with(TMP_SUFFIX)
        || name.starts_with('.')
        || (empty_folder && [DATA, SCHEMAS].contains(&name))
}

/// The writer of an index log's file name.
pub fn log_writer(name: &str) -> Option<&str> {
    name.strip_suffix(LOG_SUFFIX)
}

/// The name of segment `n` of a log or data object `name`, on backends
/// without appends: `name` itself first, then `.<n>` before the suffix
/// that names its kind (`<writer>.<n>-info.jsonl`, `data/<writer>.<n>.bin`).
/// A log's segment reads as a writer of its own: a writer's lines are
/// ordered by time already.
pub fn segment_name(name: &str, n: u64) -> String {
    if n == 0 {
        return name.to_owned();
    }
    let (stem, suffix) = match name.strip_suffix(LOG_SUFFIX) {
        Some(stem) => (stem, LOG_SUFFIX),
        None => match name.rfind('.') {
            Some(i) if !name[i..].contains('/') => name.split_at(i),
            _ => (name, ""),
        },
    };
    format!("{stem}.{n}{suffix}")
}

/// The object name of data file `name` (relative to `data/`).
pub fn data_object(name: &str) -> String {
    format!("{DATA}/{name}")
}

/// The object name of the writer schema of `fingerprint`.
pub fn schema_object(fingerprint: &str) -> String {
    format!("{SCHEMAS}/{fingerprint}.json")
}

/// The name (relative to `data/`) of writer `id`'s shared data file.
pub fn shared_name(id: &str) -> String {
    format!("{id}.bin")
}

/// The name (relative to `data/`) of the file number `n` of writer `id`'s
/// entry `seq` (its first file, `n` 0, has none).
pub fn entry_file_name(id: &str, seq: u64, n: u64, extension: &str) -> String {
    match n {
        0 => format!("{id}-{seq}.{extension}"),
        n => format!("{id}-{seq}-{n}.{extension}"),
    }
}

/// Whether a file of `data/` or of the folder belongs to writer `id`.
pub fn is_writers_file(name: &str, id: &str) -> bool {
    name.strip_prefix(id)
        .is_some_and(|rest| rest.starts_with('-') || rest.starts_with('.'))
}

/// The file name of a writer schema.
pub fn schema_name(fingerprint: &str) -> String {
    format!("{fingerprint}.json")
}

/// The writer of a log segment's writer id and the segment's number:
/// `<writer>.<n>` is segment `n` of `<writer>`, `<writer>` its segment 0
/// ([`segment_name`]; writer ids hold no `.`). A number no writer reaches
/// (the last one, which has no next) is part of an id.
pub fn segment_of(id: &str) -> (&str, u64) {
    match id.rsplit_once('.') {
        Some((writer, n)) => match n.parse() {
            Ok(n) if n < u64::MAX => (writer, n),
            _ => (id, 0),
        },
        None => (id, 0),
    }
}

/// The object name of checkpoint table number `n`.
pub fn table_object(n: u64) -> String {
    format!("{TABLES}/{n:016x}{TABLE_SUFFIX}")
}

/// The number of the checkpoint table object `name` (of `index/`).
pub fn table_number(name: &str) -> Option<u64> {
    let file = name.strip_prefix(TABLES)?.strip_prefix('/')?;
    u64::from_str_radix(file.strip_suffix(TABLE_SUFFIX)?, 16).ok()
}

/// The longest key a cache stores, in bytes.
pub const MAX_KEY_LEN: usize = 4096;

/// The deepest nesting of lists and maps in a handler's info: readers
/// bound the nesting of the lines they read, so a deeper info could be
/// written but not read back.
pub const MAX_INFO_DEPTH: usize = 32;

/// The most values (every list item and map entry, at any depth) in a
/// handler's info: the info is read with every lookup of its line.
pub const MAX_INFO_VALUES: usize = 10_000;

/// Where buffers, arrays and Arrow files start in a shared data file:
/// enough for any element type, and for SIMD loads.
pub const ALIGN: u64 = 64;

/// The most values of types with a handler one value holds (each has its
/// token in the entry's index line, under `#values`).
pub const MAX_KEPT_VALUES: usize = 1_000;

/// The version of the folder layout, in `codec-store.json`. 2: an entry
/// may hold values that their types' handlers keep (`#values`), which a
/// codec reading 1 would lose in a compaction. 3: a writer's log and data
/// are sealed segments and one active one, which a codec reading 2 would
/// take up and append to after they were sealed. A folder reads as it is,
/// and is raised by its first entry holding values (to 2) and its first
/// sealed segment (to 3).
pub const STORE_FORMAT: u32 = 3;

/// The layout version that entries holding values kept by their types'
/// handlers need.
pub const VALUES_FORMAT: u32 = 2;

/// The layout version that sealed segments in a folder need.
pub const SEGMENTS_FORMAT: u32 = 3;

/// The name of writer `id`'s log segment `n` (`<writer>-info.jsonl`,
/// then `<writer>.<n>-info.jsonl`).
pub fn log_segment(id: &str, n: u64) -> String {
    segment_name(&log_name(id), n)
}

/// The object name of writer `id`'s shared data segment `n`
/// (`data/<writer>.bin`, then `data/<writer>.<n>.bin`).
pub fn shared_segment(id: &str, n: u64) -> String {
    segment_name(&data_object(&shared_name(id)), n)
}
