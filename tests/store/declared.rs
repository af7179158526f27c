//! Values of a type declared by its name and schema alone
//! (`codec::store::DeclaredType`), as another language's program stores
//! them: read by Rust types of that schema and the other way round, with
//! the same readability check, on every backend.

use codec::store::DeclaredType;
use codec::{Cache, Codec, PutOptions, StoreError};

use crate::fixtures::backends::each_backend;

mod v1 {
    /// Fields named as the schema's own keywords, a nested type and a
    /// recursive one.
    #[derive(codec::Codec, Debug, PartialEq, Clone)]
    #[codec(name = "test.Doc")]
    pub struct Doc {
        pub title: String,
        pub description: Option<String>,
        pub default: Vec<Part>,
        pub tree: Tree,
    }

    #[derive(codec::Codec, Debug, PartialEq, Clone)]
    #[codec(name = "test.Part")]
    pub struct Part {
        pub examples: u32,
    }

    #[derive(codec::Codec, Debug, PartialEq, Clone)]
    #[codec(name = "test.Tree")]
    pub enum Tree {
        Leaf { r#ref: String },
        Node { children: Vec<Tree> },
    }
}

mod v2 {
    pub use super::v1::Tree;

    /// `v1::Doc` with a field added, compatibly.
    #[derive(codec::Codec, Debug, PartialEq)]
    #[codec(name = "test.Doc")]
    pub struct Doc {
        pub title: String,
        pub description: Option<String>,
        pub default: Vec<super::v1::Part>,
        pub tree: Tree,
        #[codec(default)]
        pub added: u8,
    }
}

mod v3 {
    /// `v1::Doc` whose nested type changed a field's type: breaking.
    #[derive(codec::Codec, Debug, PartialEq)]
    #[codec(name = "test.Doc")]
    pub struct Doc {
        pub title: String,
        pub description: Option<String>,
        pub default: Vec<Part>,
        pub tree: super::v1::Tree,
    }

    #[derive(codec::Codec, Debug, PartialEq)]
    #[codec(name = "test.Part")]
    pub struct Part {
        pub examples: String,
    }
}

fn doc() -> v1::Doc {
    v1::Doc {
        title: "t".into(),
        description: None,
        default: vec![v1::Part { examples: 7 }],
        tree: v1::Tree::Node {
            children: vec![v1::Tree::Leaf {
                r#ref: "$ref".into(),
            }],
        },
    }
}

/// The type as another language declares it: the name and the schema
/// the Rust type gives, as text.
fn declared<T: Codec + 'static>() -> DeclaredType {
    let schema = codec::schema_of::<T>().to_string();
    DeclaredType::new(&codec::schema::wire_name::<T>(), &[], &schema).unwrap()
}

#[test]
fn a_declared_type_has_the_fingerprint_of_the_rust_type_of_its_schema() {
    let declared = declared::<v1::Doc>();
    assert_eq!(declared.name(), "test.Doc");
    assert_eq!(
        declared.fingerprint(),
        codec::fingerprint_of::<v1::Doc>().to_string()
    );
}

#[test]
fn values_of_a_declared_type_and_of_its_rust_type_read_as_each_other() {
    each_backend(|store| {
        let cache = store.open();
        let declared = declared::<v1::Doc>();
        let bytes = codec::to_msgpack(&doc()).unwrap();
        cache
            .put_declared("declared", &declared, &bytes, &PutOptions::default())
            .unwrap();
        cache.put("rust", &doc()).unwrap();
        let reader = store.open();
        assert_eq!(reader.get::<v1::Doc>("declared").unwrap(), Some(doc()));
        for key in ["declared", "rust"] {
            let got = reader.get_declared(key, &declared).unwrap().unwrap();
            assert_eq!(got.mode, codec::store::Mode::MsgPack);
            assert_eq!(got.bytes, bytes, "{key} on {}", store.name);
        }
        assert_eq!(reader.get_declared("none", &declared).unwrap(), None);
        // Untyped: any entry, whatever wrote it.
        let any = reader
            .get_declared("declared", &DeclaredType::any())
            .unwrap();
        assert_eq!(any.map(|a| a.bytes), Some(bytes.clone()));
        // In JSON mode, read back as MessagePack.
        let json = PutOptions::default().mode(codec::store::Mode::Json);
        cache
            .put_declared("json", &declared, &bytes, &json)
            .unwrap();
        assert_eq!(reader.get::<v1::Doc>("json").unwrap(), Some(doc()));
        // In JSON mode: the JSON text, for the reader to decode with its type.
        let got = reader.get_declared("json", &declared).unwrap().unwrap();
        assert_eq!(got.mode, codec::store::Mode::Json);
        assert_eq!(got.bytes, codec::to_json(&doc()).unwrap().into_bytes());
    });
}

#[test]
fn a_declared_type_reads_what_its_rust_type_would_read() {
    each_backend(|store| {
        let cache = store.open();
        cache.put("doc", &doc()).unwrap();
        // A compatible change: read, the bytes as they were written.
        let newer = declared::<v2::Doc>();
        let got = cache.get_declared("doc", &newer).unwrap().unwrap();
        assert_eq!(got.bytes, codec::to_msgpack(&doc()).unwrap());
        assert_eq!(cache.get::<v2::Doc>("doc").unwrap().unwrap().added, 0);
        // A type changed inside a nested type, in a field named as a
        // keyword of the schema: refused, as Rust refuses it.
        let breaking = declared::<v3::Doc>();
        let declared_err = cache.get_declared("doc", &breaking).unwrap_err();
        let rust_err = cache.get::<v3::Doc>("doc").unwrap_err();
        assert!(
            matches!(declared_err, StoreError::Schema { .. }),
            "{declared_err:?}"
        );
        assert_eq!(declared_err.to_string(), rust_err.to_string());
        assert_eq!(format!("{declared_err:?}"), format!("{rust_err:?}"));
        assert!(
            format!("{declared_err:?}")
                .contains("test.Doc.default[].examples: integer -> string (breaking)"),
            "{declared_err:?}"
        );
        // Another type altogether.
        let other = declared::<v1::Part>();
        let err = cache.get_declared("doc", &other).unwrap_err();
        assert!(
            format!("{err:?}").contains("is a `test.Doc`, not a `test.Part`"),
            "{err:?}"
        );
        // Values a declared type wrote, read by a Rust type of a newer schema.
        let older = declared::<v1::Doc>();
        let bytes = codec::to_msgpack(&doc()).unwrap();
        cache
            .put_declared("d", &older, &bytes, &PutOptions::default())
            .unwrap();
        assert_eq!(cache.get::<v2::Doc>("d").unwrap().unwrap().title, "t");
        assert!(matches!(
            cache.get::<v3::Doc>("d").unwrap_err(),
            StoreError::Schema { .. }
        ));
    });
}

#[test]
fn bad_input_to_a_declared_type_is_a_typed_error() {
    let err = DeclaredType::new("x", &[], "not json").unwrap_err();
    assert!(err.to_string().contains("declared type `x`"), "{err}");
    let err = DeclaredType::new("x", &[], "[1]").unwrap_err();
    assert!(
        err.to_string().contains("a JSON object is expected"),
        "{err}"
    );
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    let declared = declared::<v1::Part>();
    let options = PutOptions::default();
    for bytes in [&b""[..], &[0x92, 0x01][..], &[0x01, 0x02][..]] {
        let err = cache
            .put_declared("k", &declared, bytes, &options)
            .unwrap_err();
        assert!(
            format!("{err:?}").contains("not one MessagePack value"),
            "{bytes:?}: {err:?}"
        );
    }
    let err = cache
        .put_declared("", &declared, &[0x01], &options)
        .unwrap_err();
    assert!(matches!(err, StoreError::InvalidKey { .. }), "{err:?}");
    assert!(!cache.contains("k").unwrap());
}

#[test]
fn a_declared_memo_and_a_rust_memo_of_one_key_compute_it_once() {
    each_backend(|store| {
        let cache = store.open();
        let declared = declared::<v1::Part>();
        let bytes = codec::to_msgpack(&v1::Part { examples: 3 }).unwrap();
        let options = PutOptions::default();
        // A failed computation stores nothing.
        let failed = cache.get_or_try_insert_declared("m", &declared, &options, || {
            Err::<Vec<u8>, _>(StoreError::Custom {
                message: "no".into(),
            })
        });
        assert!(failed.is_err());
        assert!(!cache.contains("m").unwrap());
        let got = cache
            .get_or_try_insert_declared("m", &declared, &options, || {
                Ok::<_, StoreError>(bytes.clone())
            })
            .unwrap();
        assert_eq!(got.bytes, bytes);
        // Rust's memo of the same key hits what the declared one stored.
        let part: v1::Part = cache
            .get_or_try_insert_with("m", || -> Result<v1::Part, StoreError> {
                panic!("computed again on {}", store.name)
            })
            .unwrap();
        assert_eq!(part, v1::Part { examples: 3 });
        // And the other way round.
        cache.put("r", &v1::Part { examples: 4 }).unwrap();
        let got = cache
            .get_or_try_insert_declared(
                "r",
                &declared,
                &options,
                || -> Result<Vec<u8>, StoreError> { panic!("computed again on {}", store.name) },
            )
            .unwrap();
        assert_eq!(
            got.bytes,
            codec::to_msgpack(&v1::Part { examples: 4 }).unwrap()
        );
    });
}

#[test]
fn a_declared_type_reads_entries_the_store_kept_apart_or_in_json() {
    #[derive(codec::Codec, Debug, PartialEq)]
    #[codec(name = "test.Blob")]
    struct Blob {
        title: String,
        // Past `apart_min`: kept apart from the entry, memory-mapped.
        data: Vec<u8>,
    }
    each_backend(|store| {
        let cache = store.open();
        let blob = Blob {
            title: "t".into(),
            data: (0..200_000u32).map(|i| (i % 253) as u8).collect(),
        };
        cache.put("apart", &blob).unwrap();
        let json = PutOptions::default().mode(codec::store::Mode::Json);
        let small = Blob {
            title: "j".into(),
            data: vec![1, 2, 3],
        };
        cache.put_with("json", &small, &json).unwrap();
        let declared = declared::<Blob>();
        let got = cache.get_declared("apart", &declared).unwrap().unwrap();
        assert_eq!(
            got.bytes,
            codec::to_msgpack(&blob).unwrap(),
            "on {}",
            store.name
        );
        // JSON keeps the bytes as base64 text: given as JSON, which the
        // reader decodes with its type.
        let got = cache.get_declared("json", &declared).unwrap().unwrap();
        assert_eq!(got.mode, codec::store::Mode::Json);
        let text = std::str::from_utf8(&got.bytes).unwrap();
        assert_eq!(
            codec::from_json::<Blob>(text).unwrap(),
            small,
            "on {}",
            store.name
        );
    });
}
