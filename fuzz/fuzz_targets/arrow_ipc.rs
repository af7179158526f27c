//! An Arrow IPC file of hostile bytes, as the store reads one (the
//! `arrow` and `arrow-batches` handlers, from a map or a read buffer,
//! aligned or not) and as a `RecordBatch` decodes inside a value.
//!
//! Arrow's reader panics on some damaged files (a buffer sliced past its
//! end); `decode_ipc_file` catches that and returns an error. So that the
//! fuzzer sees only panics that reach the caller, the panic hook here
//! reports nothing: a panic that `decode_ipc_file` does not catch still
//! aborts the run, through libfuzzer's own catch.

#![no_main]

use arrow_buffer::Buffer;
use codec::__store::arrow::decode_ipc_file;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    static QUIET: std::sync::Once = std::sync::Once::new();
    QUIET.call_once(|| std::panic::set_hook(Box::new(|_| {})));
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
