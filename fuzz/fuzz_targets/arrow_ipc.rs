//! An Arrow IPC file of hostile bytes, as the store reads one (the
//! `arrow` and `arrow-batches` handlers, from a map or a read buffer,
//! aligned or not) and as a `RecordBatch` decodes inside a value.

#![no_main]

use arrow_buffer::Buffer;
use codec::__store::arrow::decode_ipc_file;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = decode_ipc_file(&Buffer::from(data.to_vec()));
    // One byte in: the columns' buffers are misaligned, and copied.
    let mut shifted = vec![0u8];
    shifted.extend_from_slice(data);
    let _ = decode_ipc_file(&Buffer::from(shifted).slice(1));
    let mut bin = Vec::new();
    bin.push(0xc6);
    bin.extend_from_slice(&(data.len() as u32).to_be_bytes());
    bin.extend_from_slice(data);
    let _ = codec::from_msgpack::<arrow_array::RecordBatch>(&bin);
});
