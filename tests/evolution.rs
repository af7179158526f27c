//! A value written by version 1 of a type (module `v1`) and read by version 2
//! (module `v2`, same wire name): compatible changes decode, breaking ones are
//! refused with every change by path and the fix.

use codec::EnvelopeError;

fn read<W: codec::Codec + 'static, R: codec::Codec + 'static>(
    written: &W,
) -> Result<R, EnvelopeError> {
    let bytes = codec::to_stored(written).unwrap();
    codec::from_stored::<R>(&bytes)
}

fn refusal<W: codec::Codec + 'static, R: codec::Codec + 'static + std::fmt::Debug>(
    written: &W,
) -> String {
    match read::<W, R>(written) {
        Err(e @ EnvelopeError::Incompatible { writer, reader, .. }) => {
            // Fingerprints change with the schema's text: keep them out of
            // snapshots. The message names the first change on one line;
            // its source lists them all.
            let line = e
                .to_string()
                .replace(&writer.to_string(), "<writer>")
                .replace(&reader.to_string(), "<reader>");
            assert!(!line.contains('\n'), "{line}");
            let changes = std::error::Error::source(&e).expect("the changes");
            format!("{line}\nchanges:\n{changes}")
        }
        other => panic!("expected an incompatibility, got {other:?}"),
    }
}

mod compatible {
    use super::*;
    use codec::Codec;

    #[test]
    fn generic_names_are_built_from_the_arguments_wire_names() {
        #[derive(codec::Codec, Debug, PartialEq)]
        pub struct Wrapper<T> {
            pub inner: T,
        }
        #[derive(codec::Codec)]
        #[codec(name = "corpus.Pair")]
        pub struct Pair<A, B>(A, B);
        use codec::schema::wire_name;
        assert_eq!(wire_name::<Wrapper<u32>>(), "Wrapper<u32>");
        assert_eq!(wire_name::<Wrapper<Vec<String>>>(), "Wrapper<Vec<string>>");
        assert_eq!(
            wire_name::<Wrapper<Option<Vec<u8>>>>(),
            "Wrapper<Option<bytes>>"
        );
        assert_eq!(
            wire_name::<Pair<Wrapper<f64>, std::collections::BTreeMap<String, bool>>>(),
            "corpus.Pair<Wrapper<float>, Map<string, bool>>"
        );
        assert_eq!(wire_name::<Vec<Wrapper<i8>>>(), "Vec<Wrapper<i8>>");

        // A widened argument decodes as a widened field does.
        let v: Wrapper<u64> = read(&Wrapper { inner: 7u32 }).unwrap();
        assert_eq!(v, Wrapper { inner: 7 });
        // A narrowed one is refused by the schema, not by the name.
        let refused = read::<Wrapper<u64>, Wrapper<u8>>(&Wrapper { inner: 7 }).unwrap_err();
        assert!(
            matches!(refused, EnvelopeError::Incompatible { .. }),
            "{refused}"
        );
        // Another declared name is another type.
        #[derive(codec::Codec, Debug)]
        pub struct Other<T> {
            pub inner: T,
        }
        let wrong = read::<Wrapper<u32>, Other<u64>>(&Wrapper { inner: 7 }).unwrap_err();
        assert!(matches!(wrong, EnvelopeError::WrongType { .. }), "{wrong}");
    }

    #[test]
    fn option_field_added_without_a_default() {
        mod v1 {
            #[derive(codec::Codec)]
            #[codec(name = "Note")]
            pub struct Note {
                pub text: String,
            }
        }
        mod v2 {
            #[derive(codec::Codec, Debug, PartialEq)]
            #[codec(name = "Note")]
            pub struct Note {
                pub text: String,
                pub author: Option<String>,
            }
        }
        let v: v2::Note = read(&v1::Note { text: "t".into() }).unwrap();
        assert_eq!(
            v,
            v2::Note {
                text: "t".into(),
                author: None
            }
        );
        let old = codec::schema_of::<v1::Note>();
        let new = codec::schema_of::<v2::Note>();
        let changes = codec::schema::diff(&old, &new);
        assert!(changes.iter().all(|c| !c.is_breaking()), "{changes:?}");
    }

    #[test]
    fn field_added_with_a_default() {
        mod v1 {
            #[derive(codec::Codec)]
            #[codec(name = "Settings")]
            pub struct Settings {
                pub port: u16,
            }
        }
        mod v2 {
            #[derive(codec::Codec, Debug, PartialEq)]
            #[codec(name = "Settings")]
            pub struct Settings {
                pub port: u16,
                #[codec(default)]
                pub verbose: bool,
            }
        }
        let v: v2::Settings = read(&v1::Settings { port: 80 }).unwrap();
        assert_eq!(
            v,
            v2::Settings {
                port: 80,
                verbose: false
            }
        );
    }

    #[test]
    fn field_removed() {
        mod v1 {
            #[derive(codec::Codec)]
            #[codec(name = "Settings")]
            pub struct Settings {
                pub port: u16,
                pub legacy: String,
            }
        }
        mod v2 {
            #[derive(codec::Codec, Debug, PartialEq)]
            #[codec(name = "Settings")]
            pub struct Settings {
                pub port: u16,
            }
        }
        let v: v2::Settings = read(&v1::Settings {
            port: 80,
            legacy: "x".into(),
        })
        .unwrap();
        assert_eq!(v, v2::Settings { port: 80 });
    }

    #[test]
    fn int_to_float_and_t_to_option() {
        mod v1 {
            #[derive(codec::Codec)]
            #[codec(name = "Reading")]
            pub struct Reading {
                pub value: i64,
                pub unit: String,
            }
        }
        mod v2 {
            #[derive(codec::Codec, Debug, PartialEq)]
            #[codec(name = "Reading")]
            pub struct Reading {
                pub value: f64,
                pub unit: Option<String>,
            }
        }
        let v: v2::Reading = read(&v1::Reading {
            value: 3,
            unit: "m".into(),
        })
        .unwrap();
        assert_eq!(
            v,
            v2::Reading {
                value: 3.0,
                unit: Some("m".into())
            }
        );
    }

    #[test]
    fn reader_gained_a_variant() {
        mod v1 {
            #[derive(codec::Codec)]
            #[codec(name = "Event")]
            pub enum Event {
                Click { x: i64 },
            }
        }
        mod v2 {
            #[derive(codec::Codec, Debug, PartialEq)]
            #[codec(name = "Event")]
            pub enum Event {
                Click { x: i64 },
                Key { code: String },
            }
        }
        let v: v2::Event = read(&v1::Event::Click { x: 1 }).unwrap();
        assert_eq!(v, v2::Event::Click { x: 1 });
    }

    #[test]
    fn field_and_variant_renamed_with_an_alias() {
        mod v1 {
            #[derive(codec::Codec)]
            #[codec(name = "Event")]
            pub enum Event {
                Press { key: String },
            }
        }
        mod v2 {
            #[derive(codec::Codec, Debug, PartialEq)]
            #[codec(name = "Event")]
            pub enum Event {
                #[codec(alias = "Press")]
                Key {
                    #[codec(alias = "key")]
                    code: String,
                },
            }
        }
        let v: v2::Event = read(&v1::Event::Press { key: "a".into() }).unwrap();
        assert_eq!(v, v2::Event::Key { code: "a".into() });
    }

    #[test]
    fn type_renamed_with_an_alias_of_its_wire_name() {
        mod v1 {
            #[derive(codec::Codec)]
            #[codec(name = "Settings")]
            pub struct Settings {
                pub port: u16,
            }
        }
        mod v2 {
            #[derive(codec::Codec, Debug, PartialEq)]
            #[codec(name = "Config", alias = "Settings")]
            pub struct Config {
                pub port: u16,
            }
        }
        let v: v2::Config = read(&v1::Settings { port: 1 }).unwrap();
        assert_eq!(v, v2::Config { port: 1 });
    }

    #[test]
    fn same_schema_decodes_and_fingerprints_match() {
        #[derive(Codec, Debug, PartialEq)]
        struct Same {
            a: u8,
        }
        let v: Same = read(&Same { a: 1 }).unwrap();
        assert_eq!(v, Same { a: 1 });
    }
}

mod breaking {
    use super::*;

    #[test]
    fn nested_field_type_changed() {
        mod v1 {
            #[derive(codec::Codec)]
            #[codec(name = "Config")]
            pub struct Config {
                pub value: i64,
            }
            #[derive(codec::Codec)]
            #[codec(name = "Settings")]
            pub struct Settings {
                pub config: Config,
            }
        }
        mod v2 {
            #[derive(codec::Codec, Debug)]
            #[codec(name = "Config")]
            pub struct Config {
                pub value: String,
            }
            #[derive(codec::Codec, Debug)]
            #[codec(name = "Settings")]
            pub struct Settings {
                pub config: Config,
            }
        }
        let text = refusal::<_, v2::Settings>(&v1::Settings {
            config: v1::Config { value: 1 },
        });
        assert!(
            text.contains("Settings.config.value: integer -> string (breaking)"),
            "{text}"
        );
        insta::assert_snapshot!("nested_field_type_changed", text);
    }

    #[test]
    fn field_added_without_a_default() {
        mod v1 {
            #[derive(codec::Codec)]
            #[codec(name = "Settings")]
            pub struct Settings {
                pub port: u16,
            }
        }
        mod v2 {
            #[derive(codec::Codec, Debug)]
            #[codec(name = "Settings")]
            pub struct Settings {
                pub port: u16,
                pub d: u16,
            }
        }
        let text = refusal::<_, v2::Settings>(&v1::Settings { port: 1 });
        assert!(text.contains("field `d` added without a default"), "{text}");
        insta::assert_snapshot!("field_added_without_a_default", text);
    }

    #[test]
    fn field_renamed_without_an_alias() {
        mod v1 {
            #[derive(codec::Codec)]
            #[codec(name = "Settings")]
            pub struct Settings {
                pub port: u16,
            }
        }
        mod v2 {
            #[derive(codec::Codec, Debug)]
            #[codec(name = "Settings")]
            pub struct Settings {
                pub listen_port: u16,
            }
        }
        let text = refusal::<_, v2::Settings>(&v1::Settings { port: 1 });
        insta::assert_snapshot!("field_renamed_without_an_alias", text);
    }

    #[test]
    fn variant_removed_option_dropped_and_range_narrowed() {
        mod v1 {
            #[derive(codec::Codec)]
            #[codec(name = "Job")]
            pub enum State {
                Queued,
                Running,
            }
            #[derive(codec::Codec)]
            #[codec(name = "Task")]
            pub struct Task {
                pub state: State,
                pub owner: Option<String>,
                pub retries: u32,
            }
        }
        mod v2 {
            #[derive(codec::Codec, Debug)]
            #[codec(name = "Job")]
            pub enum State {
                Queued,
            }
            #[derive(codec::Codec, Debug)]
            #[codec(name = "Task")]
            pub struct Task {
                pub state: State,
                pub owner: String,
                pub retries: u8,
            }
        }
        let text = refusal::<_, v2::Task>(&v1::Task {
            state: v1::State::Queued,
            owner: None,
            retries: 1,
        });
        insta::assert_snapshot!("variant_removed_option_dropped_and_range_narrowed", text);
    }

    #[test]
    fn field_removed_from_a_type_that_denies_unknown_fields() {
        mod v1 {
            #[derive(codec::Codec)]
            #[codec(name = "Strict")]
            pub struct Strict {
                pub a: u8,
                pub b: u8,
            }
        }
        mod v2 {
            #[derive(codec::Codec, Debug)]
            #[codec(name = "Strict", deny_unknown_fields)]
            pub struct Strict {
                pub a: u8,
            }
        }
        let text = refusal::<_, v2::Strict>(&v1::Strict { a: 1, b: 2 });
        assert!(
            text.contains("field `b` removed, and the type denies unknown fields"),
            "{text}"
        );
    }

    #[test]
    fn float_to_int() {
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
                pub value: i64,
            }
        }
        let text = refusal::<_, v2::Reading>(&v1::Reading { value: 1.5 });
        assert!(
            text.contains("Reading.value: number (64-bit float) -> integer (breaking)"),
            "{text}"
        );
    }

    #[test]
    fn another_type_is_refused_by_name() {
        #[derive(codec::Codec)]
        struct A {
            x: u8,
        }
        #[derive(codec::Codec, Debug)]
        struct B {
            y: u8,
        }
        let err = read::<A, B>(&A { x: 1 }).unwrap_err();
        assert!(
            matches!(err, EnvelopeError::WrongType { ref found, .. } if found == "A"),
            "{err}"
        );
    }

    #[test]
    fn standard_types_widen_as_fields_do() {
        assert_eq!(read::<u32, u64>(&7).unwrap(), 7);
        assert_eq!(read::<u32, Option<u32>>(&7).unwrap(), Some(7));
        assert_eq!(read::<u32, Option<u64>>(&7).unwrap(), Some(7));
        assert_eq!(read::<f32, f64>(&1.5).unwrap(), 1.5);
        assert_eq!(read::<u8, f64>(&3).unwrap(), 3.0);
        assert_eq!(read::<Vec<u16>, Vec<i64>>(&vec![1, 2]).unwrap(), [1, 2]);
        assert_eq!(
            read::<(u32, String), (u64, String)>(&(1, "a".into())).unwrap(),
            (1, "a".to_string())
        );
    }

    #[test]
    fn standard_types_that_narrow_are_refused_without_advice_to_rename() {
        fn refused<W: codec::Codec + 'static, R: codec::Codec + std::fmt::Debug + 'static>(
            value: &W,
        ) -> String {
            let err = read::<W, R>(value).unwrap_err();
            assert!(
                matches!(
                    err,
                    EnvelopeError::WrongType {
                        renamable: false,
                        ..
                    }
                ),
                "{err}"
            );
            let message = err.to_string();
            assert!(!message.contains("alias"), "{message}");
            message
        }
        assert_eq!(
            refused::<u32, u8>(&7),
            "stored value is a `u32`, not a `u8`; read it as `u32`"
        );
        refused::<Option<u32>, u32>(&Some(7));
        refused::<String, u64>(&"7".into());
        #[derive(codec::Codec, Debug)]
        struct Derived {
            x: u8,
        }
        // A derived type read as a standard one that cannot hold it.
        refused::<Derived, u8>(&Derived { x: 1 });
        // A standard type read as a derived one: the derived type may have
        // been renamed, so the advice stays.
        let err = read::<u8, Derived>(&1).unwrap_err();
        assert!(
            matches!(
                err,
                EnvelopeError::WrongType {
                    renamable: true,
                    ..
                }
            ),
            "{err}"
        );
    }
}

mod envelopes {
    use super::*;

    #[derive(codec::Codec, Debug, PartialEq)]
    struct Value {
        text: String,
    }

    fn stored() -> Vec<u8> {
        codec::to_stored(&Value {
            text: "hello".into(),
        })
        .unwrap()
    }

    #[test]
    fn wrong_magic_version_and_truncated_header_are_typed_errors() {
        let mut bytes = stored();
        bytes[1] = b'X';
        assert!(
            matches!(codec::from_stored::<Value>(&bytes), Err(EnvelopeError::Malformed { ref message }) if message.contains("magic"))
        );
        let mut bytes = stored();
        bytes[4] = 9;
        assert!(
            matches!(codec::from_stored::<Value>(&bytes), Err(EnvelopeError::Malformed { ref message }) if message.contains("format 9"))
        );
        assert!(matches!(
            codec::from_stored::<Value>(&[0xc1, b'C']),
            Err(EnvelopeError::Malformed { .. })
        ));
        assert!(matches!(
            codec::from_stored::<Value>(&bytes[..12]),
            Err(EnvelopeError::Malformed { .. })
        ));
    }

    #[test]
    fn every_truncation_is_an_error_never_a_panic() {
        let bytes = stored();
        for len in 0..bytes.len() {
            assert!(
                codec::from_stored::<Value>(&bytes[..len]).is_err(),
                "truncated to {len}"
            );
        }
        assert_eq!(
            codec::from_stored::<Value>(&bytes).unwrap(),
            Value {
                text: "hello".into()
            }
        );
    }

    #[test]
    fn tampered_schema_is_an_error() {
        let mut bytes = stored();
        // Corrupt the fingerprint and the schema text: the reader must not trust either.
        let header = codec::envelope_header(&bytes).unwrap();
        let schema_at = header.payload_offset - header.schema.len();
        bytes[schema_at] = b'[';
        bytes[12] ^= 0xff;
        let err = codec::from_stored::<Value>(&bytes).unwrap_err();
        assert!(
            matches!(
                err,
                EnvelopeError::Malformed { .. } | EnvelopeError::Incompatible { .. }
            ),
            "{err}"
        );
    }

    /// The envelope `bytes` with `name` as the type's name in its header.
    fn named(bytes: &[u8], name: &str) -> Vec<u8> {
        let header = codec::envelope_header(bytes).unwrap();
        let mut w = codec::MsgpackWriter::new(bytes[..5].to_vec());
        w.write_str(name).unwrap();
        w.write_bin(&header.fingerprint.0).unwrap();
        w.write_bin(header.schema.as_bytes()).unwrap();
        w.write_raw(&bytes[header.payload_offset..]);
        w.into_inner()
    }

    /// `value` stored as earlier versions of codec named its type:
    /// `std::any::type_name` (`alloc::vec::Vec<u32>`).
    fn stored_by_an_earlier_version<T: codec::Codec + 'static>(value: &T) -> Vec<u8> {
        named(
            &codec::to_stored(value).unwrap(),
            std::any::type_name::<T>(),
        )
    }

    #[test]
    fn names_written_by_earlier_versions_still_read() {
        #[derive(codec::Codec, Debug, PartialEq)]
        struct Page<T> {
            items: Vec<T>,
        }
        #[derive(codec::Codec, Debug, PartialEq)]
        struct Other<T> {
            items: Vec<T>,
        }
        // Read as a widened type: another fingerprint, so the name is checked.
        assert_ne!(
            codec::fingerprint_of::<Vec<u32>>(),
            codec::fingerprint_of::<Vec<u64>>()
        );
        let bytes = stored_by_an_earlier_version(&vec![1u32, 2]);
        assert!(codec::envelope_header(&bytes)
            .unwrap()
            .type_name
            .starts_with("alloc::vec::Vec<"));
        assert_eq!(codec::from_stored::<Vec<u64>>(&bytes).unwrap(), vec![1, 2]);

        let bytes = stored_by_an_earlier_version(&Page { items: vec![3u32] });
        assert_eq!(
            codec::from_stored::<Page<u64>>(&bytes).unwrap(),
            Page { items: vec![3] }
        );
        let bytes = stored_by_an_earlier_version(&Some(4u32));
        assert_eq!(codec::from_stored::<Option<u64>>(&bytes).unwrap(), Some(4));

        // The name still tells types apart.
        let bytes = stored_by_an_earlier_version(&Page { items: vec![3u32] });
        let err = codec::from_stored::<Other<u64>>(&bytes).unwrap_err();
        assert!(matches!(err, EnvelopeError::WrongType { .. }), "{err}");
        // A standard type has no name of its own to keep: its schema
        // decides, so a list read as another list type reads.
        let bytes = named(
            &codec::to_stored(&vec![1u32]).unwrap(),
            "alloc::collections::vec_deque::VecDeque<u32>",
        );
        assert_eq!(codec::from_stored::<Vec<u64>>(&bytes).unwrap(), [1]);
        let err = codec::from_stored::<String>(&bytes).unwrap_err();
        assert!(
            matches!(
                err,
                EnvelopeError::WrongType {
                    renamable: false,
                    ..
                }
            ),
            "{err}"
        );
    }

    #[test]
    fn trailing_bytes_after_the_payload_are_refused() {
        let mut bytes = stored();
        bytes.push(0);
        assert!(matches!(
            codec::from_stored::<Value>(&bytes),
            Err(EnvelopeError::Decode(_))
        ));
    }
}
