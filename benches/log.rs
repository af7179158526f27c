//! codec against rmp-serde, serde_json, msgpacker, zerompk and sonic-rs on
//! the log workload, in one run. `python3 benches/ratios.py` turns the
//! results into the table of ratios against the goals. sonic-rs takes its
//! SIMD paths only in a native build:
//! `RUSTFLAGS="-C target-cpu=native" cargo bench -p codec-benches --bench log`.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::hint::black_box;
use std::time::Duration;

#[path = "log_data.rs"]
mod log_data;

#[path = "log_borrowed.rs"]
mod log_borrowed;

mod with_codec {
    #[derive(codec::Codec, Clone, Debug, PartialEq)]
    pub enum Kind {
        Cached,
        Computed(u32),
        Failed { code: u32, reason: String },
    }

    #[derive(codec::Codec, Clone, Debug, PartialEq)]
    pub struct Record {
        pub service: String,
        pub path: String,
        pub ts: u64,
        pub status: u16,
        pub user: Option<String>,
        pub tags: Vec<u32>,
        pub kind: Kind,
    }
}

/// The log record with its strings borrowed from the input, derived.
mod with_codec_borrowed {
    #[derive(codec::Codec, Debug, PartialEq)]
    pub enum Kind<'a> {
        Cached,
        Computed(u32),
        Failed { code: u32, reason: &'a str },
    }

    #[derive(codec::Codec, Debug, PartialEq)]
    pub struct Record<'a> {
        pub service: &'a str,
        pub path: &'a str,
        pub ts: u64,
        pub status: u16,
        pub user: Option<&'a str>,
        pub tags: Vec<u32>,
        #[codec(borrow)]
        pub kind: Kind<'a>,
    }

    /// The top-level array: a `Vec` of borrowing records decodes through
    /// a newtype.
    #[derive(codec::Codec, Debug, PartialEq)]
    pub struct Batch<'a>(#[codec(borrow)] pub Vec<Record<'a>>);
}

/// serde's twin of `with_codec_borrowed`, with `#[serde(borrow)]`.
mod with_serde_borrowed {
    use serde::Deserialize;

    #[derive(Deserialize, Debug, PartialEq)]
    #[serde(tag = "type")]
    pub enum Kind<'a> {
        Cached,
        Computed { value: u32 },
        Failed { code: u32, reason: &'a str },
    }

    #[derive(Deserialize, Debug, PartialEq)]
    pub struct Record<'a> {
        pub service: &'a str,
        pub path: &'a str,
        pub ts: u64,
        pub status: u16,
        pub user: Option<&'a str>,
        pub tags: Vec<u32>,
        #[serde(borrow)]
        pub kind: Kind<'a>,
    }
}

mod with_serde {
    use serde::{Deserialize, Serialize};

    #[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
    #[serde(tag = "type")]
    pub enum Kind {
        Cached,
        // Internally tagged enums cannot hold a bare u32: a one-field struct
        // variant writes the same bytes as codec's {"type":"Computed","value":n}.
        Computed { value: u32 },
        Failed { code: u32, reason: String },
    }

    #[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
    pub struct Record {
        pub service: String,
        pub path: String,
        pub ts: u64,
        pub status: u16,
        pub user: Option<String>,
        pub tags: Vec<u32>,
        pub kind: Kind,
    }
}

mod with_msgpacker {
    use msgpacker::MsgPacker;

    #[derive(MsgPacker, Clone, Debug, PartialEq)]
    pub struct Record {
        pub service: String,
        pub path: String,
        pub ts: u64,
        pub status: u16,
        pub user: Option<String>,
        pub tags: Vec<u32>,
        /// msgpacker has no tagged unions: (variant, number, reason).
        pub kind: (u8, u32, String),
    }
}

/// zerompk in its map form, the closest to codec's (field names on the
/// wire); its enums are `[tag, value]` arrays.
mod with_zerompk {
    use zerompk::{FromMessagePack, ToMessagePack};

    #[derive(ToMessagePack, FromMessagePack, Clone, Debug, PartialEq)]
    pub enum Kind {
        Cached,
        Computed(u32),
        Failed { code: u32, reason: String },
    }

    #[derive(ToMessagePack, FromMessagePack, Clone, Debug, PartialEq)]
    #[msgpack(map)]
    pub struct Record {
        pub service: String,
        pub path: String,
        pub ts: u64,
        pub status: u16,
        pub user: Option<String>,
        pub tags: Vec<u32>,
        pub kind: Kind,
    }

    /// The same record in zerompk's default array form: no field names.
    #[derive(ToMessagePack, FromMessagePack, Clone, Debug, PartialEq)]
    #[msgpack(array)]
    pub struct ArrayRecord {
        pub service: String,
        pub path: String,
        pub ts: u64,
        pub status: u16,
        pub user: Option<String>,
        pub tags: Vec<u32>,
        pub kind: Kind,
    }

    impl From<&Record> for ArrayRecord {
        fn from(r: &Record) -> Self {
            ArrayRecord {
                service: r.service.clone(),
                path: r.path.clone(),
                ts: r.ts,
                status: r.status,
                user: r.user.clone(),
                tags: r.tags.clone(),
                kind: r.kind.clone(),
            }
        }
    }
}

fn zerompk_data(raw: &[with_msgpacker::Record]) -> Vec<with_zerompk::Record> {
    raw.iter()
        .map(|r| with_zerompk::Record {
            service: r.service.clone(),
            path: r.path.clone(),
            ts: r.ts,
            status: r.status,
            user: r.user.clone(),
            tags: r.tags.clone(),
            kind: match r.kind.0 {
                0 => with_zerompk::Kind::Cached,
                1 => with_zerompk::Kind::Computed(r.kind.1),
                _ => with_zerompk::Kind::Failed {
                    code: r.kind.1,
                    reason: r.kind.2.clone(),
                },
            },
        })
        .collect()
}

fn datasets() -> (
    Vec<with_codec::Record>,
    Vec<with_serde::Record>,
    Vec<with_msgpacker::Record>,
) {
    let raw = log_data::generate();
    let codec = raw
        .iter()
        .map(|r| with_codec::Record {
            service: r.service.clone(),
            path: r.path.clone(),
            ts: r.ts,
            status: r.status,
            user: r.user.clone(),
            tags: r.tags.clone(),
            kind: match r.kind.0 {
                0 => with_codec::Kind::Cached,
                1 => with_codec::Kind::Computed(r.kind.1),
                _ => with_codec::Kind::Failed {
                    code: r.kind.1,
                    reason: r.kind.2.clone(),
                },
            },
        })
        .collect();
    let serde = raw
        .iter()
        .map(|r| with_serde::Record {
            service: r.service.clone(),
            path: r.path.clone(),
            ts: r.ts,
            status: r.status,
            user: r.user.clone(),
            tags: r.tags.clone(),
            kind: match r.kind.0 {
                0 => with_serde::Kind::Cached,
                1 => with_serde::Kind::Computed { value: r.kind.1 },
                _ => with_serde::Kind::Failed {
                    code: r.kind.1,
                    reason: r.kind.2.clone(),
                },
            },
        })
        .collect();
    let packer = raw
        .iter()
        .map(|r| with_msgpacker::Record {
            service: r.service.clone(),
            path: r.path.clone(),
            ts: r.ts,
            status: r.status,
            user: r.user.clone(),
            tags: r.tags.clone(),
            kind: r.kind.clone(),
        })
        .collect();
    (codec, serde, packer)
}

/// The comparison is only fair if the bytes are the same: check once.
fn check_same_bytes(
    codec_data: &Vec<with_codec::Record>,
    serde_data: &Vec<with_serde::Record>,
) -> [usize; 3] {
    let ours = codec::to_msgpack(codec_data).unwrap();
    let theirs = rmp_serde::to_vec_named(serde_data).unwrap();
    if ours != theirs {
        for (i, (a, b)) in codec_data.iter().zip(serde_data).enumerate() {
            let (x, y) = (
                codec::to_msgpack(a).unwrap(),
                rmp_serde::to_vec_named(b).unwrap(),
            );
            assert_eq!(x, y, "record {i} differs between codec and rmp-serde");
        }
    }
    let json = codec::to_json(codec_data).unwrap();
    assert_eq!(
        json,
        serde_json::to_string(serde_data).unwrap(),
        "JSON differs from serde_json"
    );
    assert_eq!(
        &codec::from_msgpack::<Vec<with_codec::Record>>(&ours).unwrap(),
        codec_data
    );
    [ours.len(), json.len(), 0]
}

/// The borrowing prototype reads what codec's decoder reads.
fn check_borrowed(msgpack: &[u8], codec_data: &[with_codec::Record]) {
    use with_codec::Kind;
    let borrowed = log_borrowed::decode(msgpack).unwrap();
    assert_eq!(borrowed.len(), codec_data.len());
    for (b, o) in borrowed.iter().zip(codec_data) {
        let kind = match &o.kind {
            Kind::Cached => log_borrowed::Kind::Cached,
            Kind::Computed(n) => log_borrowed::Kind::Computed(*n),
            Kind::Failed { code, reason } => log_borrowed::Kind::Failed {
                code: *code,
                reason,
            },
        };
        let owned = log_borrowed::Record {
            service: &o.service,
            path: &o.path,
            ts: o.ts,
            status: o.status,
            user: o.user.as_deref(),
            tags: o.tags.clone(),
            kind,
        };
        assert_eq!(*b, owned);
    }
}

/// The derived borrowing record reads what the prototype reads, from
/// MessagePack and JSON, and serde's borrowing twin reads the same.
fn check_derived_borrowed(msgpack: &[u8], json: &str) {
    let prototype = log_borrowed::decode(msgpack).unwrap();
    let derived: with_codec_borrowed::Batch<'_> = codec::from_msgpack(msgpack).unwrap();
    let from_json: with_codec_borrowed::Batch<'_> = codec::from_json(json).unwrap();
    assert_eq!(derived, from_json);
    let serde_json_records: Vec<with_serde_borrowed::Record<'_>> =
        serde_json::from_str(json).unwrap();
    let rmp_records: Vec<with_serde_borrowed::Record<'_>> = rmp_serde::from_slice(msgpack).unwrap();
    assert_eq!(serde_json_records, rmp_records);
    assert_eq!(derived.0.len(), prototype.len());
    for ((d, p), s) in derived.0.iter().zip(&prototype).zip(&rmp_records) {
        assert_eq!(
            (d.service, d.path, d.ts, d.status),
            (p.service, p.path, p.ts, p.status)
        );
        assert_eq!((d.user, &d.tags), (p.user, &p.tags));
        assert_eq!((d.service, d.path, d.user), (s.service, s.path, s.user));
        let (reason, prototype_reason) = match (&d.kind, &p.kind) {
            (
                with_codec_borrowed::Kind::Failed { reason, .. },
                log_borrowed::Kind::Failed { reason: theirs, .. },
            ) => (*reason, *theirs),
            _ => ("", ""),
        };
        assert_eq!(reason, prototype_reason);
    }
}

fn bench(c: &mut Criterion) {
    let (codec_data, serde_data, packer_data) = datasets();
    let [msgpack_len, json_len, _] = check_same_bytes(&codec_data, &serde_data);
    let packed = msgpacker::Packable::pack_to_vec(&packer_data);
    let zmp_data = zerompk_data(&packer_data);
    let zmp_array_data: Vec<with_zerompk::ArrayRecord> = zmp_data.iter().map(Into::into).collect();
    let zmp = zerompk::to_msgpack_vec(&zmp_data).unwrap();
    let zmp_array = zerompk::to_msgpack_vec(&zmp_array_data).unwrap();
    assert_eq!(
        zerompk::from_msgpack::<Vec<with_zerompk::Record>>(&zmp).unwrap(),
        zmp_data
    );
    // sonic-rs writes serde_json's bytes: the comparison is fair.
    assert_eq!(
        sonic_rs::to_string(&serde_data).unwrap(),
        serde_json::to_string(&serde_data).unwrap()
    );
    let n = log_data::RECORDS as f64;
    let sizes = serde_json::json!({
        "codec": msgpack_len as f64 / n,
        "rmp-serde": msgpack_len as f64 / n,
        "serde_json": json_len as f64 / n,
        "sonic-rs": json_len as f64 / n,
        "msgpacker": packed.len() as f64 / n,
        "zerompk-map": zmp.len() as f64 / n,
        "zerompk-array": zmp_array.len() as f64 / n,
    });
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/criterion");
    let _ = std::fs::create_dir_all(&dir);
    let _ = std::fs::write(dir.join("log_bytes.json"), sizes.to_string());
    // For benches/msgspec_log.py, which checks msgspec writes the same bytes.
    let _ = std::fs::write(
        dir.join("log.msgpack"),
        codec::to_msgpack(&codec_data).unwrap(),
    );

    let msgpack = codec::to_msgpack(&codec_data).unwrap();
    let json = codec::to_json(&codec_data).unwrap();
    check_borrowed(&msgpack, &codec_data);
    check_derived_borrowed(&msgpack, &json);
    let elements = Throughput::Elements(log_data::RECORDS as u64);

    let mut g = c.benchmark_group("msgpack_encode");
    g.throughput(elements.clone());
    g.bench_function("codec", |b| {
        let mut buf = Vec::with_capacity(msgpack.len());
        b.iter(|| {
            buf.clear();
            codec::to_msgpack_into(black_box(&codec_data), &mut buf).unwrap();
        })
    });
    g.bench_function("rmp-serde", |b| {
        let mut buf = Vec::with_capacity(msgpack.len());
        b.iter(|| {
            buf.clear();
            rmp_serde::encode::write_named(&mut buf, black_box(&serde_data)).unwrap();
        })
    });
    g.bench_function("msgpacker", |b| {
        let mut buf = Vec::with_capacity(packed.len());
        b.iter(|| {
            buf.clear();
            msgpacker::Packable::pack(black_box(&packer_data), &mut buf);
        })
    });
    g.bench_function("zerompk-map", |b| {
        b.iter(|| zerompk::to_msgpack_vec(black_box(&zmp_data)).unwrap())
    });
    g.bench_function("zerompk-array", |b| {
        b.iter(|| zerompk::to_msgpack_vec(black_box(&zmp_array_data)).unwrap())
    });
    g.finish();

    let mut g = c.benchmark_group("msgpack_decode");
    g.throughput(elements.clone());
    g.bench_function("codec", |b| {
        b.iter(|| codec::from_msgpack::<Vec<with_codec::Record>>(black_box(&msgpack)).unwrap())
    });
    g.bench_function("rmp-serde", |b| {
        b.iter(|| rmp_serde::from_slice::<Vec<with_serde::Record>>(black_box(&msgpack)).unwrap())
    });
    g.bench_function("msgpacker", |b| {
        b.iter(|| {
            <Vec<with_msgpacker::Record> as msgpacker::Unpackable>::unpack(black_box(&packed))
                .unwrap()
        })
    });
    g.bench_function("zerompk-map", |b| {
        b.iter(|| zerompk::from_msgpack::<Vec<with_zerompk::Record>>(black_box(&zmp)).unwrap())
    });
    g.bench_function("zerompk-array", |b| {
        b.iter(|| {
            zerompk::from_msgpack::<Vec<with_zerompk::ArrayRecord>>(black_box(&zmp_array)).unwrap()
        })
    });
    g.bench_function("clone_floor", |b| b.iter(|| black_box(&codec_data).clone()));
    // Below the floor: strings borrowed from the input (a prototype).
    g.bench_function("codec-borrowed", |b| {
        b.iter(|| log_borrowed::decode(black_box(&msgpack)).unwrap())
    });
    // The same, derived, and serde's `#[serde(borrow)]`.
    g.bench_function("codec-derived-borrowed", |b| {
        b.iter(|| {
            codec::from_msgpack::<with_codec_borrowed::Batch<'_>>(black_box(&msgpack)).unwrap()
        })
    });
    g.bench_function("rmp-serde-borrowed", |b| {
        b.iter(|| {
            rmp_serde::from_slice::<Vec<with_serde_borrowed::Record<'_>>>(black_box(&msgpack))
                .unwrap()
        })
    });
    g.finish();

    let mut g = c.benchmark_group("json_encode");
    g.throughput(elements.clone());
    g.bench_function("codec", |b| {
        b.iter(|| codec::to_json_vec(black_box(&codec_data)).unwrap())
    });
    g.bench_function("serde_json", |b| {
        b.iter(|| serde_json::to_vec(black_box(&serde_data)).unwrap())
    });
    g.bench_function("sonic-rs", |b| {
        b.iter(|| sonic_rs::to_vec(black_box(&serde_data)).unwrap())
    });
    g.finish();

    let mut g = c.benchmark_group("json_decode");
    g.throughput(elements.clone());
    g.bench_function("codec", |b| {
        b.iter(|| codec::from_json::<Vec<with_codec::Record>>(black_box(&json)).unwrap())
    });
    g.bench_function("serde_json", |b| {
        b.iter(|| serde_json::from_str::<Vec<with_serde::Record>>(black_box(&json)).unwrap())
    });
    g.bench_function("sonic-rs", |b| {
        b.iter(|| sonic_rs::from_str::<Vec<with_serde::Record>>(black_box(&json)).unwrap())
    });
    g.bench_function("codec-borrowed", |b| {
        b.iter(|| codec::from_json::<with_codec_borrowed::Batch<'_>>(black_box(&json)).unwrap())
    });
    g.bench_function("serde_json-borrowed", |b| {
        b.iter(|| {
            serde_json::from_str::<Vec<with_serde_borrowed::Record<'_>>>(black_box(&json)).unwrap()
        })
    });
    g.finish();

    let mut g = c.benchmark_group("per_record_encode");
    g.throughput(elements.clone());
    g.bench_function("codec", |b| {
        b.iter(|| {
            for r in black_box(&codec_data) {
                black_box(codec::to_msgpack(r).unwrap());
            }
        })
    });
    g.bench_function("rmp-serde", |b| {
        b.iter(|| {
            for r in black_box(&serde_data) {
                black_box(rmp_serde::to_vec_named(r).unwrap());
            }
        })
    });
    g.finish();

    let stored = codec::to_stored(&codec_data).unwrap();
    let mut g = c.benchmark_group("stored_decode");
    g.throughput(elements);
    g.bench_function("bare", |b| {
        b.iter(|| codec::from_msgpack::<Vec<with_codec::Record>>(black_box(&msgpack)).unwrap())
    });
    g.bench_function("envelope", |b| {
        b.iter(|| codec::from_stored::<Vec<with_codec::Record>>(black_box(&stored)).unwrap())
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30).measurement_time(Duration::from_secs(2)).warm_up_time(Duration::from_secs(1));
    targets = bench
}
criterion_main!(benches);
