//! `codec._native`: the Rust store under the `codec` Python package.
//!
//! The store's own code opens and writes the folder or bucket: the index,
//! checkpoints, data files, leases and the readability check are Rust's.
//! Python gives and takes values as MessagePack bytes, which msgspec
//! encodes and decodes with the generated classes (`python/codec`).
//! Every call that touches the store lets other Python threads run.

mod array;

use std::time::Duration;

use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use array::{ArrayBuffer, Failed};
use codec::store::{Bounds, Mode};
use codec::{CacheOptions, PutOptions, StoreError};

create_exception!(
    _native,
    CacheError,
    PyException,
    "An error of the store: the message is Rust's, with its causes."
);
create_exception!(
    _native,
    SchemaError,
    CacheError,
    "A stored value that the type asked for cannot read: another type, or a schema with breaking changes (listed)."
);
create_exception!(
    _native,
    KeyRuleError,
    CacheError,
    "A key no write takes: empty, longer than 4 KiB, or with a control character."
);
create_exception!(
    _native,
    DecodeError,
    CacheError,
    "Stored bytes that do not decode as the type asked for."
);

/// The Python exception of a store error: its message and each cause
/// whose text the message does not already hold.
fn raised(e: StoreError) -> PyErr {
    let mut message = e.to_string();
    let mut source = std::error::Error::source(&e);
    while let Some(cause) = source {
        let text = cause.to_string();
        if !message.contains(&text) {
            message.push_str(": ");
            message.push_str(&text);
        }
        source = cause.source();
    }
    match e {
        StoreError::Schema { .. } => SchemaError::new_err(message),
        StoreError::InvalidKey { .. } => KeyRuleError::new_err(message),
        StoreError::Decode { .. } => DecodeError::new_err(message),
        _ => CacheError::new_err(message),
    }
}

/// A stored value's bytes for Python, and whether they are JSON.
fn encoded(py: Python<'_>, value: codec::store::EncodedValue) -> (Bound<'_, PyBytes>, bool) {
    (PyBytes::new(py, &value.bytes), value.mode == Mode::Json)
}

/// The Python exception of a call that failed in the store or in Python.
fn failed(e: Failed) -> PyErr {
    match e {
        Failed::Store(e) => raised(e),
        Failed::Python(e) => e,
    }
}

/// The options of a put: a time to live in seconds, JSON or MessagePack.
fn put_options(ttl: Option<f64>, json: bool) -> PyResult<PutOptions> {
    let mut options = PutOptions::default();
    if json {
        options = options.mode(Mode::Json);
    }
    if let Some(seconds) = ttl {
        options = options.ttl(seconds_of("ttl", seconds)?);
    }
    Ok(options)
}

/// The bounds of a store: entries, bytes of payload, seconds since last used.
fn bounds(
    max_entries: Option<usize>,
    max_bytes: Option<u64>,
    max_age: Option<f64>,
) -> PyResult<Bounds> {
    let mut bounds = Bounds::default();
    if let Some(entries) = max_entries {
        bounds = bounds.max_entries(entries);
    }
    if let Some(bytes) = max_bytes {
        bounds = bounds.max_bytes(bytes);
    }
    if let Some(seconds) = max_age {
        bounds = bounds.max_age(seconds_of("max_age", seconds)?);
    }
    Ok(bounds)
}

/// `seconds` as a duration above 0, else a `ValueError` naming `what`.
fn seconds_of(what: &str, seconds: f64) -> PyResult<Duration> {
    Duration::try_from_secs_f64(seconds)
        .ok()
        .filter(|d| !d.is_zero())
        .ok_or_else(|| {
            PyValueError::new_err(format!(
                "{what} {seconds} is not a number of seconds a value can live: give one above 0"
            ))
        })
}

/// A type known by its wire name and schema: a generated class, as the
/// store sees it.
#[pyclass(frozen, module = "codec._native")]
struct DeclaredType {
    inner: codec::store::DeclaredType,
}

#[pymethods]
impl DeclaredType {
    #[new]
    fn new(name: &str, aliases: Vec<String>, schema: &str) -> PyResult<Self> {
        let aliases: Vec<&str> = aliases.iter().map(String::as_str).collect();
        let inner = codec::store::DeclaredType::new(name, &aliases, schema)
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok(DeclaredType { inner })
    }

    /// Any value, whatever type wrote it.
    #[staticmethod]
    fn any() -> Self {
        DeclaredType {
            inner: codec::store::DeclaredType::any(),
        }
    }

    #[getter]
    fn name(&self) -> &str {
        self.inner.name()
    }

    #[getter]
    fn fingerprint(&self) -> &str {
        self.inner.fingerprint()
    }
}

/// A handle on a store, as Rust's `codec::Cache`.
#[pyclass(frozen, module = "codec._native")]
struct Cache {
    inner: codec::Cache,
}

#[pymethods]
impl Cache {
    /// Opens, creating it if needed, the store at `location`: a folder's
    /// path, or a URL (`s3://bucket/prefix`, `az://container/prefix`,
    /// `file:///path`, `memory://`). With `memo_lock`, a memo's key is
    /// computed once across handles, processes and machines.
    #[staticmethod]
    #[pyo3(signature = (location, memo_lock = false, max_entries = None, max_bytes = None, max_age = None))]
    fn open(
        py: Python<'_>,
        location: &str,
        memo_lock: bool,
        max_entries: Option<usize>,
        max_bytes: Option<u64>,
        max_age: Option<f64>,
    ) -> PyResult<Self> {
        let bounds = bounds(max_entries, max_bytes, max_age)?;
        let options = CacheOptions::default().memo_lock(memo_lock).bounds(bounds);
        let inner = py
            .detach(|| match location.contains("://") {
                true => codec::Cache::open_url_with(location, options),
                false => codec::Cache::open_with(location, options),
            })
            .map_err(raised)?;
        Ok(Cache { inner })
    }

    #[getter]
    fn location(&self) -> String {
        self.inner.location()
    }

    #[getter]
    fn writer_id(&self) -> &str {
        self.inner.writer_id()
    }

    /// The value of `declared` under `key` (MessagePack), or the bytes
    /// `compute()` returns, stored: Rust's memo, so a key is computed once
    /// by callers at once (across processes with `memo_lock`), whichever
    /// language they are in. An exception of `compute` is raised as is,
    /// and nothing is stored.
    #[pyo3(signature = (key, declared, compute, ttl = None))]
    fn memo<'py>(
        &self,
        py: Python<'py>,
        key: &str,
        declared: &DeclaredType,
        compute: Py<PyAny>,
        ttl: Option<f64>,
    ) -> PyResult<(Bound<'py, PyBytes>, bool)> {
        let options = put_options(ttl, false)?;
        let declared = declared.inner;
        let got = py.detach(|| {
            self.inner
                .get_or_try_insert_declared(key, &declared, &options, || {
                    Python::attach(|py| compute.call0(py)?.extract::<Vec<u8>>(py))
                        .map_err(Failed::Python)
                })
        });
        got.map(|value| encoded(py, value)).map_err(failed)
    }

    /// The array under `key`, lent where it lies (a memory map in a
    /// folder), as `dtype` (numpy's `dtype.str`) or as stored; None if
    /// there is none.
    #[pyo3(signature = (key, dtype = None))]
    fn get_array(
        &self,
        py: Python<'_>,
        key: &str,
        dtype: Option<&str>,
    ) -> PyResult<Option<ArrayBuffer>> {
        py.detach(|| array::get(&self.inner, key, dtype))
            .map_err(failed)
    }

    /// Stores an array's C-ordered bytes, of `dtype` and `shape`.
    fn put_array(
        &self,
        py: Python<'_>,
        key: &str,
        dtype: &str,
        shape: Vec<usize>,
        data: &[u8],
    ) -> PyResult<()> {
        py.detach(|| array::put(&self.inner, key, dtype, &shape, data))
            .map_err(failed)
    }

    /// Stores `payload` (a value of `declared`, MessagePack) under `key`,
    /// expiring after `ttl` seconds if given, as JSON if `json`.
    #[pyo3(signature = (key, declared, payload, ttl = None, json = false))]
    fn put(
        &self,
        py: Python<'_>,
        key: &str,
        declared: &DeclaredType,
        payload: &[u8],
        ttl: Option<f64>,
        json: bool,
    ) -> PyResult<()> {
        let options = put_options(ttl, json)?;
        let declared = declared.inner;
        py.detach(|| self.inner.put_declared(key, &declared, payload, &options))
            .map_err(raised)
    }

    /// The bytes under `key` that `declared` reads, and whether they are
    /// JSON (else MessagePack); None if there is none.
    fn get<'py>(
        &self,
        py: Python<'py>,
        key: &str,
        declared: &DeclaredType,
    ) -> PyResult<Option<(Bound<'py, PyBytes>, bool)>> {
        let declared = declared.inner;
        let got = py
            .detach(|| self.inner.get_declared(key, &declared))
            .map_err(raised)?;
        Ok(got.map(|value| encoded(py, value)))
    }

    /// Stores raw bytes under `key`.
    fn put_bytes(&self, py: Python<'_>, key: &str, data: &[u8]) -> PyResult<()> {
        py.detach(|| self.inner.put_bytes(key, data))
            .map_err(raised)
    }

    /// The raw bytes under `key` (or a typed entry's encoded payload).
    fn get_bytes<'py>(&self, py: Python<'py>, key: &str) -> PyResult<Option<Bound<'py, PyBytes>>> {
        let got = py.detach(|| self.inner.get_bytes(key)).map_err(raised)?;
        Ok(got.map(|bytes| PyBytes::new(py, &bytes)))
    }

    fn contains(&self, py: Python<'_>, key: &str) -> PyResult<bool> {
        py.detach(|| self.inner.contains(key)).map_err(raised)
    }

    fn remove(&self, py: Python<'_>, key: &str) -> PyResult<bool> {
        py.detach(|| self.inner.remove(key)).map_err(raised)
    }

    fn keys(&self, py: Python<'_>) -> PyResult<Vec<String>> {
        py.detach(|| self.inner.keys()).map_err(raised)
    }

    fn len(&self, py: Python<'_>) -> PyResult<usize> {
        py.detach(|| self.inner.len()).map_err(raised)
    }

    /// Removes the least recently used entries past the bounds given, now;
    /// returns the keys removed. Files of entries removed go after `grace`
    /// seconds, which readers that still map them have to finish.
    #[pyo3(signature = (max_entries = None, max_bytes = None, max_age = None, grace = 3600.0))]
    fn reduce_size(
        &self,
        py: Python<'_>,
        max_entries: Option<usize>,
        max_bytes: Option<u64>,
        max_age: Option<f64>,
        grace: f64,
    ) -> PyResult<Vec<String>> {
        let bounds = bounds(max_entries, max_bytes, max_age)?;
        let grace = Duration::try_from_secs_f64(grace).map_err(|_| {
            PyValueError::new_err(format!("grace {grace} is not a number of seconds"))
        })?;
        let done = py
            .detach(|| self.inner.admin().reduce_size(&bounds, grace))
            .map_err(raised)?;
        Ok(done.removed)
    }

    /// What this handle met and got past: torn or corrupt lines skipped,
    /// entries a memo computed again.
    fn warnings(&self) -> Vec<String> {
        self.inner.warnings()
    }

    /// Reads what other handles wrote since this one last looked.
    fn refresh(&self, py: Python<'_>) -> PyResult<()> {
        py.detach(|| self.inner.refresh()).map_err(raised)
    }
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_class::<Cache>()?;
    m.add_class::<DeclaredType>()?;
    m.add_class::<ArrayBuffer>()?;
    m.add("CacheError", py.get_type::<CacheError>())?;
    m.add("SchemaError", py.get_type::<SchemaError>())?;
    m.add("KeyRuleError", py.get_type::<KeyRuleError>())?;
    m.add("DecodeError", py.get_type::<DecodeError>())?;
    Ok(())
}
