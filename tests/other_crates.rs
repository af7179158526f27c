//! codec values where other crates take them: a type deriving
//! `schemars::JsonSchema` holds codec types, and the README's polars recipe
//! (a frame through Arrow IPC into the store and back). polars is too large
//! a build for this workspace, so the recipe's other side is Python's
//! polars (the same Rust core writes and reads the IPC bytes), installed
//! once into a venv under the target folder.

use serde_json::{json, Value};

#[derive(codec::Codec, Debug, PartialEq)]
#[codec(rename_all = "camelCase")]
struct Chunk {
    text: String,
    start_at: u32,
    #[codec(default)]
    tags: Vec<String>,
}

#[derive(codec::Codec, Debug, PartialEq)]
#[codec(tag = "kind")]
enum Event {
    Click { x: i64 },
    Key { code: String },
}

#[derive(schemars::JsonSchema)]
#[allow(dead_code)] // only its schema is used
struct Request {
    chunk: Chunk,
    events: Vec<Event>,
    note: Option<String>,
}

/// `value`'s JSON encoding, as a tree.
fn json_of<T: codec::Codec>(value: &T) -> Value {
    serde_json::from_str(&codec::to_json(value).unwrap()).unwrap()
}

#[test]
fn a_schemars_type_holds_codec_types_with_codec_s_schemas() {
    let schema = schemars::schema_for!(Request);
    let schema = schema.as_value();
    // The codec types are filed under their wire names, with the schemas
    // of their JSON encoding (codec's renames, tags and defaults).
    assert_eq!(schema["properties"]["chunk"]["$ref"], "#/$defs/Chunk");
    let chunk = &schema["$defs"]["Chunk"];
    assert_eq!(
        chunk["properties"],
        codec::schema_of::<Chunk>()["properties"]
    );
    assert_eq!(chunk["required"], json!(["text", "startAt"]));

    let valid = |instance: &Value| jsonschema::is_valid(schema, instance);
    let chunk = Chunk {
        text: "hi".into(),
        start_at: 3,
        tags: vec!["a".into()],
    };
    let events = [Event::Click { x: 1 }, Event::Key { code: "k".into() }];
    let request = json!({
        "chunk": json_of(&chunk),
        "events": events.iter().map(json_of).collect::<Vec<_>>(),
        "note": null,
    });
    assert!(valid(&request), "codec's JSON inside {request}");
    // What serde's default shapes would write is not codec's encoding.
    let mut serde_shaped = request.clone();
    serde_shaped["chunk"] = json!({"text": "hi", "start_at": 3, "tags": []});
    assert!(!valid(&serde_shaped), "{serde_shaped}");
    let mut serde_shaped = request;
    serde_shaped["events"] = json!([{"Click": {"x": 1}}]);
    assert!(!valid(&serde_shaped), "{serde_shaped}");
}

#[cfg(feature = "arrow")]
#[path = "common/venv.rs"]
mod venv;

#[cfg(feature = "arrow")]
mod polars_recipe {
    use std::io::Cursor;
    use std::path::{Path, PathBuf};
    use std::process::Command;

    use arrow_array::RecordBatch;
    use arrow_ipc::reader::FileReader;
    use arrow_ipc::writer::FileWriter;
    use codec::Cache;

    use super::venv;

    const POLARS: &str = "polars==2.1.0";

    fn python() -> PathBuf {
        venv::python("polars-venv", "polars-2.1.0.ready", &[POLARS])
    }

    /// Runs `script` with `args` in the polars venv.
    fn polars(script: &str, args: &[&Path]) {
        venv::run(
            Command::new(python()).arg("-c").arg(script).args(args),
            "the polars side of the recipe",
        );
    }

    /// The frame both sides compare: polars' common column types, nulls, a
    /// nested list, and more than one batch.
    const FRAME: &str = r#"
import datetime, sys
import polars as pl

def frame():
    n = 2500
    return pl.DataFrame({
        "id": list(range(n)),
        "name": [None if i % 7 == 3 else f"name {i}" for i in range(n)],
        "score": [i / 4 for i in range(n)],
        "ok": [i % 3 == 0 for i in range(n)],
        "small": pl.Series([i % 100 for i in range(n)], dtype=pl.Int32),
        "tags": [[f"t{i % 5}"] * (i % 3) for i in range(n)],
        "day": [datetime.date(2026, 1, 1) + datetime.timedelta(days=i % 365) for i in range(n)],
        "at": [datetime.datetime(2026, 1, 1) + datetime.timedelta(seconds=i) for i in range(n)],
    })
"#;

    fn read_ipc(bytes: Vec<u8>) -> Vec<RecordBatch> {
        FileReader::try_new(Cursor::new(bytes), None)
            .unwrap()
            .collect::<Result<Vec<RecordBatch>, _>>()
            .unwrap()
    }

    #[test]
    fn a_polars_frame_goes_through_arrow_ipc_into_the_store_and_back() {
        let dir = tempfile::tempdir().unwrap();
        let written = dir.path().join("written.arrow");
        let back = dir.path().join("back.arrow");

        // polars writes the frame as Arrow IPC, in batches of 1,000 rows.
        polars(
            &format!("{FRAME}\nframe().write_ipc(sys.argv[1], record_batch_size=1000)"),
            &[&written],
        );
        let batches = read_ipc(std::fs::read(&written).unwrap());
        assert_eq!(batches.len(), 3);
        assert_eq!(
            batches.iter().map(RecordBatch::num_rows).sum::<usize>(),
            2500
        );

        let cache = Cache::open(dir.path().join("cache")).unwrap();
        cache.put("frame", &batches).unwrap();
        let stored: Vec<RecordBatch> = cache.get("frame").unwrap().unwrap();
        assert_eq!(stored, batches);

        // Written back as IPC, polars reads the same frame.
        let mut ipc = Vec::new();
        let mut writer = FileWriter::try_new(&mut ipc, &stored[0].schema()).unwrap();
        for batch in &stored {
            writer.write(batch).unwrap();
        }
        writer.finish().unwrap();
        drop(writer);
        std::fs::write(&back, ipc).unwrap();
        polars(
            &format!(
                "{FRAME}\nback = pl.read_ipc(sys.argv[1])\n\
                 assert back.equals(frame()), (back.schema, back.head())\n\
                 assert back.schema == frame().schema, back.schema"
            ),
            &[&back],
        );
    }
}
