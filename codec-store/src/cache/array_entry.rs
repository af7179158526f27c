//! Entries of [`Cache::put_array`]: an array's raw bytes in the shared data
//! file, its dtype and shape in the index line. Read whole
//! ([`Cache::get_array`], [`Cache::get`]) or by rows
//! ([`Cache::get_array_rows`]): from the memory map in a folder, by one
//! ranged read of exactly the bytes asked for elsewhere.

use std::ops::Range;
use std::sync::Arc;

use ndarray::{Axis, Dimension, Slice};

use crate::cache::Cache;
use crate::content::apart::REF_EXT;
use crate::content::array::MappedArray;
use crate::content::handler::range_ref;
use crate::error::StoreError;
use crate::index::line::LineView;
use crate::layout;
use codec_runtime::__store::ndarray::Element;
use codec_runtime::__store::OutOfBand;
use codec_runtime::Codec;
use codec_runtime::{MsgpackReader, MsgpackWriter};

/// Where an entry of [`Cache::put_array`] lies, and what it holds.
struct StoredArray {
    shape: Vec<usize>,
    file: String,
    offset: u64,
    len: u64,
}

impl Cache {
    /// Stores an array as raw bytes in this writer's shared data file, for
    /// [`Cache::get_array`] to map without copying (in a folder) and
    /// [`Cache::get_array_rows`] to read by rows. Its dtype and shape go
    /// in the index line.
    pub fn put_array<T: Element, D: Dimension>(
        &self,
        key: &str,
        array: &ndarray::Array<T, D>,
    ) -> Result<(), StoreError> {
        crate::cache::keys::check_key(key)?;
        let bytes = codec_runtime::__store::ndarray::raw_bytes(array);
        let name = format!("ndarray<{}>{:?}", T::DTYPE, array.shape());
        self.write_entry(
            key,
            Some(name),
            None,
            crate::index::records::Mode::Raw,
            crate::cache::write::Payload::plain(&bytes),
            Some("array"),
            None,
        )
    }

    /// The array under `key`. In a folder it views the memory-mapped data
    /// file: constant time whatever its size. Elsewhere (object storage,
    /// memory), which has no maps, its bytes are read by one ranged read
    /// into a buffer the array owns (none when the
    /// [local cache](crate::CacheOptions::local_cache) has them). An array
    /// stored with [`Cache::put`] reads too, as `get::<MappedArray<T>>`
    /// reads it (viewing the data where it was read when it was kept
    /// apart, see [`CacheOptions::apart_min`](crate::CacheOptions::apart_min)).
    ///
    /// An array of another element type is [`StoreError::ArrayType`].
    pub fn get_array<T: Element + 'static>(
        &self,
        key: &str,
    ) -> Result<Option<MappedArray<T>>, StoreError> {
        self.reading_moved(|| self.get_array_once(key))
    }

    fn get_array_once<T: Element + 'static>(
        &self,
        key: &str,
    ) -> Result<Option<MappedArray<T>>, StoreError> {
        little_endian()?;
        let Some(found) = self.lookup(key)? else {
            return Ok(None);
        };
        let line = crate::index::view(key, &found)?;
        if line.handler.as_deref() != Some(layout::ARRAY) {
            return self.get::<MappedArray<T>>(key);
        }
        let stored = self.stored_array::<T>(&line)?;
        let window = self
            .load_context(key)
            .window(&stored.file, stored.offset..stored.offset + stored.len)?;
        let at = (stored.offset - window.origin) as usize;
        MappedArray::mapped(window.bytes, at, stored.len as usize, stored.shape)
            .map(Some)
            .map_err(|message| corrupt(key, message))
    }

    /// Rows `rows` of the array under `key`: the indices `rows` of its
    /// first axis, all of the others, as an array of shape `[rows.len(),
    /// ..the rest of its shape]`.
    ///
    /// For an array of [`Cache::put_array`], or of [`Cache::put`] whose
    /// data was kept apart (from
    /// [`CacheOptions::apart_min`](crate::CacheOptions::apart_min) bytes),
    /// only those rows' bytes are read: viewed in the memory map in a
    /// folder; elsewhere one ranged read of exactly those bytes (none when
    /// the [local cache](crate::CacheOptions::local_cache) has them), into
    /// a buffer the result owns. A smaller array stored with `put` is read
    /// whole (it is in its entry's payload), then its rows copied.
    ///
    /// Rows past the array's end (or an array of no dimension) are
    /// [`StoreError::RowsOutOfRange`]; another element type is
    /// [`StoreError::ArrayType`].
    ///
    /// ```
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let store = std::sync::Arc::new(codec::store::backend::memory::Memory::new());
    /// let cache = codec::Cache::open_backend(store, Default::default())?; // no memory maps
    /// let table = ndarray::Array2::<f32>::from_shape_fn((1000, 64), |(i, j)| (i * 64 + j) as f32);
    /// cache.put_array("emb", &table)?;
    /// let rows = cache.get_array_rows::<f32>("emb", 10..12)?.unwrap(); // 2 x 64 x 4 bytes read
    /// assert_eq!(rows.shape(), [2, 64]);
    /// assert_eq!(rows.view()[[1, 0]], (11 * 64) as f32);
    /// # Ok(())
    /// # }
    /// ```
    pub fn get_array_rows<T: Element + 'static>(
        &self,
        key: &str,
        rows: Range<usize>,
    ) -> Result<Option<MappedArray<T>>, StoreError> {
        self.reading_moved(|| self.get_array_rows_once(key, rows.clone()))
    }

    fn get_array_rows_once<T: Element + 'static>(
        &self,
        key: &str,
        rows: Range<usize>,
    ) -> Result<Option<MappedArray<T>>, StoreError> {
        little_endian()?;
        let Some(found) = self.lookup(key)? else {
            return Ok(None);
        };
        let line = crate::index::view(key, &found)?;
        let stored = match line.handler.as_deref() {
            Some(layout::ARRAY) => Some(self.stored_array::<T>(&line)?),
            Some(layout::AUTO) if line.mode == crate::index::records::Mode::MsgPack => {
                let info = line
                    .info()
                    .map_err(|e| crate::index::corrupt_line(key, e))?;
                match crate::content::apart::array_apart(&info, &self.load_context(key))? {
                    Some(a) => {
                        let shape = a.shape.into_iter().map(|d| d as usize).collect();
                        Some(checked_array::<T>(
                            key, a.dtype, shape, a.file, a.offset, a.len,
                        )?)
                    }
                    None => None,
                }
            }
            _ => None,
        };
        let Some(stored) = stored else {
            // The array is in the payload (or the value is no array): read whole.
            let Some(whole) = self.get::<MappedArray<T>>(key)? else {
                return Ok(None);
            };
            let shape = checked_rows(key, whole.shape(), &rows)?;
            let view = whole.view();
            let part = view.slice_axis(Axis(0), Slice::from(rows));
            return Ok(Some(MappedArray::owned(
                part.iter().copied().collect(),
                shape,
            )));
        };
        let shape = checked_rows(key, &stored.shape, &rows)?;
        let row_len = stored.shape[1..]
            .iter()
            .try_fold(T::SIZE as u64, |n, &d| n.checked_mul(d as u64))
            .ok_or_else(|| corrupt(key, format!("shape {:?} is too large", stored.shape)))?;
        let (start, len) = (rows.start as u64 * row_len, rows.len() as u64 * row_len);
        if len == 0 {
            return Ok(Some(MappedArray::owned(Arc::from([]), shape)));
        }
        let start = stored.offset + start;
        let window = self
            .load_context(key)
            .window(&stored.file, start..start + len)?;
        let at = (start - window.origin) as usize;
        MappedArray::mapped(window.bytes, at, len as usize, shape)
            .map(Some)
            .map_err(|message| corrupt(key, message))
    }

    /// The dtype, shape and place of an entry of [`Cache::put_array`],
    /// checked against each other and against `T`.
    fn stored_array<T: Element>(&self, line: &LineView<'_>) -> Result<StoredArray, StoreError> {
        let key = &line.key;
        let (dtype, shape) =
            crate::index::parse_array_type(line.type_name.as_deref().unwrap_or_default())
                .ok_or_else(|| corrupt(key, "array entry without its dtype and shape".into()))?;
        let (file, offset, len) = range_ref(line.info_ref(), &self.load_context(key))?;
        checked_array::<T>(key, dtype, shape, file.into_owned(), offset, len)
    }

    /// An entry of [`Cache::put_array`] decoded as `T`, as if it had been
    /// stored with [`Cache::put`]: its data read from the memory map (or
    /// by one ranged read), so a [`MappedArray`] views it there, and an
    /// `ndarray::Array` of the same dtype and a dimension that fits its
    /// shape copies it.
    pub(crate) fn get_array_entry<T: Codec>(&self, line: &LineView<'_>) -> Result<T, StoreError> {
        let key = &line.key;
        let (dtype, shape) =
            crate::index::parse_array_type(line.type_name.as_deref().unwrap_or_default())
                .ok_or_else(|| corrupt(key, "array entry without its dtype and shape".into()))?;
        let ctx = self.load_context(key);
        let (file, offset, len) = range_ref(line.info_ref(), &ctx)?;
        let end = offset
            .checked_add(len)
            .ok_or_else(|| corrupt(key, format!("{len} bytes at offset {offset}")))?;
        let window = ctx.window(&file, offset..end)?;
        let data = window.slice(offset, len);
        // The value as `put` writes an array, its data a reference to the map.
        let mut w = MsgpackWriter::default();
        w.write_map_len(3)?;
        w.write_str("dtype")?;
        w.write_str(&dtype)?;
        w.write_str("shape")?;
        w.write_array_len(shape.len())?;
        for &d in &shape {
            w.write_u64(d as u64);
        }
        w.write_str("data")?;
        let at = w.as_slice().len();
        w.write_ext(REF_EXT, &[0; 16])?;
        let skeleton = w.into_inner();
        let out_of_band = OutOfBand {
            refs: vec![(at, data)],
            backing: window.bytes.clone(),
        };
        let mut r = MsgpackReader::new(&skeleton).with_out_of_band(&out_of_band);
        let value = T::decode_msgpack(&mut r).map_err(|e| r.locate(e));
        value
            .and_then(|value| r.finish().map(|()| value))
            .map_err(|source| StoreError::Decode {
                key: key.clone().into_owned(),
                source,
            })
    }
}

/// An array of `dtype` and `shape` in `len` bytes at `offset` of data
/// file `file`, checked against `T` and against each other.
fn checked_array<T: Element>(
    key: &str,
    dtype: String,
    shape: Vec<usize>,
    file: String,
    offset: u64,
    len: u64,
) -> Result<StoredArray, StoreError> {
    if dtype != T::DTYPE {
        return Err(StoreError::ArrayType {
            key: key.to_owned(),
            stored: dtype,
            asked: T::DTYPE.to_owned(),
        });
    }
    let expected = shape
        .iter()
        .try_fold(T::SIZE as u64, |n, &d| n.checked_mul(d as u64));
    if expected != Some(len) || offset.checked_add(len).is_none() {
        return Err(corrupt(
            key,
            format!("array of shape {shape:?} does not match its {len} bytes at offset {offset}"),
        ));
    }
    Ok(StoredArray {
        shape,
        file,
        offset,
        len,
    })
}

/// Arrays are viewed in their stored little-endian bytes.
fn little_endian() -> Result<(), StoreError> {
    match cfg!(target_endian = "big") {
        true => Err(StoreError::unsupported(
            "this machine",
            "arrays read from the store need a little-endian machine; read the bytes with get_bytes",
        )),
        false => Ok(()),
    }
}

/// The shape of rows `rows` of an array of `shape`, if it has them.
fn checked_rows(key: &str, shape: &[usize], rows: &Range<usize>) -> Result<Vec<usize>, StoreError> {
    match shape.first() {
        Some(&n) if rows.start <= rows.end && rows.end <= n => {
            let mut out = shape.to_vec();
            out[0] = rows.len();
            Ok(out)
        }
        _ => Err(StoreError::RowsOutOfRange {
            key: key.to_owned(),
            rows: rows.clone(),
            shape: shape.to_vec(),
        }),
    }
}

fn corrupt(key: &str, message: String) -> StoreError {
    StoreError::Corrupt {
        key: key.to_owned(),
        message,
    }
}
