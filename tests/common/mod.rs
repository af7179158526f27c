//! Helpers the store's test files share.

use codec::Cache;

/// Cuts the last `by` bytes off the shared data file of `cache`'s writer,
/// as a crash or a full disk would leave it.
pub fn truncate_data_file(dir: &std::path::Path, cache: &Cache, by: u64) {
    let data = dir.join("data").join(format!("{}.bin", cache.writer_id()));
    let len = std::fs::metadata(&data).unwrap().len();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&data)
        .unwrap()
        .set_len(len - by)
        .unwrap();
}
