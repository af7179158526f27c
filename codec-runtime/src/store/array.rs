//! n-dimensional arrays in the store (feature `ndarray`): raw little-endian
//! bytes appended to the writer's shared data file, aligned, and loaded by
//! memory map without copying: a 1 GiB array loads in constant time.

use std::borrow::Cow;
use std::marker::PhantomData;
use std::sync::Arc;

use memmap2::Mmap;
use ndarray::{ArrayView, Dimension, IxDyn};

use super::handler::{int, range_info, text, DumpContext, Handler, LoadContext};
use super::line::InfoRef;
use super::records::Info;
use super::{Cache, StoreError};
use crate::impls::ndarray::Element;

/// Where arrays start in the shared file: enough for any element type, and
/// for SIMD loads.
const ALIGN: u64 = 64;

/// The handler named `array`: see [`Cache::put_array`].
pub struct ArrayHandler;

impl Handler for ArrayHandler {
    fn name(&self) -> &str {
        "array"
    }

    fn dump(&self, payload: &[u8], ctx: &mut DumpContext<'_>) -> Result<Info, StoreError> {
        let (file, offset) = ctx.append_shared_aligned(payload, ALIGN)?;
        Ok(range_info(file, offset, payload.len()))
    }

    fn load(&self, info: &Info, ctx: &LoadContext<'_>) -> Result<Vec<u8>, StoreError> {
        let (file, offset, len) = location(info, ctx)?;
        ctx.read_range(&file, offset, len)
    }
}

fn location(info: &Info, ctx: &LoadContext<'_>) -> Result<(String, u64, u64), StoreError> {
    Ok((
        text(info, "file", ctx)?.to_owned(),
        int(info, "offset", ctx)?,
        int(info, "len", ctx)?,
    ))
}

fn location_ref<'a>(
    info: InfoRef<'a>,
    ctx: &LoadContext<'_>,
) -> Result<(Cow<'a, str>, u64, u64), StoreError> {
    let lacks = |key| ctx.corrupt(format!("index info lacks `{key}`"));
    let int = |key| match info.int(key) {
        Some(i) if i >= 0 => Ok(i as u64),
        _ => Err(lacks(key)),
    };
    let file = info.text("file").ok_or_else(|| lacks("file"))?;
    Ok((file, int("offset")?, int("len")?))
}

/// An array read from the store: a view into the memory-mapped data file.
pub struct MappedArray<T> {
    map: Arc<Mmap>,
    offset: usize,
    len: usize,
    shape: Vec<usize>,
    _element: PhantomData<T>,
}

impl<T: Element> MappedArray<T> {
    /// The array, without copying it.
    pub fn view(&self) -> ArrayView<'_, T, IxDyn> {
        let bytes = &self.map[self.offset..self.offset + self.len];
        // SAFETY: `get_array` checked that the range lies within the mapping,
        // that its start is aligned for `T` (arrays are written at 64-byte
        // boundaries of a page-aligned mapping), and that its length is
        // `product(shape) * size_of::<T>()`. `Element` types are plain numbers
        // (or bool, written as 0/1 by codec) for which the stored
        // little-endian bytes are the native representation (checked in
        // `get_array`). The data file is append-only, so the bytes do not
        // change while mapped.
        let data =
            unsafe { std::slice::from_raw_parts(bytes.as_ptr().cast::<T>(), self.len / T::SIZE) };
        ArrayView::from_shape(IxDyn(&self.shape), data)
            .expect("shape checked against the data length in get_array")
    }

    /// The array's shape.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// A copy of the array with a fixed dimension.
    pub fn to_owned<D: Dimension>(&self) -> Result<ndarray::Array<T, D>, ndarray::ShapeError> {
        self.view().to_owned().into_dimensionality::<D>()
    }
}

impl Cache {
    /// Stores an array as raw bytes in this writer's shared data file, for
    /// [`Cache::get_array`] to map without copying. Its dtype and shape go
    /// in the index line.
    pub fn put_array<T: Element, D: Dimension>(
        &self,
        key: &str,
        array: &ndarray::Array<T, D>,
    ) -> Result<(), StoreError> {
        let bytes = crate::impls::ndarray::raw_bytes(array);
        let name = format!("ndarray<{}>{:?}", T::DTYPE, array.shape());
        self.write_entry(
            key,
            Some(name),
            None,
            super::Mode::Raw,
            super::write::Payload::plain(&bytes),
            Some("array"),
        )
    }

    /// The array under `key`, memory-mapped: constant time whatever its size.
    pub fn get_array<T: Element>(&self, key: &str) -> Result<Option<MappedArray<T>>, StoreError> {
        if cfg!(target_endian = "big") {
            return Err(StoreError::Custom {
                message: "memory-mapped arrays need a little-endian machine; read the bytes with get_bytes".into(),
            });
        }
        let Some(found) = self.lookup(key)? else {
            return Ok(None);
        };
        let line = super::view(key, &found)?;
        let corrupt = |message: String| StoreError::Corrupt {
            key: key.to_owned(),
            message,
        };
        let handler = line.handler.as_deref().unwrap_or_default();
        if handler != "array" {
            return Err(corrupt(format!(
                "entry was stored by handler `{handler}`, not as an array"
            )));
        }
        let (dtype, shape) = parse_type_name(line.type_name.as_deref().unwrap_or_default())
            .ok_or_else(|| corrupt("array entry without its dtype and shape".into()))?;
        if dtype != T::DTYPE {
            return Err(corrupt(format!(
                "array dtype `{dtype}` is not `{}`",
                T::DTYPE
            )));
        }
        let ctx = self.load_context(key);
        let (file, offset, len) = location_ref(line.info_ref(), &ctx)?;
        let expected = shape.iter().try_fold(T::SIZE, |acc, &d| acc.checked_mul(d));
        if expected != Some(len as usize) || offset % ALIGN != 0 {
            return Err(corrupt(format!(
                "array of shape {shape:?} does not match its {len} bytes at offset {offset}"
            )));
        }
        let end = offset + len;
        let map = ctx.mapped(&file, end)?;
        if T::DTYPE == "|b1" && map[offset as usize..end as usize].iter().any(|&b| b > 1) {
            // Any other byte is not a bool: refuse rather than view it as one.
            return Err(corrupt("bool array holds bytes other than 0 and 1".into()));
        }
        Ok(Some(MappedArray {
            map,
            offset: offset as usize,
            len: len as usize,
            shape,
            _element: PhantomData,
        }))
    }
}

/// `ndarray<<f8>[2, 3]` -> (`<f8`, [2, 3]).
fn parse_type_name(name: &str) -> Option<(String, Vec<usize>)> {
    let rest = name.strip_prefix("ndarray<")?;
    let (dtype, shape) = rest.split_once('>')?;
    let shape = shape.strip_prefix('[')?.strip_suffix(']')?;
    let dims = if shape.trim().is_empty() {
        Vec::new()
    } else {
        shape
            .split(',')
            .map(|d| d.trim().parse().ok())
            .collect::<Option<Vec<usize>>>()?
    };
    Some((dtype.to_owned(), dims))
}
