//! A Rust program sharing a cache with a Python one (the `codec` Python
//! package, `codec-py/`): it writes the msgspec classes of its types, and
//! writes and reads values and memo entries in a store that Python opens
//! too. The package's tests run it.
//!
//! ```sh
//! cargo run --example python_shared --features python,aws -- module v1 > models_v1.py
//! cargo run --example python_shared --features python,aws -- write LOCATION
//! cargo run --example python_shared --features python,aws -- check LOCATION
//! cargo run --example python_shared --features python,aws -- memo LOCATION FROM TO
//! ```

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};

use codec::{Cache, CacheOptions, Codec, StoreError};

/// The types as the program first wrote them.
pub mod v1 {
    use super::Codec;
    use std::collections::BTreeMap;

    /// A piece of a document.
    #[derive(Codec, Debug, PartialEq, Clone)]
    #[codec(name = "shared.Chunk")]
    pub struct Chunk {
        pub text: String,
        pub start: u32,
        pub end: u32,
    }

    /// Fields named as JSON Schema's keywords, a nested type, a union.
    #[derive(Codec, Debug, PartialEq, Clone)]
    #[codec(name = "shared.Doc")]
    pub struct Doc {
        pub title: String,
        pub default: Option<String>,
        pub chunks: Vec<Chunk>,
        pub tags: BTreeMap<String, u32>,
        pub event: Event,
    }

    /// What the memoized function returns.
    #[derive(Codec, Debug, PartialEq, Clone)]
    #[codec(name = "shared.Embedding")]
    pub struct Embedding {
        pub values: Vec<f64>,
    }

    /// Something that happened.
    #[derive(Codec, Debug, PartialEq, Clone)]
    #[codec(name = "shared.Event")]
    pub enum Event {
        Click { x: i64, y: i64 },
        Key { code: String },
    }
}

/// The types one version later.
pub mod v2 {
    use super::Codec;
    use std::collections::BTreeMap;

    /// `v1::Chunk` with a field added: values of `v1` still read.
    #[derive(Codec, Debug, PartialEq, Clone)]
    #[codec(name = "shared.Chunk")]
    pub struct Chunk {
        pub text: String,
        pub start: u32,
        pub end: u32,
        #[codec(default)]
        pub source: Option<String>,
    }

    /// `v1::Doc` whose chunks changed compatibly and whose tags changed
    /// type: values of `v1` are refused.
    #[derive(Codec, Debug, PartialEq, Clone)]
    #[codec(name = "shared.Doc")]
    pub struct Doc {
        pub title: String,
        pub default: Option<String>,
        pub chunks: Vec<Chunk>,
        pub tags: BTreeMap<String, String>,
        pub event: super::v1::Event,
    }
}

fn chunk(n: u32) -> v1::Chunk {
    v1::Chunk {
        text: format!("chunk {n}"),
        start: n,
        end: n + 5,
    }
}

fn doc() -> v1::Doc {
    v1::Doc {
        title: "$ref".into(),
        default: None,
        chunks: vec![chunk(1), chunk(2)],
        tags: BTreeMap::from([("b".into(), 2), ("a".into(), 1)]),
        event: v1::Event::Key {
            code: "Enter".into(),
        },
    }
}

/// The memoized function Python has a twin of: the same name, version
/// and arguments, so the same keys.
static CALLS: AtomicUsize = AtomicUsize::new(0);

#[codec::memoize(cache = CACHE.get().expect("opened first"), name = "shared::embed", version = 1)]
fn embed(text: &str, dims: u32) -> Result<v1::Embedding, StoreError> {
    CALLS.fetch_add(1, Ordering::Relaxed);
    // Long enough for the other language to ask for the key meanwhile.
    std::thread::sleep(std::time::Duration::from_millis(2));
    Ok(embedding(text, dims))
}

/// What both languages compute for an input.
fn embedding(text: &str, dims: u32) -> v1::Embedding {
    let values = (0..dims)
        .map(|i| (text.len() as f64) * 0.5 + f64::from(i))
        .collect();
    v1::Embedding { values }
}

static CACHE: std::sync::OnceLock<Cache> = std::sync::OnceLock::new();

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    match args[..] {
        ["module", version] => print!("{}", module(version)?),
        ["hashes"] => {
            for hash in hashes()? {
                println!("{hash}");
            }
        }
        ["write", location] => {
            let cache = open(location, CacheOptions::default())?;
            cache.put("chunk", &chunk(7))?;
            cache.put("doc", &doc())?;
            cache.put("event", &v1::Event::Click { x: 3, y: -4 })?;
            cache.put("number", &42u64)?;
            cache.put_bytes("raw", b"\x00raw bytes")?;
            let table =
                ndarray::Array2::<f64>::from_shape_fn((100, 8), |(i, j)| (i * 8 + j) as f64);
            cache.put_array("array", &table)?;
        }
        ["check", location] => {
            let cache = open(location, CacheOptions::default())?;
            // What the Python tests wrote.
            let expect = |what: bool, message: &str| match what {
                true => Ok(()),
                false => Err(message.to_owned()),
            };
            expect(
                cache.get::<v1::Chunk>("py/chunk")? == Some(chunk(9)),
                "py/chunk",
            )?;
            let read = cache
                .get::<v2::Chunk>("py/chunk")?
                .ok_or("py/chunk as v2")?;
            expect(read.source.is_none() && read.start == 9, "py/chunk as v2")?;
            expect(cache.get::<v1::Doc>("py/doc")? == Some(doc()), "py/doc")?;
            let refused = cache.get::<v2::Doc>("py/doc");
            expect(
                matches!(refused, Err(StoreError::Schema { .. })),
                "py/doc as v2 is refused",
            )?;
            expect(
                cache.get::<v1::Event>("py/event")? == Some(v1::Event::Key { code: "Esc".into() }),
                "py/event",
            )?;
            let untyped = cache
                .get::<codec::Value>("py/untyped")?
                .ok_or("py/untyped")?;
            expect(
                codec::to_json(&untyped)? == r#"{"a":[1,2.5,"x",null]}"#,
                "py/untyped",
            )?;
            let array = cache.get_array::<f32>("py/array")?.ok_or("py/array")?;
            expect(array.shape() == [3, 2], "py/array's shape")?;
            expect(array.view()[[2, 1]] == 5.5, "py/array[2, 1]")?;
            println!("ok");
        }
        ["memo", location, from, to] => {
            let cache = open(location, CacheOptions::default().memo_lock(true))?;
            CACHE.get_or_init(|| cache);
            // Upwards, or downwards when `from` is the larger.
            let (from, to): (u32, u32) = (from.parse()?, to.parse()?);
            let inputs: Vec<u32> = match from <= to {
                true => (from..to).collect(),
                false => (to..from).rev().collect(),
            };
            for n in inputs {
                let text = format!("input {n}");
                let got = embed(&text, 4)?;
                assert_eq!(got, embedding(&text, 4), "{text}");
            }
            println!("computed {}", CALLS.load(Ordering::Relaxed));
        }
        _ => return Err(format!("unknown arguments {args:?}: see the example's doc").into()),
    }
    Ok(())
}

/// The content hashes of arguments of every kind the classes hold, as
/// `#[codec::memoize]` hashes them: the Python tests hash the same values
/// and compare, line by line.
fn hashes() -> Result<Vec<String>, codec::EncodeError> {
    use codec::ContentHash;
    use std::collections::{BTreeSet, HashMap, HashSet};
    let h = ContentHash::new;
    Ok(vec![
        h().part("text").finish()?,
        h().part("héllo ✓").part("").finish()?,
        h().part(&42u64).part(&-7i64).part(&0u8).finish()?,
        h().part(&u64::MAX)
            .part(&i64::MIN)
            .part(&255u8)
            .part(&-129i16)
            .finish()?,
        h().part(&2.5f64)
            .part(&0.1f64)
            .part(&-0.0f64)
            .part(&1e300f64)
            .finish()?,
        h().part(&true).part(&false).finish()?,
        h().part(&None::<u32>).part(&Some(3u32)).finish()?,
        h().part(&vec![1u8, 2, 3]).finish()?,
        h().part(&vec![1u32, 2, 3])
            .part(&Vec::<String>::new())
            .finish()?,
        h().part(&BTreeMap::from([
            ("b".to_string(), 2u32),
            ("a".to_string(), 1),
        ]))
        .finish()?,
        h().part(&HashMap::from([
            ("z".to_string(), vec![1u32]),
            ("y".to_string(), vec![]),
        ]))
        .finish()?,
        h().part(&HashSet::from(["q".to_string(), "p".to_string()]))
            .part(&BTreeSet::from([3u32, 1, 2]))
            .finish()?,
        h().part(&chunk(3)).finish()?,
        h().part(&v1::Event::Key {
            code: "Enter".into(),
        })
        .part(&v1::Event::Click { x: -1, y: 2 })
        .finish()?,
        h().part(&doc()).finish()?,
        h().part(&vec![chunk(1), chunk(2)])
            .part(&Some(chunk(4)))
            .finish()?,
        h().part(&(String::from("embed"), 3u32)).finish()?,
    ])
}

/// The store at `location`: a folder, or a URL (`s3://`, `az://`).
fn open(location: &str, options: CacheOptions) -> Result<Cache, StoreError> {
    match location.contains("://") {
        true => Cache::open_url_with(location, options),
        false => Cache::open_with(location, options),
    }
}

/// The Python module of the types of `version`.
fn module(version: &str) -> Result<String, Box<dyn std::error::Error>> {
    let module = match version {
        "v1" => codec::python::Module::new()
            .add::<v1::Chunk>()
            .add::<v1::Doc>()
            .add::<v1::Event>()
            .add::<v1::Embedding>(),
        "v2" => codec::python::Module::new()
            .add::<v2::Chunk>()
            .add::<v2::Doc>()
            .add::<v1::Event>()
            .add::<v1::Embedding>(),
        other => return Err(format!("no types of version {other}").into()),
    };
    Ok(module.render()?)
}
