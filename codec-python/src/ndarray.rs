//! `ndarray` arrays (feature `ndarray` of codec): codec writes them as a map
//! of the numpy dtype, the shape and the raw little-endian bytes in C order,
//! an inline schema in the types that hold them. Each kind of array (dtype
//! and number of dimensions) becomes one Struct of the module, with
//! `to_numpy()` and `from_numpy()`; numpy is imported only by those, so the
//! module imports without it.

use std::collections::BTreeMap;

use serde_json::Value;

use super::names::python_str;

/// The wire-name prefix of the definitions of arrays: not a Rust type's.
const PREFIX: &str = "codec.ndarray.";

/// An array's dtype and its number of dimensions (`None`: any).
pub(super) struct ArrayKind<'a> {
    pub(super) dtype: &'a str,
    pub(super) ndim: Option<u64>,
}

/// The kind of array `schema` describes, if it is one as codec writes it.
pub(super) fn array_kind(schema: &Value) -> Option<ArrayKind<'_>> {
    let obj = schema.as_object()?;
    let properties = obj.get("properties")?.as_object()?;
    let mut keys: Vec<&str> = properties.keys().map(String::as_str).collect();
    keys.sort_unstable();
    if keys != ["data", "dtype", "shape"] || obj.get("additionalProperties") != Some(&false.into())
    {
        return None;
    }
    let dtype = properties["dtype"].get("const")?.as_str()?;
    let shape = &properties["shape"];
    let ndim = match (shape.get("minItems"), shape.get("maxItems")) {
        (Some(min), Some(max)) if min == max => Some(min.as_u64()?),
        _ => None,
    };
    Some(ArrayKind { dtype, ndim })
}

/// `defs` with each array schema inside a definition replaced by a
/// reference to a definition of its kind (`codec.ndarray.ArrayF8D2`), added.
pub(super) fn lift(defs: &BTreeMap<String, Value>) -> BTreeMap<String, Value> {
    let mut out = defs.clone();
    let mut arrays = BTreeMap::new();
    for schema in out.values_mut() {
        replace(schema, &mut arrays);
    }
    out.extend(arrays);
    out
}

/// Replaces the arrays in `schema` (itself too: a newtype of an array is
/// then an alias of its kind's class).
fn replace(schema: &mut Value, arrays: &mut BTreeMap<String, Value>) {
    if let Some(kind) = array_kind(schema) {
        let name = format!("{PREFIX}{}", class_name(&kind));
        let reference = Value::from(format!("#/$defs/{name}"));
        let array = std::mem::replace(schema, serde_json::json!({ "$ref": reference }));
        arrays.insert(name, array);
        return;
    }
    match schema {
        Value::Object(map) => map
            .iter_mut()
            .filter(|(key, _)| *key != "default")
            .for_each(|(_, v)| replace(v, arrays)),
        Value::Array(items) => items.iter_mut().for_each(|v| replace(v, arrays)),
        _ => {}
    }
}

/// `ArrayF8D2` for `<f8` in 2 dimensions, `ArrayU1` for `|u1` in any.
fn class_name(kind: &ArrayKind<'_>) -> String {
    let code: String = kind
        .dtype
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .collect::<String>()
        .to_ascii_uppercase();
    match kind.ndim {
        Some(n) => format!("Array{code}D{n}"),
        None => format!("Array{code}"),
    }
}

/// The Struct of an array kind: its fields as codec writes them, a check
/// that the data fills the shape (as codec refuses otherwise), and the
/// helpers to and from numpy.
pub(super) fn class(class: &str, kind: &ArrayKind<'_>) -> String {
    let dtype = python_str(kind.dtype);
    let dimension = "typing.Annotated[int, msgspec.Meta(ge=0)]";
    let (shape, dimensions) = match kind.ndim {
        Some(n) => {
            let dims = vec![dimension; n as usize].join(", ");
            let dims = if n == 0 { "()".to_owned() } else { dims };
            (format!("tuple[{dims}]"), format!("{n} dimensions"))
        }
        None => (format!("tuple[{dimension}, ...]"), "any dimensions".into()),
    };
    format!(
        r#"class {class}(msgspec.Struct):
    """An ndarray array of dtype {dtype} in {dimensions}: its shape and its
    little-endian bytes in C order. to_numpy() and from_numpy() convert
    (they import numpy, which this module does not need)."""

    dtype: typing.Literal[{dtype}]
    shape: {shape}
    data: bytes

    def __post_init__(self) -> None:
        size = int(self.dtype[2:])
        for dimension in self.shape:
            size *= dimension
        if size != len(self.data):
            raise ValueError(
                f"an array of shape {{self.shape}} needs {{size}} bytes of data, "
                f"found {{len(self.data)}}"
            )

    def to_numpy(self) -> typing.Any:
        """The array as a numpy array (read-only: it shares the bytes)."""
        numpy = importlib.import_module("numpy")
        return numpy.frombuffer(self.data, dtype=self.dtype).reshape(self.shape)

    @classmethod
    def from_numpy(cls, array: typing.Any) -> "{class}":
        """The array of a numpy array, converted to dtype {dtype}."""
        numpy = importlib.import_module("numpy")
        array = numpy.ascontiguousarray(array, dtype=numpy.dtype({dtype}))
        return cls(dtype={dtype}, shape=tuple(array.shape), data=array.tobytes())
"#
    )
}
