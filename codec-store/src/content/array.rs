//! n-dimensional arrays in the store (feature `ndarray`): raw little-endian
//! bytes appended to the writer's shared data file, aligned, and loaded by
//! memory map without copying in a folder (a 1 GiB array loads in
//! constant time); elsewhere read by one ranged read into a buffer of
//! their own. Reading them: `array_read.rs`.

use std::borrow::Cow;
use std::sync::Arc;

use ndarray::{ArrayView, Dimension, IxDyn};

use crate::content::handler::{range_info, DumpContext, Handler, LoadContext};
use crate::error::StoreError;
use crate::index::records::Info;
use crate::layout;
use crate::layout::ALIGN;
use codec_runtime::__store::ndarray::{
    checked_shape, read_msgpack_parts, write_json_parts, write_msgpack_parts, Element,
};
use codec_runtime::__store::Backing;
use codec_runtime::schemars::{Schema, SchemaGenerator};

use codec_runtime::WireKind;
use codec_runtime::{DecodeError, EncodeError};
use codec_runtime::{JsonReader, JsonWriter};
use codec_runtime::{MsgpackReader, MsgpackWriter};

/// The handler named `array`: see [`Cache::put_array`](crate::cache::Cache::put_array).
pub struct ArrayHandler;

impl Handler for ArrayHandler {
    fn name(&self) -> &str {
        layout::ARRAY
    }

    fn dump(&self, payload: &[u8], ctx: &mut DumpContext<'_>) -> Result<Info, StoreError> {
        let (file, offset) = ctx.append_shared_aligned(payload, ALIGN)?;
        Ok(range_info(file, offset, payload.len()))
    }

    fn load(&self, info: &Info, ctx: &LoadContext<'_>) -> Result<Vec<u8>, StoreError> {
        // Laid out as the shared handler lays out its payloads.
        crate::content::handler::Shared.load(info, ctx)
    }
}

/// An array read from the store, viewed where it lies in the memory-mapped
/// data file (a cache in a folder), or in the buffer one ranged read of its
/// bytes filled (other backends, which have no maps):
/// [`Cache::get_array`](crate::cache::Cache::get_array),
/// [`Cache::get_array_rows`](crate::cache::Cache::get_array_rows), or a field of a
/// stored value.
///
/// As a field (`Codec`, encoded as an [`ndarray::Array`] is), a value read
/// from the store with [`Cache::get`](crate::cache::Cache::get) views its data
/// there whatever its size, when the store kept it apart (arrays of at least
/// [`CacheOptions::apart_min`](crate::CacheOptions::apart_min) bytes); read
/// any other way (a smaller array, `from_msgpack`, JSON), it holds a copy.
///
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use codec::store::MappedArray;
///
/// #[derive(codec::Codec)]
/// struct Embeddings { ids: Vec<u32>, vectors: MappedArray<f32> }
///
/// let dir = tempfile::tempdir()?;
/// let cache = codec::Cache::open(dir.path())?;
/// let vectors = ndarray::Array2::<f32>::zeros((1000, 64));
/// let value = Embeddings { ids: (0..1000).collect(), vectors: MappedArray::from_array(&vectors) };
/// cache.put("emb", &value)?;
/// let read: Embeddings = cache.get("emb")?.unwrap();
/// assert!(read.vectors.is_mapped());
/// assert_eq!(read.vectors.shape(), [1000, 64]);
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct MappedArray<T> {
    storage: Storage<T>,
    shape: Vec<usize>,
}

#[derive(Clone)]
enum Storage<T> {
    /// `len` bytes at `offset` of a map, checked (see `view`).
    Mapped {
        map: Backing,
        offset: usize,
        len: usize,
    },
    Owned(Arc<[T]>),
}

impl<T> MappedArray<T> {
    /// An array of its own, `items` in C order.
    pub(crate) fn owned(items: Arc<[T]>, shape: Vec<usize>) -> Self {
        MappedArray {
            storage: Storage::Owned(items),
            shape,
        }
    }
}

impl<T: Element> MappedArray<T> {
    /// A copy of `array`, to store.
    pub fn from_array<D: Dimension>(array: &ndarray::Array<T, D>) -> Self {
        MappedArray {
            storage: Storage::Owned(array.iter().copied().collect()),
            shape: array.shape().to_vec(),
        }
    }

    /// `len` bytes at `offset` of `map` as an array of `shape`, checked.
    pub(crate) fn mapped(
        map: Backing,
        offset: usize,
        len: usize,
        shape: Vec<usize>,
    ) -> Result<Self, String> {
        let expected = shape.iter().try_fold(T::SIZE, |acc, &d| acc.checked_mul(d));
        let start = (map.as_ptr() as usize).wrapping_add(offset);
        if expected != Some(len) || !start.is_multiple_of(std::mem::align_of::<T>()) {
            return Err(format!(
                "array of shape {shape:?} does not match its {len} bytes at offset {offset}"
            ));
        }
        if offset.checked_add(len).is_none_or(|end| end > map.len()) {
            return Err(format!(
                "bytes {offset}..{} are past the end of the data file ({} bytes); it was truncated",
                offset.saturating_add(len),
                map.len()
            ));
        }
        if T::DTYPE == "|b1" && map[offset..offset + len].iter().any(|&b| b > 1) {
            // Any other byte is not a bool: refuse rather than view it as one.
            return Err("bool array holds bytes other than 0 and 1".into());
        }
        Ok(MappedArray {
            storage: Storage::Mapped { map, offset, len },
            shape,
        })
    }

    /// The array, without copying it.
    pub fn view(&self) -> ArrayView<'_, T, IxDyn> {
        let data: &[T] = match &self.storage {
            Storage::Owned(items) => items,
            Storage::Mapped { map, offset, len } => {
                let bytes = &map[*offset..*offset + *len];
                // SAFETY: `mapped` checked that the range lies within the
                // backing, that its start address is aligned for `T` (arrays
                // are written at 64-byte boundaries of the data file, which
                // are 64-byte boundaries of its page-aligned mapping and of
                // the buffers ranges are read into), and that its length is
                // `product(shape) * size_of::<T>()`.
                // `Element` types are plain numbers (or bool, checked to be
                // 0 or 1) whose little-endian bytes are their native
                // representation (mapped only on little-endian machines).
                // The data file is append-only, so the bytes do not change
                // while mapped; a buffer read is owned, and never written
                // after it was filled.
                unsafe { std::slice::from_raw_parts(bytes.as_ptr().cast::<T>(), len / T::SIZE) }
            }
        };
        ArrayView::from_shape(IxDyn(&self.shape), data)
            .expect("shape checked against the data length")
    }

    /// The array's shape.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// Whether the data is viewed where the store read it, without a copy
    /// of its own: in the memory map of the data file (a cache in a
    /// folder), or in the buffer one ranged read filled (other backends,
    /// which have no maps). Else it is a copy.
    pub fn is_mapped(&self) -> bool {
        matches!(self.storage, Storage::Mapped { .. })
    }

    /// A copy of the array with a fixed dimension.
    pub fn to_owned<D: Dimension>(&self) -> Result<ndarray::Array<T, D>, ndarray::ShapeError> {
        self.view().to_owned().into_dimensionality::<D>()
    }

    /// The array's little-endian bytes in C order.
    fn le_bytes(&self) -> Cow<'_, [u8]> {
        match &self.storage {
            Storage::Mapped { map, offset, len } => Cow::Borrowed(&map[*offset..*offset + *len]),
            Storage::Owned(items) => match T::as_le_bytes(items) {
                Some(bytes) => Cow::Borrowed(bytes),
                None => {
                    let mut out = Vec::with_capacity(items.len() * T::SIZE);
                    items.iter().for_each(|x| x.put(&mut out));
                    Cow::Owned(out)
                }
            },
        }
    }
}

impl<T: Element + std::fmt::Debug> std::fmt::Debug for MappedArray<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MappedArray")
            .field("mapped", &self.is_mapped())
            .field("array", &self.view())
            .finish()
    }
}

impl<T: Element + PartialEq> PartialEq for MappedArray<T> {
    fn eq(&self, other: &Self) -> bool {
        self.view() == other.view()
    }
}

impl<T: Element> codec_runtime::Encode for MappedArray<T> {
    fn encode_msgpack(&self, w: &mut MsgpackWriter) -> Result<(), EncodeError> {
        write_msgpack_parts::<T>(&self.shape, &self.le_bytes(), w)
    }

    fn encode_json(&self, w: &mut JsonWriter) -> Result<(), EncodeError> {
        write_json_parts::<T>(&self.shape, &self.le_bytes(), w)
    }
}

impl<'de, T: Element> codec_runtime::Decode<'de> for MappedArray<T> {
    fn decode_msgpack(r: &mut MsgpackReader<'de>) -> Result<Self, DecodeError> {
        let start = r.position();
        let (dtype, shape, (data, place)) = read_msgpack_parts(r, |r| r.read_bin_in_backing())?;
        let invalid =
            |m: String| DecodeError::invalid_value(m).at(codec_runtime::Format::MsgPack, start);
        let shape = checked_shape::<T>(dtype, &shape, None, data.len()).map_err(invalid)?;
        match place {
            Some((map, offset)) if cfg!(target_endian = "little") => {
                Self::mapped(map, offset, data.len(), shape).map_err(invalid)
            }
            _ => Ok(MappedArray {
                storage: Storage::Owned(data.chunks_exact(T::SIZE).map(T::get).collect()),
                shape,
            }),
        }
    }

    fn decode_json(r: &mut JsonReader<'de>) -> Result<Self, DecodeError> {
        ndarray::ArrayD::<T>::decode_json(r).map(|a| MappedArray::from_array(&a))
    }
}

impl<T: Element> codec_runtime::Schema for MappedArray<T> {
    const KIND: WireKind = WireKind::MAP;

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        ndarray::ArrayD::<T>::json_schema(generator)
    }
}
