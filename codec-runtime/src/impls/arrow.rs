//! `arrow_array::RecordBatch` (feature `arrow`): the bytes of an Arrow
//! IPC file holding the batch (MessagePack `bin`, base64 in JSON), read
//! without copying where the input is a memory map the store handed over.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr::NonNull;
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_buffer::Buffer;
use arrow_ipc::reader::{read_footer_length, FileDecoder};
use arrow_ipc::writer::FileWriter;
use arrow_schema::{ArrowError, Schema};
use schemars::{Schema as JsonSchema, SchemaGenerator};

use crate::decode::Decode;
use crate::encode::Encode;
use crate::error::{DecodeError, EncodeError};
use crate::json::{JsonReader, JsonWriter};
use crate::kind::WireKind;
use crate::msgpack::{MsgpackReader, MsgpackWriter};

/// The Arrow IPC file of `batches`.
pub fn ipc_file(schema: &Schema, batches: &[RecordBatch]) -> Result<Vec<u8>, ArrowError> {
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

/// The record batches of an Arrow IPC file, their columns' buffers slices
/// of `buffer` (copied only where misaligned). Damaged input is an error,
/// never a panic.
pub fn decode_ipc_file(buffer: &Buffer) -> Result<Vec<RecordBatch>, String> {
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

/// A `RecordBatch` is encoded as the bytes of an Arrow IPC file holding
/// it (MessagePack `bin`, base64 in JSON). This is its form where codec
/// needs an entry's bytes (`get_bytes`, compaction, `codec get`) and
/// inside other values; stored alone, the `arrow` handler writes it.
impl Encode for RecordBatch {
    fn encode_msgpack(&self, w: &mut MsgpackWriter) -> Result<(), EncodeError> {
        w.write_bin(&ipc_file(&self.schema(), std::slice::from_ref(self)).map_err(arrow_encode)?)
    }

    fn encode_json(&self, w: &mut JsonWriter) -> Result<(), EncodeError> {
        w.write_base64(
            &ipc_file(&self.schema(), std::slice::from_ref(self)).map_err(arrow_encode)?,
        );
        Ok(())
    }
}

impl<'de> Decode<'de> for RecordBatch {
    fn decode_msgpack(r: &mut MsgpackReader<'de>) -> Result<Self, DecodeError> {
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
            .map_err(|m| DecodeError::invalid_value(m).at(crate::error::Format::MsgPack, start))
    }

    fn decode_json(r: &mut JsonReader<'de>) -> Result<Self, DecodeError> {
        let bytes = crate::impls::bytes::Bytes::decode_json(r)?;
        one_batch(&Buffer::from(bytes.to_vec())).map_err(DecodeError::invalid_value)
    }
}

impl crate::codec::Schema for RecordBatch {
    const KIND: WireKind = WireKind::BYTES;

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
