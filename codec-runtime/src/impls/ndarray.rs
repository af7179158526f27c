//! `ndarray::Array<T, D>` (feature `ndarray`): a map of the numpy dtype, the
//! shape and the raw little-endian bytes in C order:
//! `{"dtype": "<f8", "shape": [2, 3], "data": <bin>}` (base64 in JSON).

use std::borrow::Cow;

use base64::Engine as _;
use ndarray::{Array, Dimension, IxDyn};
use schemars::SchemaGenerator;
use serde_json::json;

use crate::codec::Schema;
use crate::decode::Decode;
use crate::encode::Encode;
use crate::error::{DecodeError, DecodeErrorKind, EncodeError};
use crate::json::{JsonReader, JsonWriter};
use crate::kind::WireKind;
use crate::msgpack::{MsgpackReader, MsgpackWriter};
use crate::schema;

/// An element type with a numpy dtype.
pub trait Element: Copy {
    /// The numpy dtype string (`<f8`, `|u1`, ...).
    const DTYPE: &'static str;
    /// Bytes per element.
    const SIZE: usize;
    /// Appends the element's little-endian bytes.
    fn put(self, out: &mut Vec<u8>);
    /// The element from its little-endian bytes (`SIZE` of them).
    fn get(bytes: &[u8]) -> Self;
    /// The little-endian bytes of `elements` without copying, when their
    /// memory already holds exactly those bytes; `None` (the default) has
    /// callers copy them through [`put`](Self::put).
    fn as_le_bytes(elements: &[Self]) -> Option<&[u8]> {
        let _ = elements;
        None
    }
}

/// The memory of `elements`, as bytes.
///
/// # Safety
/// `T` must have no padding and no invalid bytes (a primitive number or bool).
unsafe fn memory_bytes<T>(elements: &[T]) -> &[u8] {
    // SAFETY: the caller guarantees every byte of a `T` is initialized; the
    // slice covers exactly the elements' memory, borrowed for as long.
    unsafe {
        std::slice::from_raw_parts(
            elements.as_ptr().cast::<u8>(),
            std::mem::size_of_val(elements),
        )
    }
}

macro_rules! element {
    ($($t:ty => $dtype:literal;)*) => {$(
        impl Element for $t {
            const DTYPE: &'static str = $dtype;
            const SIZE: usize = std::mem::size_of::<$t>();
            fn put(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
            fn get(bytes: &[u8]) -> Self {
                let mut b = [0u8; std::mem::size_of::<$t>()];
                b.copy_from_slice(bytes);
                <$t>::from_le_bytes(b)
            }
            fn as_le_bytes(elements: &[Self]) -> Option<&[u8]> {
                // SAFETY: a primitive number has no padding; on a
                // little-endian machine its memory is its little-endian bytes.
                cfg!(target_endian = "little").then(|| unsafe { memory_bytes(elements) })
            }
        }
    )*};
}

element! {
    f32 => "<f4"; f64 => "<f8";
    i8 => "|i1"; i16 => "<i2"; i32 => "<i4"; i64 => "<i8";
    u8 => "|u1"; u16 => "<u2"; u32 => "<u4"; u64 => "<u8";
}

impl Element for bool {
    const DTYPE: &'static str = "|b1";
    const SIZE: usize = 1;
    fn put(self, out: &mut Vec<u8>) {
        out.push(self as u8);
    }
    fn get(bytes: &[u8]) -> Self {
        bytes[0] != 0
    }
    fn as_le_bytes(elements: &[Self]) -> Option<&[u8]> {
        // SAFETY: a bool is one byte, 0 or 1: what `put` writes.
        Some(unsafe { memory_bytes(elements) })
    }
}

/// The array's little-endian bytes in C order: its own memory when that
/// holds them (a standard-layout array of a built-in type), else a copy.
pub fn raw_bytes<T: Element, D: Dimension>(a: &Array<T, D>) -> Cow<'_, [u8]> {
    if let Some(bytes) = a.as_slice().and_then(T::as_le_bytes) {
        return Cow::Borrowed(bytes);
    }
    let mut out = Vec::with_capacity(a.len() * T::SIZE);
    for &x in a.iter() {
        x.put(&mut out);
    }
    Cow::Owned(out)
}

/// The shape of an array of `T` with `ndim` dimensions (any if `None`),
/// checked against its dtype and its `data_len` bytes of data.
pub fn checked_shape<T: Element>(
    dtype: &str,
    shape: &[u64],
    ndim: Option<usize>,
    data_len: usize,
) -> Result<Vec<usize>, String> {
    if dtype != T::DTYPE {
        return Err(format!(
            "array dtype `{dtype}` is not `{}`, the element type read into",
            T::DTYPE
        ));
    }
    if let Some(ndim) = ndim
        && shape.len() != ndim
    {
        return Err(format!(
            "array has {} dimensions, the target type has {ndim}",
            shape.len()
        ));
    }
    let shape: Vec<usize> = shape
        .iter()
        .map(|&d| usize::try_from(d).map_err(|_| format!("dimension {d} is too large")))
        .collect::<Result<_, _>>()?;
    let expected = shape
        .iter()
        .try_fold(T::SIZE, |acc, &d| acc.checked_mul(d))
        .ok_or("array shape overflows the address space")?;
    if expected != data_len {
        return Err(format!(
            "array of shape {shape:?} needs {expected} bytes of data, found {data_len}"
        ));
    }
    Ok(shape)
}

/// Builds the array from its decoded parts, checking everything against the data.
fn build<T: Element, D: Dimension>(
    dtype: &str,
    shape: &[u64],
    data: &[u8],
) -> Result<Array<T, D>, String> {
    let shape = checked_shape::<T>(dtype, shape, D::NDIM, data.len())?;
    let items: Vec<T> = data.chunks_exact(T::SIZE).map(T::get).collect();
    Array::from_shape_vec(IxDyn(&shape), items)
        .map_err(|e| e.to_string())?
        .into_dimensionality::<D>()
        .map_err(|e| e.to_string())
}

/// Reads the map of an array: its dtype, its shape, and its data through
/// `read_data`.
pub fn read_msgpack_parts<'de, B>(
    r: &mut MsgpackReader<'de>,
    mut read_data: impl FnMut(&mut MsgpackReader<'de>) -> Result<B, DecodeError>,
) -> Result<(&'de str, Vec<u64>, B), DecodeError> {
    let len = r.read_map_len()?;
    let (dtype, shape, data) = r.nested(|r| {
        let (mut dtype, mut shape, mut data) = (None, None, None);
        for _ in 0..len {
            match r.read_str_bytes()? {
                b"dtype" => dtype = Some(r.read_str()?),
                b"shape" => {
                    shape = Some(Vec::<u64>::decode_msgpack(r).map_err(|e| e.in_field("shape"))?)
                }
                b"data" => data = Some(read_data(r)?),
                other => return Err(r.locate(DecodeError::unknown_field(other, FIELDS))),
            }
        }
        Ok((dtype, shape, data))
    })?;
    let dtype = dtype.ok_or_else(|| r.locate(DecodeError::missing_field("dtype")))?;
    let shape = shape.ok_or_else(|| r.locate(DecodeError::missing_field("shape")))?;
    let data = data.ok_or_else(|| r.locate(DecodeError::missing_field("data")))?;
    Ok((dtype, shape, data))
}

/// Writes the map of an array of `T`.
pub fn write_msgpack_parts<T: Element>(
    shape: &[usize],
    data: &[u8],
    w: &mut MsgpackWriter,
) -> Result<(), EncodeError> {
    w.write_map_len(3)?;
    w.write_str("dtype")?;
    w.write_str(T::DTYPE)?;
    w.write_str("shape")?;
    w.write_array_len(shape.len())?;
    for &d in shape {
        w.write_u64(d as u64);
    }
    w.write_str("data")?;
    w.write_bin(data)
}

/// Writes the object of an array of `T`.
pub fn write_json_parts<T: Element>(
    shape: &[usize],
    data: &[u8],
    w: &mut JsonWriter,
) -> Result<(), EncodeError> {
    w.write_raw(b"{\"dtype\":");
    w.write_str(T::DTYPE)?;
    w.write_raw(b",\"shape\":");
    shape
        .iter()
        .map(|&d| d as u64)
        .collect::<Vec<_>>()
        .encode_json(w)?;
    w.write_raw(b",\"data\":");
    w.write_base64(data);
    w.write_byte(b'}');
    Ok(())
}

const FIELDS: &[&str] = &["dtype", "shape", "data"];

impl<T: Element, D: Dimension> Encode for Array<T, D> {
    fn encode_msgpack(&self, w: &mut MsgpackWriter) -> Result<(), EncodeError> {
        write_msgpack_parts::<T>(self.shape(), &raw_bytes(self), w)
    }

    fn encode_json(&self, w: &mut JsonWriter) -> Result<(), EncodeError> {
        write_json_parts::<T>(self.shape(), &raw_bytes(self), w)
    }
}

impl<'de, T: Element, D: Dimension> Decode<'de> for Array<T, D> {
    fn decode_msgpack(r: &mut MsgpackReader<'de>) -> Result<Self, DecodeError> {
        let start = r.position();
        let (dtype, shape, data) = read_msgpack_parts(r, |r| r.read_bin())?;
        build(dtype, &shape, data)
            .map_err(|m| DecodeError::invalid_value(m).at(crate::error::Format::MsgPack, start))
    }

    fn decode_json(r: &mut JsonReader<'de>) -> Result<Self, DecodeError> {
        let start = r.position();
        r.begin_object()?;
        let (mut dtype, mut shape, mut data) = (None, None, None);
        let mut first = true;
        while let Some(key) = r.next_key(&mut first)? {
            match key.as_bytes() {
                b"dtype" => dtype = Some(r.read_str()?.into_owned()),
                b"shape" => {
                    shape = Some(Vec::<u64>::decode_json(r).map_err(|e| e.in_field("shape"))?)
                }
                b"data" => {
                    let text = r.read_str()?;
                    let bytes = base64::engine::general_purpose::STANDARD
                        .decode(text.as_bytes())
                        .map_err(|e| {
                            r.error(DecodeErrorKind::InvalidValue {
                                message: format!("array data is not base64: {e}"),
                            })
                        })?;
                    data = Some(bytes);
                }
                other => return Err(r.locate(DecodeError::unknown_field(other, FIELDS))),
            }
        }
        let dtype = dtype.ok_or_else(|| r.locate(DecodeError::missing_field("dtype")))?;
        let shape = shape.ok_or_else(|| r.locate(DecodeError::missing_field("shape")))?;
        let data = data.ok_or_else(|| r.locate(DecodeError::missing_field("data")))?;
        build(&dtype, &shape, &data)
            .map_err(|m| DecodeError::invalid_value(m).at(crate::error::Format::Json, start))
    }
}

impl<T: Element, D: Dimension> Schema for Array<T, D> {
    const KIND: WireKind = WireKind::MAP;

    fn json_schema(_: &mut SchemaGenerator) -> schemars::Schema {
        let mut shape = json!({ "type": "array", "items": { "type": "integer", "minimum": 0 } });
        if let Some(n) = D::NDIM {
            shape["minItems"] = n.into();
            shape["maxItems"] = n.into();
        }
        let value = json!({
            "type": "object",
            "properties": {
                "dtype": { "const": T::DTYPE },
                "shape": shape,
                "data": { "type": "string", "contentEncoding": "base64" },
            },
            "required": ["dtype", "shape", "data"],
            "additionalProperties": false,
        });
        schemars::Schema::try_from(value).unwrap_or_else(|_| schema::typed("object", json!({})))
    }
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use ndarray::{arr2, Array1, Array2, ArrayD, ShapeBuilder};

    #[test]
    fn arrays_round_trip_and_check_their_data() {
        let a = arr2(&[[1.0f64, 2.0, 3.0], [4.0, 5.0, 6.0]]);
        let bytes = crate::convert::to_msgpack(&a).unwrap();
        assert_eq!(
            crate::convert::from_msgpack::<Array2<f64>>(&bytes).unwrap(),
            a
        );
        assert_eq!(
            crate::convert::from_json::<Array2<f64>>(&crate::convert::to_json(&a).unwrap())
                .unwrap(),
            a
        );
        let t = a.t().to_owned();
        assert_eq!(
            crate::convert::from_msgpack::<ArrayD<f64>>(&crate::convert::to_msgpack(&t).unwrap())
                .unwrap(),
            t.into_dyn()
        );
        let err = crate::convert::from_msgpack::<Array1<f64>>(&bytes).unwrap_err();
        assert!(err.to_string().contains("2 dimensions"), "{err}");
        let err = crate::convert::from_msgpack::<Array2<f32>>(&bytes).unwrap_err();
        assert!(err.to_string().contains("dtype"), "{err}");
        let lying = r#"{"dtype":"<f8","shape":[1000000000,1000000000],"data":"AAAAAAAAAAA="}"#;
        let err = crate::convert::from_json::<Array2<f64>>(lying).unwrap_err();
        assert!(err.to_string().contains("bytes of data"), "{err}");
    }

    #[test]
    fn a_standard_layout_array_lends_its_memory_and_another_is_copied_in_c_order() {
        // A 1 MiB `put_array` writes from the array's memory: no copy of it.
        let a = arr2(&[[1.0f64, 2.0], [3.0, 4.0]]);
        let bytes = super::raw_bytes(&a);
        assert!(matches!(bytes, Cow::Borrowed(_)), "copied: {bytes:?}");
        assert_eq!(bytes.as_ptr(), a.as_ptr().cast::<u8>());
        let columns = Array2::from_shape_vec((2, 2).f(), vec![1.0f64, 3.0, 2.0, 4.0]).unwrap();
        assert_eq!(columns, a);
        let copied = super::raw_bytes(&columns);
        assert!(matches!(copied, Cow::Owned(_)));
        assert_eq!(copied, bytes);
    }
}
