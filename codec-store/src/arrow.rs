//! Arrow tables in the store (feature `arrow`): a `RecordBatch` (or a
//! `Vec<RecordBatch>` of one schema) is written as an Arrow IPC file into
//! the writer's shared data file, at a 64-byte boundary, and read back
//! from a memory map without copying: its columns' buffers point into the
//! map. The entry's info keeps the schema (as text) and the row count, so
//! `codec inspect` shows them without reading the table.
//!
//! The handlers are registered on every handle and are the default ones
//! of `RecordBatch` and `Vec<RecordBatch>`: `cache.put("t", &batch)` is
//! all it takes.
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use std::sync::Arc;
//! use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray};
//!
//! let dir = tempfile::tempdir()?;
//! let cache = codec::Cache::open(dir.path())?;
//! let batch = RecordBatch::try_from_iter([
//!     ("id", Arc::new(Int64Array::from(vec![1, 2, 3])) as ArrayRef),
//!     ("name", Arc::new(StringArray::from(vec![Some("a"), None, Some("c")])) as ArrayRef),
//! ])?;
//! cache.put("table", &batch)?;
//! let read: RecordBatch = cache.get("table")?.unwrap();
//! assert_eq!(read, batch);
//! # Ok(())
//! # }
//! ```

use std::panic::AssertUnwindSafe;
use std::ptr::NonNull;
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_buffer::Buffer;
use arrow_schema::{ArrowError, Schema};
use codec_runtime::__store::arrow::{decode_ipc_file, ipc_file};

use super::apart::ALIGN;
use super::handler::{range_info, DumpContext, LoadContext};
use super::records::{Info, InfoValue};
use super::typed::TypedHandler;
use super::{layout, StoreError};

/// The handler named `arrow`: one `RecordBatch` as an Arrow IPC file.
pub struct ArrowHandler;

/// The handler named `arrow-batches`: `RecordBatch`es of one schema as
/// one Arrow IPC file.
pub struct ArrowBatchesHandler;

impl TypedHandler<RecordBatch> for ArrowHandler {
    fn name(&self) -> &str {
        layout::ARROW
    }

    fn dump(&self, batch: &RecordBatch, ctx: &mut DumpContext<'_>) -> Result<Info, StoreError> {
        dump_batches(&batch.schema(), std::slice::from_ref(batch), ctx)
    }

    fn load(&self, info: &Info, ctx: &LoadContext<'_>) -> Result<RecordBatch, StoreError> {
        let mut batches = load_batches(info, ctx)?;
        match (batches.pop(), batches.is_empty()) {
            (Some(batch), true) => Ok(batch),
            _ => Err(ctx.corrupt("the Arrow file does not hold exactly one record batch")),
        }
    }
}

impl TypedHandler<Vec<RecordBatch>> for ArrowBatchesHandler {
    fn name(&self) -> &str {
        layout::ARROW_BATCHES
    }

    fn dump(
        &self,
        batches: &Vec<RecordBatch>,
        ctx: &mut DumpContext<'_>,
    ) -> Result<Info, StoreError> {
        let schema = batches
            .first()
            .map(|b| b.schema())
            .unwrap_or_else(|| Arc::new(Schema::empty()));
        if let Some(n) = batches.iter().position(|b| b.schema() != schema) {
            return Err(StoreError::Handler {
                key: ctx.key().to_owned(),
                handler: self.name().to_owned(),
                message: format!(
                    "batch {n} has another schema than batch 0; the batches of one entry share \
                     one schema: cast them to it, or store them under keys of their own"
                ),
            });
        }
        dump_batches(&schema, batches, ctx)
    }

    fn load(&self, info: &Info, ctx: &LoadContext<'_>) -> Result<Vec<RecordBatch>, StoreError> {
        load_batches(info, ctx)
    }
}

/// Writes `batches` as one Arrow IPC file into the shared data file.
fn dump_batches(
    schema: &Schema,
    batches: &[RecordBatch],
    ctx: &mut DumpContext<'_>,
) -> Result<Info, StoreError> {
    let failed = |e: ArrowError| StoreError::Handler {
        key: ctx.key().to_owned(),
        handler: layout::ARROW.to_owned(),
        message: format!("arrow's IPC writer failed: {e}"),
    };
    let bytes = ipc_file(schema, batches).map_err(failed)?;
    let (file, offset) = ctx.append_shared_aligned(&bytes, ALIGN)?;
    let mut info = range_info(file, offset, bytes.len());
    let rows: usize = batches.iter().map(RecordBatch::num_rows).sum();
    info.insert("rows".to_owned(), InfoValue::Int(rows as i64));
    info.insert("batches".to_owned(), InfoValue::Int(batches.len() as i64));
    info.insert("schema".to_owned(), InfoValue::Text(schema_text(schema)));
    Ok(info)
}

/// A schema as one line: `id: Int64, name: Utf8?` (`?`: nullable).
fn schema_text(schema: &Schema) -> String {
    let fields: Vec<String> = schema
        .fields()
        .iter()
        .map(|f| {
            let null = if f.is_nullable() { "?" } else { "" };
            format!("{}: {}{null}", f.name(), f.data_type())
        })
        .collect();
    fields.join(", ")
}

/// The batches of the Arrow IPC file `dump_batches` described, viewed in
/// the memory-mapped data file.
fn load_batches(info: &Info, ctx: &LoadContext<'_>) -> Result<Vec<RecordBatch>, StoreError> {
    let int = |key: &str| match info.get(key) {
        Some(InfoValue::Int(i)) if *i >= 0 => Ok(*i as u64),
        _ => Err(ctx.corrupt(format!("index info lacks `{key}`"))),
    };
    let Some(InfoValue::Text(file)) = info.get("file") else {
        return Err(ctx.corrupt("index info lacks `file`"));
    };
    let (offset, len) = (int("offset")?, int("len")?);
    let end = offset
        .checked_add(len)
        .ok_or_else(|| ctx.corrupt(format!("{len} bytes at offset {offset}")))?;
    let window = ctx.window(file, offset..end)?;
    let bytes = window.slice(offset, len);
    let ptr = NonNull::from(bytes).cast::<u8>();
    // SAFETY: `window` checked that `offset..offset + len` lies within its
    // bytes (the map, or the buffer the range was read into), and the
    // buffer keeps them alive (its owner). Data files are append-only, so
    // the bytes do not change while mapped; a buffer read is never written
    // after it was filled.
    let owner = Arc::new(AssertUnwindSafe(window.bytes.clone()));
    let buffer = unsafe { Buffer::from_custom_allocation(ptr, len as usize, owner) };
    decode_ipc_file(&buffer).map_err(|e| ctx.corrupt(format!("Arrow file {file}: {e}")))
}
