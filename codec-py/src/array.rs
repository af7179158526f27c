//! Arrays as numpy reads them: an entry of `Cache::put_array` lent to
//! Python where it lies (in a folder, the data file's memory map) through
//! the buffer protocol, so `numpy.frombuffer` makes an array of it without
//! a copy; and a numpy array's bytes stored as `Cache::put_array` stores an
//! `ndarray` array.

use std::ffi::{c_int, c_void};

use codec::store::MappedArray;
use codec::ArrayElement;
use pyo3::exceptions::{PyBufferError, PyValueError};
use pyo3::ffi;
use pyo3::prelude::*;

/// The bytes of an array entry, read-only, and what keeps them alive (its
/// memory map, or the buffer a ranged read filled).
#[pyclass(frozen, module = "codec._native")]
pub struct ArrayBuffer {
    array: Box<dyn LeBytes>,
    #[pyo3(get)]
    dtype: &'static str,
    #[pyo3(get)]
    shape: Vec<usize>,
}

/// An array whose elements are their little-endian bytes in C order.
trait LeBytes: Send + Sync {
    fn le_bytes(&self) -> &[u8];
}

impl<T: ArrayElement + Send + Sync + 'static> LeBytes for MappedArray<T>
where
    MappedArray<T>: Send + Sync,
{
    fn le_bytes(&self) -> &[u8] {
        // C-ordered and little-endian: checked when the buffer was made.
        let items = self.view().to_slice().expect("a C-ordered array");
        T::as_le_bytes(items).expect("a little-endian machine")
    }
}

impl ArrayBuffer {
    fn of<T: ArrayElement + Send + Sync + 'static>(array: MappedArray<T>) -> PyResult<Self>
    where
        MappedArray<T>: Send + Sync,
    {
        let view = array.view();
        let items = view
            .as_slice()
            .ok_or_else(|| PyValueError::new_err("the array is not in C order"))?;
        if T::as_le_bytes(items).is_none() {
            return Err(PyValueError::new_err(
                "arrays are lent to numpy on little-endian machines only",
            ));
        }
        let shape = array.shape().to_vec();
        Ok(ArrayBuffer {
            array: Box::new(array),
            dtype: T::DTYPE,
            shape,
        })
    }
}

#[pymethods]
impl ArrayBuffer {
    /// The buffer protocol: the bytes, read-only, for as long as a view
    /// holds this object.
    unsafe fn __getbuffer__(
        slf: Bound<'_, Self>,
        view: *mut ffi::Py_buffer,
        flags: c_int,
    ) -> PyResult<()> {
        if flags & ffi::PyBUF_WRITABLE != 0 {
            return Err(PyBufferError::new_err("a stored array is read-only"));
        }
        let bytes = slf.get().array.le_bytes();
        // SAFETY: `view` is the buffer Python asks to fill; the bytes live
        // as long as `slf`, which the view holds a reference to, and are
        // lent read-only (the `1`).
        let done = unsafe {
            ffi::PyBuffer_FillInfo(
                view,
                slf.as_ptr(),
                bytes.as_ptr() as *mut c_void,
                bytes.len() as ffi::Py_ssize_t,
                1,
                flags,
            )
        };
        match done {
            -1 => Err(PyErr::fetch(slf.py())),
            _ => Ok(()),
        }
    }
}

/// Runs `$body` with `$t` the element type of numpy dtype `$dtype`, else
/// `$else`.
macro_rules! by_dtype {
    ($dtype:expr, |$t:ident| $body:expr, $else:expr) => {
        match $dtype {
            "<f8" => {
                type $t = f64;
                $body
            }
            "<f4" => {
                type $t = f32;
                $body
            }
            "<i8" => {
                type $t = i64;
                $body
            }
            "<i4" => {
                type $t = i32;
                $body
            }
            "<i2" => {
                type $t = i16;
                $body
            }
            "|i1" => {
                type $t = i8;
                $body
            }
            "<u8" => {
                type $t = u64;
                $body
            }
            "<u4" => {
                type $t = u32;
                $body
            }
            "<u2" => {
                type $t = u16;
                $body
            }
            "|u1" => {
                type $t = u8;
                $body
            }
            "|b1" => {
                type $t = bool;
                $body
            }
            _ => $else,
        }
    };
}

/// The numpy dtypes an entry's array can have.
const DTYPES: &str = "<f8, <f4, <i8, <i4, <i2, |i1, <u8, <u4, <u2, |u1, |b1";

fn unknown_dtype(dtype: &str) -> PyErr {
    PyValueError::new_err(format!(
        "dtype `{dtype}` is not one a stored array has: one of {DTYPES}"
    ))
}

/// The array under `key` as `dtype` (numpy's `dtype.str`), or as its
/// stored dtype if `None`.
pub fn get(
    cache: &codec::Cache,
    key: &str,
    dtype: Option<&str>,
) -> Result<Option<ArrayBuffer>, Failed> {
    let asked = dtype.unwrap_or("<f8");
    let got = by_dtype!(
        asked,
        |T| cache.get_array::<T>(key).map(|a| a.map(ArrayBuffer::of)),
        return Err(Failed::Python(unknown_dtype(asked)))
    );
    match got {
        // Not said: the dtype stored.
        Err(codec::StoreError::ArrayType { stored, .. }) if dtype.is_none() => {
            get(cache, key, Some(&stored))
        }
        Err(e) => Err(Failed::Store(e)),
        Ok(None) => Ok(None),
        Ok(Some(buffer)) => buffer.map(Some).map_err(Failed::Python),
    }
}

/// Stores the C-ordered `bytes` of an array of `dtype` and `shape` under
/// `key`, as `Cache::put_array`.
pub fn put(
    cache: &codec::Cache,
    key: &str,
    dtype: &str,
    shape: &[usize],
    bytes: &[u8],
) -> Result<(), Failed> {
    by_dtype!(
        dtype,
        |T| {
            let size = <T as ArrayElement>::SIZE;
            let count: usize = shape.iter().product();
            if bytes.len() != count * size {
                return Err(Failed::Python(PyValueError::new_err(format!(
                    "{} bytes are not an array of shape {shape:?} and dtype `{dtype}`",
                    bytes.len()
                ))));
            }
            let items: Vec<T> = bytes
                .chunks_exact(size)
                .map(<T as ArrayElement>::get)
                .collect();
            let array = ndarray::Array::from_shape_vec(ndarray::IxDyn(shape), items)
                .map_err(|e| Failed::Python(PyValueError::new_err(e.to_string())))?;
            cache.put_array(key, &array).map_err(Failed::Store)
        },
        Err(Failed::Python(unknown_dtype(dtype)))
    )
}

/// A call that failed: in the store, or on what Python gave.
pub enum Failed {
    Store(codec::StoreError),
    Python(PyErr),
}

impl From<codec::StoreError> for Failed {
    fn from(e: codec::StoreError) -> Self {
        Failed::Store(e)
    }
}
