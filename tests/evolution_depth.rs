//! The verdict on a stored value holds at every depth and whatever the
//! fields are named: a type change inside a nested type, a generic
//! argument or an enum's payload is refused at load time, and fields named
//! like JSON Schema's keywords (`title`, `description`, `default`,
//! `examples`) are fields to the fingerprint, the diff and the check.
//!
//! Each case is one pair of versions of a stored type (modules `v1` and
//! `v2`, one wire name) that earlier versions of codec let through.

use codec::EnvelopeError;

/// Writes `written` in an envelope and reads it back as `R`.
fn read<W: codec::Codec + 'static, R: codec::Codec + 'static>(
    written: &W,
) -> Result<R, EnvelopeError> {
    codec::from_stored::<R>(&codec::to_stored(written).unwrap())
}

/// Checks that `R` cannot read what `W` wrote: the fingerprints differ,
/// the diff has a breaking change at `path`, the envelope and the store
/// refuse the value naming that change in their messages.
fn refused<W, R>(written: &W, path: &str)
where
    W: codec::Codec + 'static,
    R: codec::Codec + std::fmt::Debug + 'static,
{
    assert_ne!(
        codec::fingerprint_of::<W>(),
        codec::fingerprint_of::<R>(),
        "two shapes, one fingerprint"
    );
    let changes = codec::schema::diff(&codec::schema_of::<W>(), &codec::schema_of::<R>());
    assert!(
        changes.iter().any(|c| c.is_breaking() && c.path == path),
        "no breaking change at {path}: {changes:#?}"
    );
    let err = read::<W, R>(written).unwrap_err();
    assert!(matches!(err, EnvelopeError::Incompatible { .. }), "{err}");
    let message = err.to_string();
    assert!(!message.contains('\n'), "one line: {message}");
    assert!(message.contains(&format!("`{path}`")), "{message}");
    let source = std::error::Error::source(&err).expect("the changes are the source");
    assert!(source.to_string().contains(path), "{source}");

    // The store's `get` makes the same check.
    #[cfg(feature = "store")]
    {
        let dir = tempfile::tempdir().unwrap();
        let cache = codec::Cache::open(dir.path()).unwrap();
        cache.put("k", written).unwrap();
        let err = cache.get::<R>("k").unwrap_err();
        assert!(matches!(err, codec::StoreError::Schema { .. }), "{err}");
        assert!(err.to_string().contains(&format!("`{path}`")), "{err}");
        // Each error of the chain printed once: the first breaking change
        // in the message, then the list of every change.
        let whole = format!("{err:?}");
        let said = whole.matches(&format!("breaking change `{path}`")).count();
        assert_eq!(said, 1, "{whole}");
    }
}

mod keyword_named_fields {
    use super::*;

    #[test]
    fn a_field_named_title_changing_type_is_refused() {
        mod v1 {
            #[derive(codec::Codec)]
            #[codec(name = "Art")]
            pub struct Art {
                pub title: String,
                pub n: u32,
            }
        }
        mod v2 {
            #[derive(codec::Codec, Debug)]
            #[codec(name = "Art")]
            pub struct Art {
                pub title: u64,
                pub n: u32,
            }
        }
        let old = v1::Art {
            title: "x".into(),
            n: 1,
        };
        refused::<_, v2::Art>(&old, "Art.title");
        // No change that did not happen: the field was there before.
        let changes = codec::schema::diff(
            &codec::schema_of::<v1::Art>(),
            &codec::schema_of::<v2::Art>(),
        );
        assert_eq!(changes.len(), 1, "{changes:#?}");
    }

    #[test]
    fn fields_named_like_annotations_count_in_a_nested_type() {
        mod v1 {
            #[derive(codec::Codec)]
            #[codec(name = "Meta")]
            pub struct Meta {
                pub description: String,
                pub default: u32,
                pub examples: Vec<String>,
            }
            #[derive(codec::Codec)]
            #[codec(name = "Doc")]
            pub struct Doc {
                pub meta: Meta,
            }
        }
        mod v2 {
            #[derive(codec::Codec, Debug)]
            #[codec(name = "Meta")]
            pub struct Meta {
                pub description: String,
                pub default: String,
                pub examples: Vec<String>,
            }
            #[derive(codec::Codec, Debug)]
            #[codec(name = "Doc")]
            pub struct Doc {
                pub meta: Meta,
            }
        }
        let old = v1::Doc {
            meta: v1::Meta {
                description: "d".into(),
                default: 3,
                examples: vec![],
            },
        };
        refused::<_, v2::Doc>(&old, "Doc.meta.default");
    }

    #[test]
    fn a_field_named_examples_counts_in_an_enum_variant() {
        mod v1 {
            #[derive(codec::Codec)]
            #[codec(name = "Ev")]
            pub enum Ev {
                Shown { examples: Vec<u8> },
            }
        }
        mod v2 {
            #[derive(codec::Codec, Debug)]
            #[codec(name = "Ev")]
            pub enum Ev {
                Shown { examples: String },
            }
        }
        // Bytes are base64 text in JSON, which a `String` would read.
        let old = v1::Ev::Shown {
            examples: vec![1, 2],
        };
        refused::<_, v2::Ev>(&old, "Ev<Shown>.examples");
    }

    #[test]
    fn annotations_still_do_not_count() {
        mod v1 {
            #[derive(codec::Codec)]
            #[codec(name = "Doc")]
            pub struct Doc {
                pub title: String,
            }
        }
        mod v2 {
            /// A documented type.
            #[derive(codec::Codec)]
            #[codec(name = "Doc")]
            pub struct Doc {
                /// The title: a doc comment is the schema's description.
                pub title: String,
            }
        }
        assert_eq!(
            codec::fingerprint_of::<v1::Doc>(),
            codec::fingerprint_of::<v2::Doc>()
        );
    }
}

mod nested_changes {
    use std::collections::BTreeMap;

    use super::*;

    #[test]
    fn a_field_type_changed_inside_a_vec_of_a_nested_type() {
        mod v1 {
            #[derive(codec::Codec)]
            #[codec(name = "Span")]
            pub struct Span {
                pub start: u32,
                pub end: u32,
            }
            #[derive(codec::Codec)]
            #[codec(name = "Doc")]
            pub struct Doc {
                pub spans: Vec<Span>,
            }
        }
        mod v2 {
            #[derive(codec::Codec, Debug)]
            #[codec(name = "Span")]
            pub struct Span {
                pub start: u32,
                pub end: String,
            }
            #[derive(codec::Codec, Debug)]
            #[codec(name = "Doc")]
            pub struct Doc {
                pub spans: Vec<Span>,
            }
        }
        let old = v1::Doc {
            spans: vec![v1::Span { start: 0, end: 5 }],
        };
        refused::<_, v2::Doc>(&old, "Doc.spans[].end");
    }

    #[test]
    fn an_integer_narrowed_inside_a_vec_and_an_option_of_a_nested_type() {
        mod v1 {
            #[derive(codec::Codec)]
            #[codec(name = "Inner")]
            pub struct Inner {
                pub n: u32,
            }
            #[derive(codec::Codec)]
            #[codec(name = "Outer")]
            pub struct Outer {
                pub all: Vec<Inner>,
                pub one: Option<Inner>,
            }
        }
        mod v2 {
            #[derive(codec::Codec, Debug)]
            #[codec(name = "Inner")]
            pub struct Inner {
                pub n: u16,
            }
            #[derive(codec::Codec, Debug)]
            #[codec(name = "Outer")]
            pub struct Outer {
                pub all: Vec<Inner>,
                pub one: Option<Inner>,
            }
        }
        // A value that still fits would read silently as something narrower.
        let old = v1::Outer {
            all: vec![v1::Inner { n: 7 }],
            one: None,
        };
        refused::<_, v2::Outer>(&old, "Outer.all[].n");
        let changes = codec::schema::diff(
            &codec::schema_of::<v1::Outer>(),
            &codec::schema_of::<v2::Outer>(),
        );
        assert!(
            changes
                .iter()
                .any(|c| c.is_breaking() && c.path == "Outer.one.n"),
            "{changes:#?}"
        );
    }

    #[test]
    fn a_leaf_changed_under_a_map_a_vec_an_option_and_a_box() {
        mod v1 {
            use super::BTreeMap;
            #[derive(codec::Codec)]
            #[codec(name = "Leaf")]
            pub struct Leaf {
                pub score: f64,
            }
            #[derive(codec::Codec)]
            #[codec(name = "Mid")]
            pub struct Mid {
                pub leaves: Vec<Option<Box<Leaf>>>,
            }
            #[derive(codec::Codec)]
            #[codec(name = "Top")]
            pub struct Top {
                pub by_name: BTreeMap<String, Mid>,
            }
        }
        mod v2 {
            use super::BTreeMap;
            #[derive(codec::Codec, Debug)]
            #[codec(name = "Leaf")]
            pub struct Leaf {
                pub score: bool,
            }
            #[derive(codec::Codec, Debug)]
            #[codec(name = "Mid")]
            pub struct Mid {
                pub leaves: Vec<Option<Box<Leaf>>>,
            }
            #[derive(codec::Codec, Debug)]
            #[codec(name = "Top")]
            pub struct Top {
                pub by_name: BTreeMap<String, Mid>,
            }
        }
        let old = v1::Top {
            by_name: BTreeMap::new(),
        };
        refused::<_, v2::Top>(&old, "Top.by_name.*.leaves[].score");
    }

    #[test]
    fn a_generic_argument_changed() {
        mod v1 {
            #[derive(codec::Codec)]
            #[codec(name = "Item")]
            pub struct Item {
                pub id: u64,
            }
            #[derive(codec::Codec)]
            #[codec(name = "Page")]
            pub struct Page<T> {
                pub items: Vec<T>,
            }
        }
        mod v2 {
            #[derive(codec::Codec, Debug)]
            #[codec(name = "Item")]
            pub struct Item {
                pub id: String,
            }
            #[derive(codec::Codec, Debug)]
            #[codec(name = "Page")]
            pub struct Page<T> {
                pub items: Vec<T>,
            }
        }
        let old = v1::Page {
            items: vec![v1::Item { id: 1 }],
        };
        refused::<_, v2::Page<v2::Item>>(&old, "Page<Item>.items[].id");
    }

    #[test]
    fn a_type_changed_in_an_enum_variants_payload() {
        mod v1 {
            #[derive(codec::Codec)]
            #[codec(name = "Body")]
            pub struct Body {
                pub size: u32,
            }
            #[derive(codec::Codec)]
            #[codec(name = "Msg")]
            pub enum Msg {
                Post { body: Body },
                Ping,
            }
        }
        mod v2 {
            #[derive(codec::Codec, Debug)]
            #[codec(name = "Body")]
            pub struct Body {
                pub size: String,
            }
            #[derive(codec::Codec, Debug)]
            #[codec(name = "Msg")]
            pub enum Msg {
                Post { body: Body },
                Ping,
            }
        }
        let old = v1::Msg::Post {
            body: v1::Body { size: 3 },
        };
        refused::<_, v2::Msg>(&old, "Msg<Post>.body.size");
    }

    #[test]
    fn a_compatible_change_inside_a_nested_type_still_reads() {
        mod v1 {
            #[derive(codec::Codec)]
            #[codec(name = "Span")]
            pub struct Span {
                pub end: u32,
            }
            #[derive(codec::Codec)]
            #[codec(name = "Doc")]
            pub struct Doc {
                pub spans: Vec<Span>,
            }
        }
        mod v2 {
            #[derive(codec::Codec, Debug, PartialEq)]
            #[codec(name = "Span")]
            pub struct Span {
                pub end: u64,
                #[codec(default)]
                pub label: String,
            }
            #[derive(codec::Codec, Debug, PartialEq)]
            #[codec(name = "Doc")]
            pub struct Doc {
                pub spans: Vec<Span>,
            }
        }
        let back: v2::Doc = read(&v1::Doc {
            spans: vec![v1::Span { end: 9 }],
        })
        .unwrap();
        assert_eq!(back.spans[0].end, 9);
    }

    #[test]
    fn a_float_narrowed_from_64_to_32_bits() {
        mod v1 {
            #[derive(codec::Codec)]
            #[codec(name = "Reading")]
            pub struct Reading {
                pub value: f64,
            }
        }
        mod v2 {
            #[derive(codec::Codec, Debug)]
            #[codec(name = "Reading")]
            pub struct Reading {
                pub value: f32,
            }
        }
        refused::<_, v2::Reading>(&v1::Reading { value: 0.1 }, "Reading.value");
        // The other way widens.
        let back: v1::Reading = read(&v2::Reading { value: 0.5 }).unwrap();
        assert_eq!(back.value, 0.5);
    }
}

/// Values stored by the version of codec before fingerprints followed
/// references and kept fields named like annotations
/// (`tests/fixtures/envelopes-v1`): their fingerprints are not today's,
/// and they read.
mod stored_before {
    use super::*;

    #[derive(codec::Codec, Debug, PartialEq)]
    #[codec(name = "fixture.Span")]
    pub struct Span {
        pub start: u32,
        pub end: f64,
    }

    #[derive(codec::Codec, Debug, PartialEq)]
    #[codec(name = "fixture.Doc")]
    pub struct Doc {
        pub title: String,
        pub spans: Vec<Span>,
        pub score: Option<f32>,
    }

    #[derive(codec::Codec, Debug, PartialEq)]
    #[codec(name = "fixture.Art")]
    pub struct Art {
        pub title: String,
        pub n: u32,
    }

    fn fixture(name: &str) -> Vec<u8> {
        let dir =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/envelopes-v1");
        std::fs::read(dir.join(name)).unwrap()
    }

    fn written_with(bytes: &[u8]) -> codec::Fingerprint {
        codec::envelope_header(bytes).unwrap().fingerprint
    }

    #[test]
    fn a_value_of_a_type_holding_another_reads() {
        let bytes = fixture("spans.bin");
        // Written as `ecad4fa7...`, the fingerprint of the same shape then.
        assert_ne!(written_with(&bytes), codec::fingerprint_of::<Vec<Span>>());
        let back: Vec<Span> = codec::from_stored(&bytes).unwrap();
        assert_eq!(
            back,
            [Span {
                start: 4,
                end: 0.25
            }]
        );
    }

    #[test]
    fn an_earlier_exact_fingerprint_reads_without_comparing_schemas() {
        // The writer's schema is not even read: the fingerprint that
        // version gave this very shape is enough.
        let bytes = fixture("spans.bin");
        let header = codec::envelope_header(&bytes).unwrap();
        let mut w = codec::MsgpackWriter::new(bytes[..5].to_vec());
        w.write_str(header.type_name).unwrap();
        w.write_bin(&header.fingerprint.0).unwrap();
        w.write_bin(b"{\"type\":\"null\"}").unwrap();
        w.write_raw(&bytes[header.payload_offset..]);
        let back: Vec<Span> = codec::from_stored(&w.into_inner()).unwrap();
        assert_eq!(
            back,
            [Span {
                start: 4,
                end: 0.25
            }]
        );
    }

    #[test]
    fn a_value_of_a_type_with_a_field_named_title_reads() {
        let bytes = fixture("doc.bin");
        assert_ne!(written_with(&bytes), codec::fingerprint_of::<Doc>());
        let back: Doc = codec::from_stored(&bytes).unwrap();
        assert_eq!(
            back,
            Doc {
                title: "t".into(),
                spans: vec![Span { start: 1, end: 2.5 }],
                score: Some(0.5),
            }
        );
        let bytes = fixture("art.bin");
        assert_eq!(
            codec::from_stored::<Art>(&bytes).unwrap(),
            Art {
                title: "x".into(),
                n: 3
            }
        );
    }

    #[test]
    fn an_earlier_fingerprint_with_the_writers_whole_schema_is_compared_exactly() {
        // The store keeps a writer's whole schema: with it, the field
        // named `title` is there to compare, whatever the fingerprint.
        mod now {
            #[derive(codec::Codec, Debug)]
            #[codec(name = "fixture.Art")]
            pub struct Art {
                pub title: u64,
                pub n: u32,
            }
        }
        let written = codec::envelope_header(&fixture("art.bin"))
            .unwrap()
            .fingerprint;
        let whole = codec::schema_of::<Art>();
        let reader = codec::__store::schema::info::<now::Art>();
        let checked = codec::__store::schema::check_readable(
            "fixture.Art",
            written,
            reader,
            || Ok::<_, EnvelopeError>(whole.clone()),
            |e| e,
        );
        assert!(
            matches!(checked, Err(EnvelopeError::Incompatible { .. })),
            "{checked:?}"
        );
        let same = codec::__store::schema::info::<Art>();
        let checked = codec::__store::schema::check_readable(
            "fixture.Art",
            written,
            same,
            || Ok(whole),
            |e| e,
        );
        assert!(checked.is_ok(), "{checked:?}");
    }

    #[test]
    fn an_old_value_whose_schema_lost_a_field_to_its_name_is_decoded_not_trusted() {
        // The envelope of `Art { title: String }` kept a schema without
        // `title`, as it would have for `title: u64`: which it was cannot
        // be told, so the value is decoded, and a wrong one fails there.
        mod now {
            #[derive(codec::Codec, Debug)]
            #[codec(name = "fixture.Art")]
            pub struct Art {
                pub title: u64,
                pub n: u32,
            }
        }
        let err = codec::from_stored::<now::Art>(&fixture("art.bin")).unwrap_err();
        assert!(matches!(err, EnvelopeError::Decode(_)), "{err}");
    }
}

#[test]
fn a_u128_schema_has_no_negative_maximum_and_reads_what_the_old_one_wrote() {
    let schema = codec::schema_of::<u128>();
    assert_eq!(schema["minimum"], 0);
    assert!(schema.get("maximum").is_none(), "{schema}");
    // Earlier versions wrote `u128::MAX` cast to `i128`: -1.
    let old = serde_json::json!({"type": "integer", "minimum": 0, "maximum": -1});
    let changes = codec::schema::diff(&old, &schema);
    assert!(!changes.iter().any(|c| c.is_breaking()), "{changes:?}");
    assert_ne!(
        codec::Fingerprint::of_schema(&old),
        codec::fingerprint_of::<u128>()
    );
}

mod stored_schema {
    use super::*;

    #[test]
    fn an_envelope_keeps_fields_named_like_annotations_and_drops_doc_comments() {
        mod v1 {
            /// A document: this doc comment is not stored with each value.
            #[derive(codec::Codec)]
            #[codec(name = "Doc")]
            pub struct Doc {
                /// What the document is about (also not stored).
                pub description: String,
                pub title: String,
                pub items: Vec<u32>,
            }
        }
        mod v2 {
            #[derive(codec::Codec, Debug, PartialEq)]
            #[codec(name = "Doc")]
            pub struct Doc {
                pub description: String,
                pub title: String,
                pub items: Vec<u64>,
                #[codec(default)]
                pub lang: String,
            }
        }
        let bytes = codec::to_stored(&v1::Doc {
            description: "d".into(),
            title: "t".into(),
            items: vec![1],
        })
        .unwrap();
        let header = codec::envelope_header(&bytes).unwrap();
        assert!(!header.schema.contains("not stored"), "{}", header.schema);
        // Another fingerprint: the stored schema is compared, and it still
        // has the fields named `description` and `title`.
        assert_ne!(header.fingerprint, codec::fingerprint_of::<v2::Doc>());
        let back: v2::Doc = codec::from_stored(&bytes).unwrap();
        assert_eq!(back.description, "d");
        assert_eq!(back.items, [1]);
    }

    #[test]
    fn a_field_of_a_nested_type_renamed_with_an_alias_reads() {
        mod v1 {
            #[derive(codec::Codec)]
            #[codec(name = "Span")]
            pub struct Span {
                pub end: u32,
            }
            #[derive(codec::Codec)]
            #[codec(name = "Doc")]
            pub struct Doc {
                pub span: Span,
            }
        }
        mod v2 {
            #[derive(codec::Codec, Debug, PartialEq)]
            #[codec(name = "Span")]
            pub struct Span {
                pub end: u32,
            }
            #[derive(codec::Codec, Debug, PartialEq)]
            #[codec(name = "Doc")]
            pub struct Doc {
                #[codec(alias = "span")]
                pub range: Span,
            }
        }
        let changes = codec::schema::diff(
            &codec::schema_of::<v1::Doc>(),
            &codec::schema_of::<v2::Doc>(),
        );
        assert!(!changes.iter().any(|c| c.is_breaking()), "{changes:#?}");
        let back: v2::Doc = read(&v1::Doc {
            span: v1::Span { end: 4 },
        })
        .unwrap();
        assert_eq!(back.range, v2::Span { end: 4 });
    }
}

#[test]
fn a_default_changed_under_omit_defaults_is_refused() {
    mod v1 {
        #[derive(codec::Codec)]
        #[codec(name = "Opts", omit_defaults)]
        pub struct Opts {
            pub name: String,
            #[codec(default)]
            pub retries: u32,
        }
    }
    mod v2 {
        #[derive(codec::Codec, Debug)]
        #[codec(name = "Opts", omit_defaults)]
        pub struct Opts {
            pub name: String,
            #[codec(default = "five")]
            pub retries: u32,
        }
        fn five() -> u32 {
            5
        }
    }
    // `retries: 0` was left out: read with the new default it would be 5.
    let old = v1::Opts {
        name: "a".into(),
        retries: 0,
    };
    refused::<_, v2::Opts>(&old, "Opts.retries");
}

#[test]
fn a_float_written_before_floats_had_a_width_reads_as_either() {
    let old = serde_json::json!({"type": "number"});
    for new in [codec::schema_of::<f32>(), codec::schema_of::<f64>()] {
        let changes = codec::schema::diff(&old, &new);
        assert!(!changes.iter().any(|c| c.is_breaking()), "{changes:?}");
    }
    let changes = codec::schema::diff(&codec::schema_of::<f64>(), &codec::schema_of::<f32>());
    assert!(changes.iter().any(|c| c.is_breaking()), "{changes:?}");
}

#[test]
fn a_stored_schema_of_definitions_nested_thousands_deep_is_refused_not_a_crash() {
    #[derive(codec::Codec, Debug)]
    #[codec(name = "Deep")]
    struct Deep {
        next: Option<u32>,
    }
    // `D0 -> D1 -> ... -> D19999`, each a field holding the next.
    let n = 20_000;
    let mut defs = serde_json::Map::new();
    for i in 0..n {
        let next = match i + 1 < n {
            true => serde_json::json!({"$ref": format!("#/$defs/D{}", i + 1)}),
            false => serde_json::json!({"type": "integer"}),
        };
        defs.insert(
            format!("D{i}"),
            serde_json::json!({"type": "object", "properties": {"next": next}}),
        );
    }
    let schema = serde_json::json!({
        "title": "Deep", "type": "object",
        "properties": {"next": {"$ref": "#/$defs/D0"}},
        "$defs": defs,
    });
    let bytes = codec::to_stored(&Deep { next: None }).unwrap();
    let header = codec::envelope_header(&bytes).unwrap();
    let mut w = codec::MsgpackWriter::new(bytes[..5].to_vec());
    w.write_str(header.type_name).unwrap();
    w.write_bin(&[7; 16]).unwrap();
    w.write_bin(schema.to_string().as_bytes()).unwrap();
    w.write_raw(&bytes[header.payload_offset..]);
    let err = codec::from_stored::<Deep>(&w.into_inner()).unwrap_err();
    assert!(matches!(err, EnvelopeError::Incompatible { .. }), "{err}");
}
