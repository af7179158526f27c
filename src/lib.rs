//! codec makes Rust values safe to keep: `#[derive(Codec)]` gives a type a
//! tagged MessagePack and JSON encoding, wire-compatible with Python's msgspec.
//!
//! ```
//! use codec::Codec;
//!
//! #[derive(Codec, Debug, PartialEq)]
//! struct Chunk { text: String, start: u32, end: u32 }
//!
//! #[derive(Codec, Debug, PartialEq)]
//! enum Event { Click { x: i64, y: i64 }, Key { code: String }, Scroll { delta: f64 } }
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let chunk = Chunk { text: "hello".into(), start: 0, end: 5 };
//! let bytes: Vec<u8> = codec::to_msgpack(&chunk)?;
//! assert_eq!(codec::from_msgpack::<Chunk>(&bytes)?, chunk);
//!
//! let event = Event::Click { x: 3, y: -4 };
//! let text: String = codec::to_json(&event)?;
//! assert_eq!(text, r#"{"type":"Click","x":3,"y":-4}"#);
//! assert_eq!(codec::from_json::<Event>(&text)?, event);
//! # Ok(())
//! # }
//! ```
//!
//! The README has the wire conventions; the [`guide`] has the rest, every
//! sample of it a doc test.

pub use codec_derive::Codec;

/// The guide: how to use codec, chapter by chapter. Its samples run as doc
/// tests (`cargo test --doc`); the chapters are the files of `docs/guide/`.
///
/// - [`attributes`](guide::attributes): `#[codec(..)]` on types, variants
///   and fields; constraints; untagged unions; generic types' wire names.
/// - [`serde`](guide::serde): `#[serde(..)]` attributes, serde's traits for
///   codec types and serde types inside codec types.
/// - [`types`](guide::types): the types that implement `Codec`, borrowed
///   values, what msgspec has that codec does not, hostile input.
/// - [`schemas`](guide::schemas): JSON Schemas, fingerprints, stored values,
///   how types evolve, the drift check in CI, encoding snapshots.
/// - [`store`](guide::store): the cache store, memo caches,
///   `#[codec::memoize]`, handlers of values.
/// - [`arrays`](guide::arrays): ndarray arrays and Arrow tables in the store.
/// - [`store_layout`](guide::store_layout): what a cache folder holds, the
///   writers' logs, the index and its checkpoints, backends.
/// - [`object_storage`](guide::object_storage): the store in a bucket.
/// - [`maintenance`](guide::maintenance): compaction and the `codec` command.
/// - [`tested`](guide::tested): where each promise is tested.
///
/// Coming from Python (msgspec, CocoIndex, anystore, exca): `docs/from-python.md`.
pub mod guide {
    #[doc = include_str!("../docs/guide/attributes.md")]
    pub mod attributes {}

    #[doc = include_str!("../docs/guide/serde.md")]
    #[cfg(any(doc, feature = "serde"))]
    pub mod serde {}

    #[doc = include_str!("../docs/guide/types.md")]
    pub mod types {}

    #[doc = include_str!("../docs/guide/schemas.md")]
    pub mod schemas {}

    #[doc = include_str!("../docs/guide/store.md")]
    #[cfg(any(doc, feature = "store"))]
    pub mod store {}

    #[doc = include_str!("../docs/guide/arrays.md")]
    #[cfg(any(doc, all(feature = "ndarray", feature = "arrow")))]
    pub mod arrays {}

    #[doc = include_str!("../docs/guide/store_layout.md")]
    #[cfg(any(doc, feature = "store"))]
    pub mod store_layout {}

    #[doc = include_str!("../docs/guide/object_storage.md")]
    #[cfg(any(doc, feature = "object-store"))]
    pub mod object_storage {}

    #[doc = include_str!("../docs/guide/maintenance.md")]
    #[cfg(any(doc, feature = "store"))]
    pub mod maintenance {}

    #[doc = include_str!("../docs/guide/tested.md")]
    pub mod tested {}
}

/// The README's samples, run as doc tests.
// The README's samples use the store and the Python classes.
#[cfg(all(doctest, feature = "store", feature = "python"))]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

#[doc(hidden)]
pub use codec_derive::__link_package_library;

/// The drift check of every stored type of your program, for a test
/// (feature `drift`, on by default):
/// [`schema::DriftCheck::all`] on the folder `$dir`, with your library's
/// types linked into the test.
///
/// In an integration test (`tests/*.rs`), the library's types register
/// themselves only if the test binary links the library, which it does
/// only when the test names an item of it. This macro names your package's
/// library for you, so the check cannot pass while checking nothing. (Where
/// the types are linked anyway, in the library's own unit tests or a
/// binary, it is `DriftCheck::all($dir)`.)
///
/// ```no_run
/// #[test]
/// fn stored_types_have_not_drifted() {
///     codec::drift_check!("schemas").run().unwrap();
/// }
/// ```
///
/// The result is a [`schema::DriftCheck`]: add generic instantiations with
/// `.add::<Wrapper<u8>>()` before `.run()`.
#[cfg(feature = "drift")]
#[macro_export]
macro_rules! drift_check {
    ($dir:expr $(,)?) => {{
        $crate::__link_package_library!();
        $crate::schema::DriftCheck::all($dir)
    }};
}

/// `drift_check!` without the `drift` feature: the error says how to have it.
#[cfg(not(feature = "drift"))]
#[doc(hidden)]
#[macro_export]
macro_rules! drift_check {
    ($($t:tt)*) => {
        ::core::compile_error!(
            "`codec::drift_check!` needs codec's `drift` feature (on by default): `codec = { version = \"..\", features = [\"drift\"] }`, in `[dev-dependencies]` if only tests use it"
        )
    };
}

/// The Python module of every stored type of your program, for a test
/// (feature `python`):
/// [`python::Module::all`], with your library's types linked into the test
/// (as [`drift_check!`] links them).
///
/// ```no_run
/// #[test]
/// fn python_classes_are_up_to_date() {
///     codec::python_module!().schemas("schemas").check("python/models.py").unwrap();
/// }
/// ```
///
/// The result is a [`python::Module`]: add generic instantiations with
/// `.add::<Wrapper<u8>>()` before `.check(..)`.
#[cfg(feature = "python")]
#[macro_export]
macro_rules! python_module {
    () => {{
        $crate::__link_package_library!();
        $crate::python::Module::all()
    }};
}

/// `python_module!` without the `python` feature: the error says how to have it.
#[cfg(not(feature = "python"))]
#[doc(hidden)]
#[macro_export]
macro_rules! python_module {
    ($($t:tt)*) => {
        ::core::compile_error!(
            "`codec::python_module!` needs codec's `python` feature: `codec = { version = \"..\", features = [\"python\"] }`, in `[dev-dependencies]` if only tests use it"
        )
    };
}

/// Memoizes a function in a [`Cache`]: a call with arguments seen before
/// returns the stored result instead of running the body.
///
/// ```
/// use std::sync::LazyLock;
///
/// static CACHE: LazyLock<codec::Cache> = LazyLock::new(|| {
/// #   let dir = Box::leak(Box::new(tempfile::tempdir().unwrap()));
/// #   let path = dir.path().join("embeddings");
///     codec::Cache::open(path).expect("the cache folder opens")
/// });
///
/// #[derive(codec::Codec)]
/// struct Model { name: String, dim: usize }
///
/// struct Client; // an HTTP client, say: not part of the key
///
/// #[codec::memoize(cache = CACHE, version = 1, ignore(client))]
/// fn embed(client: &Client, model: &Model, text: &str) -> Result<Vec<f32>, codec::StoreError> {
///     Ok(vec![text.len() as f32; model.dim]) // the expensive part
/// }
///
/// # fn main() -> Result<(), codec::StoreError> {
/// let model = Model { name: "mini".into(), dim: 3 };
/// let first = embed(&Client, &model, "hello")?;   // computed and stored
/// let again = embed(&Client, &model, "hello")?;   // read back
/// assert_eq!(first, again);
/// # Ok(())
/// # }
/// ```
///
/// - **The key** of a call is `<module path>::<function>/v<version>/<hash>`,
///   the hash being [`ContentHash`] of the arguments in order (a reference
///   hashed as what it points to, `&str` as a string). Raise `version` when
///   the body computes something else for the same arguments: the old
///   entries are no longer read (`codec clear DIR --prefix ...` removes
///   them). `name = "..."` replaces the module path and function name, so
///   that moving or renaming the function keeps its entries (give one too
///   for associated functions of two types of one module, which would
///   otherwise share a name).
/// - **Arguments** must implement [`Codec`] (or be `&str`, `&[T]`), else it
///   does not compile; `ignore(a, b)` leaves arguments out of the key (a
///   client, a logger, a progress bar: what the result does not depend on).
///   `self` receivers and type or const generics are refused: the key could
///   not tell the types apart.
/// - **`key = <expr>`** hashes an expression of the arguments instead of
///   all of them: `key = (&chunk.text, &model.name)` when the result
///   depends on those fields only, so that a change of another field (a
///   renamed `id`, a new field of `Chunk`) does not compute every entry
///   again. Only the expression's value needs [`Codec`]; it is borrowed
///   (`&(<expr>)`) before the body runs. A key that leaves out what the
///   result depends on returns stale results: when in doubt, key on the
///   arguments (the default) and raise `version` when the body changes.
/// - **`state = <check>`** keeps a state beside each value, as CocoIndex's
///   memo state: `<check>` (`|prev| ..`, which may read the arguments)
///   gets the state stored with the value and returns a
///   [`store::MemoState`]: keep the value, keep it under a new state, or
///   compute it again ([`Cache::get_or_try_insert_with_state`], and its
///   `_async` twin for an `async fn`).
/// - **The cache** is any expression giving a `Cache` place or a reference
///   to one (a `static CACHE: LazyLock<Cache>`, an `Arc<Cache>`, a function
///   returning `&'static Cache`, `ctx.cache` of an ignored argument `ctx`),
///   evaluated at each call.
/// - `crate = "path"` says where the generated code finds codec, for a
///   renamed dependency or a re-export (default `::codec`), as
///   `#[codec(crate = "...")]` does for the derive.
/// - **The result** is `Result<T, E>`, `T: Codec`: reading and writing the
///   cache can fail, and `E: From<StoreError>` carries those errors
///   ([`StoreError`] itself, `Box<dyn Error>`, `anyhow::Error`, your own
///   enum). Only `Ok` values are stored; an `Err` is returned and the next
///   call runs the body again.
/// - It is [`Cache::get_or_try_insert_with`], with its rules: an entry
///   that today's `T` cannot read (a breaking change of `T`) is computed
///   again and overwritten, with a warning; calls with one key at a time
///   on one handle run the body once, the others wait and get its result
///   (across processes and machines too with `CacheOptions::memo_lock`).
/// - **`async fn`** works too, through
///   [`Cache::get_or_try_insert_with_async`], without depending on an
///   async runtime: a task waiting for another's computation of its key
///   (with `memo_lock`, another process's or machine's too) is woken, not
///   blocked, but the cache's reads and writes are ordinary
///   blocking file I/O, done on the task's thread (a hit takes about a
///   microsecond).
#[cfg(feature = "store")]
pub use codec_derive::memoize;
// With it `codec::schemars`, hidden: schemars' items keep their paths in
// schemars.
pub use codec_runtime::*;

/// Python classes for codec types (the crate `codec-python`; feature `python`).
#[cfg(feature = "python")]
pub use codec_python as python;
#[cfg(feature = "store")]
pub use codec_store::{Cache, CacheOptions, PutOptions, Ref, StoreError};

#[cfg(feature = "store")]
pub mod store;

#[doc(hidden)]
pub mod __private {
    pub use codec_runtime::__private::*;

    /// What `#[codec::memoize]` functions call.
    #[cfg(feature = "store")]
    pub mod memoize {
        pub use codec_store::__memoized::*;
    }

    /// What `#[codec(handler = path::to::Handler)]` builds its handler with.
    #[cfg(feature = "store")]
    pub mod handler {
        pub use codec_store::__handler::*;
    }
}

#[cfg(feature = "insta")]
#[doc(hidden)]
pub use insta as __insta;

/// Asserts a value's encodings (pretty JSON and annotated MessagePack, as
/// [`snapshot::render`] gives them) against an `insta` snapshot; needs the
/// `insta` feature. A value that does not encode fails the test with the
/// error. With a name first, the snapshot is named.
///
/// ```ignore
/// #[derive(codec::Codec)]
/// struct Point { x: i64, y: i64 }
///
/// #[test]
/// fn point_encoding() {
///     codec::assert_snapshot!(Point { x: 1, y: -2 });            // tests/snapshots/<file>__point_encoding.snap
///     codec::assert_snapshot!("origin", Point { x: 0, y: 0 });  // tests/snapshots/<file>__origin.snap
/// }
/// ```
///
/// Without the feature, the same in one line:
/// `insta::assert_snapshot!(codec::snapshot::render(&value).unwrap());`
#[cfg(feature = "insta")]
#[macro_export]
macro_rules! assert_snapshot {
    ($name:expr, $value:expr $(,)?) => {
        $crate::__insta::assert_snapshot!(
            $name,
            $crate::__private::render_for_test(&$value),
            ::core::stringify!($value)
        )
    };
    ($value:expr $(,)?) => {
        $crate::__insta::assert_snapshot!(
            $crate::__insta::_macro_support::AutoName,
            $crate::__private::render_for_test(&$value),
            ::core::stringify!($value)
        )
    };
}
