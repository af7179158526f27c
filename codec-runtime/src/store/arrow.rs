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

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr::NonNull;
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_buffer::Buffer;
use arrow_ipc::reader::{read_footer_length, FileDecoder};
use arrow_ipc::writer::FileWriter;
use arrow_schema::{ArrowError, Schema};
use schemars::{Schema as JsonSchema, SchemaGenerator};

use super::apart::ALIGN;
use super::handler::{range_info, DumpContext, LoadContext};
use super::records::{Info, InfoValue};
use super::typed::TypedHandler;
use super::{layout, StoreError};
use crate::codec::Codec;
use crate::error::{DecodeError, EncodeError};
use crate::json::{JsonReader, JsonWriter};
use crate::kind::WireKind;
use crate::msgpack::{MsgpackReader, MsgpackWriter};

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

/// The Arrow IPC file of `batches`.
fn ipc_file(schema: &Schema, batches: &[RecordBatch]) -> Result<Vec<u8>, ArrowError> {
    let size = batches
        .iter()
        .map(RecordBatch::get_array_memory_size)
        .sum::<usize>();
    let mut writer = FileWriter::try_new(Vec::with_capacity(size + 4096), schema)?;
    for batch in batches {
        writer.write(batch)?;
    }
    writer.into_inner()
}

/// A schema as one line: `id: Int64, name: Utf8?` (`?`: nullable).
pub(crate) fn schema_text(schema: &Schema) -> String {
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

/// The record batches of an Arrow IPC file, their columns' buffers slices
/// of `buffer` (copied only where misaligned). Damaged input is an error,
/// never a panic.
pub(crate) fn decode_ipc_file(buffer: &Buffer) -> Result<Vec<RecordBatch>, String> {
    catch_unwind(AssertUnwindSafe(|| decode_checked(buffer)))
        .unwrap_or_else(|_| Err("the Arrow reader failed on damaged data".into()))
}

fn decode_checked(buffer: &Buffer) -> Result<Vec<RecordBatch>, String> {
    let trailer_start = buffer
        .len()
        .checked_sub(10)
        .ok_or("shorter than an Arrow file's trailer")?;
    let trailer: [u8; 10] = buffer[trailer_start..].try_into().expect("10 bytes");
    let footer_len = read_footer_length(trailer).map_err(|e| e.to_string())?;
    let footer_start = trailer_start
        .checked_sub(footer_len)
        .ok_or("the footer's length is past the file's start")?;
    let footer = arrow_ipc::root_as_footer(&buffer[footer_start..trailer_start])
        .map_err(|e| format!("footer: {e}"))?;
    let schema = footer.schema().ok_or("the footer has no schema")?;
    let schema = arrow_ipc::convert::try_fb_to_schema(schema).map_err(|e| e.to_string())?;
    let schema = Arc::new(schema);
    let mut decoder = FileDecoder::new(schema.clone(), footer.version());
    let block_bytes = |block: &arrow_ipc::Block| -> Result<Buffer, String> {
        let start = usize::try_from(block.offset()).ok();
        let meta = usize::try_from(block.metaDataLength()).ok();
        let body = usize::try_from(block.bodyLength()).ok();
        let len = meta.zip(body).and_then(|(m, b)| m.checked_add(b));
        match start.zip(len) {
            Some((start, len)) if start.checked_add(len).is_some_and(|e| e <= footer_start) => {
                Ok(buffer.slice_with_length(start, len))
            }
            _ => Err("a block lies outside the file".into()),
        }
    };
    for block in footer.dictionaries().iter().flatten() {
        decoder
            .read_dictionary(block, &block_bytes(block)?)
            .map_err(|e| e.to_string())?;
    }
    let mut batches = Vec::new();
    for block in footer.recordBatches().iter().flatten() {
        let batch = decoder
            .read_record_batch(block, &block_bytes(block)?)
            .map_err(|e| e.to_string())?
            .ok_or("a record batch block holds no batch")?;
        batches.push(batch);
    }
    Ok(batches)
}

crate::encode::encode_by_codec!(RecordBatch);

/// A `RecordBatch` is encoded as the bytes of an Arrow IPC file holding
/// it (MessagePack `bin`, base64 in JSON). This is its form where codec
/// needs an entry's bytes (`get_bytes`, compaction, `codec get`) and
/// inside other values; stored alone, the `arrow` handler writes it.
impl Codec for RecordBatch {
    const KIND: WireKind = WireKind::BYTES;

    fn encode_msgpack(&self, w: &mut MsgpackWriter) -> Result<(), EncodeError> {
        w.write_bin(&ipc_file(&self.schema(), std::slice::from_ref(self)).map_err(arrow_encode)?)
    }

    fn decode_msgpack(r: &mut MsgpackReader<'_>) -> Result<Self, DecodeError> {
        let start = r.position();
        let (data, place) = r.read_bin_in_backing()?;
        let buffer = match place {
            Some((backing, offset)) => {
                let ptr = NonNull::from(&backing[offset..offset + data.len()]).cast::<u8>();
                let len = data.len();
                // SAFETY: the reader returned `offset..offset + len` of
                // `backing` as the bytes just read, so the range lies within
                // it; the buffer keeps the backing alive (its owner), and
                // the store's backings (memory maps of append-only files)
                // do not change.
                unsafe {
                    Buffer::from_custom_allocation(ptr, len, Arc::new(AssertUnwindSafe(backing)))
                }
            }
            None => Buffer::from(data.to_vec()),
        };
        one_batch(&buffer)
            .map_err(|m| DecodeError::invalid_value(m).at(crate::Format::MsgPack, start))
    }

    fn encode_json(&self, w: &mut JsonWriter) -> Result<(), EncodeError> {
        w.write_base64(
            &ipc_file(&self.schema(), std::slice::from_ref(self)).map_err(arrow_encode)?,
        );
        Ok(())
    }

    fn decode_json(r: &mut JsonReader<'_>) -> Result<Self, DecodeError> {
        let bytes = crate::Bytes::decode_json(r)?;
        one_batch(&Buffer::from(bytes.to_vec())).map_err(DecodeError::invalid_value)
    }

    fn json_schema(_: &mut SchemaGenerator) -> JsonSchema {
        JsonSchema::try_from(serde_json::json!({
            "type": "string",
            "contentEncoding": "base64",
            "contentMediaType": "application/vnd.apache.arrow.file",
        }))
        .expect("an object")
    }

    fn __wire_name() -> Option<std::borrow::Cow<'static, str>> {
        Some("arrow.RecordBatch".into())
    }
}

fn one_batch(buffer: &Buffer) -> Result<RecordBatch, String> {
    let mut batches = decode_ipc_file(buffer)?;
    match (batches.pop(), batches.is_empty()) {
        (Some(batch), true) => Ok(batch),
        _ => Err("the Arrow file does not hold exactly one record batch".into()),
    }
}

fn arrow_encode(e: ArrowError) -> EncodeError {
    EncodeError::custom(format!("arrow's IPC writer failed: {e}"))
}
