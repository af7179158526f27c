//! An oracle for schema evolution, independent of the schema layer: random
//! codec-shaped root schemas, each changed once at a random depth, judged
//! by `codec::schema::diff` and `codec::Fingerprint::of_schema`, and the
//! verdicts checked against old values sampled from the old schema.
//!
//! For each pair (old, new = old changed once):
//! - The fingerprints are equal exactly when the change kept the wire shape
//!   (an annotation, a `$defs` key renamed everywhere, fields reordered).
//! - A compatible verdict (no breaking change) must read every sampled old
//!   value: the new schema's reader (`read`) takes it, the `jsonschema`
//!   validator accepts it under the new schema once the names the new
//!   schema knows by an alias are written under their current names, and it
//!   means what it meant (`read::same_meaning`).
//! - A breaking verdict must have a witness among the sampled old values:
//!   one that the new schema does not read, or reads with another meaning.
//!   A breaking verdict on a change that kept the wire shape fails the test;
//!   other breaking verdicts without a witness are counted and printed as
//!   over-conservative, not failed (the sampler steers towards the changed
//!   part and walks its boundary values, so a missed witness is a verdict
//!   stricter than the definition, such as set -> sequence).
//!
//! What "reads with the same meaning" is, kept simple: codec's reader
//! ignores unknown fields unless the object denies them
//! (`additionalProperties: false`), fills a missing optional field with its
//! default, reads an integer as a float, and reads a field, a variant or an
//! enum value under a former name only when the new schema declares that
//! name (`x-codec-aliases`, `x-codec-value-aliases`); it never guesses a
//! rename. A value means its JSON, keyed by the names the old value
//! carries, with a base64 byte string apart from a text string. A field of
//! the old value that the new schema no longer reads under any name is
//! dropped, and dropping it is compatible while the object is open: codec
//! calls removing a field compatible (and so a rename without an alias to an
//! optional field is compatible: the old field is dropped, the new one
//! takes its default).
//!
//! Runs: `cargo test --test schema evolution_props` runs 256 cases of a
//! fixed seed (so the suite's verdict depends on the code alone). Fresh
//! cases, thousands of them, with the seed printed:
//! `CODEC_PROPTEST_SEED=random CODEC_PROPTEST_CASES=5000 cargo test --release --test schema evolution_props`.
//! Replay a run: `CODEC_PROPTEST_SEED=<seed> cargo test --test schema evolution_props`
//! with the seed a failure prints (proptest's own `PROPTEST_RNG_SEED` works too).

mod mutate;
mod read;
mod sample;
mod shapes;

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::io::Write;

use codec::Fingerprint;
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed, TestCaseError, TestError, TestRunner};
use serde_json::{json, Value};

use mutate::{mutate, Mutation, Op};
use sample::Sampler;

/// Sampled old values per pair: steered towards the change, then free.
const STEERED: usize = 32;
const FREE: usize = 8;

#[derive(Default)]
struct Tally {
    pairs: usize,
    compatible: usize,
    breaking: usize,
    witnessed: usize,
    samples: usize,
    /// Sampled values the old schema itself rejects: a sampler weakness.
    skipped: usize,
    /// Breaking verdicts without a witness, by kind of change, with one pair.
    unwitnessed: BTreeMap<String, (usize, String)>,
}

/// The verdict on one pair, and the pair in words for a failure message.
struct Verdict {
    breaking: bool,
    text: String,
}

fn judge(old: &Value, m: &Mutation) -> Verdict {
    // A diff that recurses without end aborts the whole process, message
    // and all: the pair it was judging is left in a file.
    let _ = std::fs::write(pair_file(), format!("{}\n{old}\n{}\n", m.what, m.new));
    let changes = codec::schema::diff(old, &m.new);
    let breaking = changes.iter().any(|c| c.is_breaking());
    let listed: Vec<String> = changes.iter().map(ToString::to_string).collect();
    let text = format!(
        "change: {}\nold: {old}\nnew: {}\nverdict: {} [{}]",
        m.what,
        m.new,
        if breaking { "breaking" } else { "compatible" },
        listed.join("; ")
    );
    Verdict { breaking, text }
}

/// Why `value`, valid under the old schema, is not read as it was under
/// the new one; `None` when it is.
fn witness(
    old: &Value,
    new: &Value,
    validator: &jsonschema::Validator,
    value: &Value,
) -> Option<String> {
    let before = match read::read(old, value) {
        Ok(r) => r,
        Err(e) => return Some(format!("(the old schema's reader fails too: {e})")),
    };
    let after = match read::read(new, value) {
        Ok(r) => r,
        Err(e) => return Some(format!("not read: {e}")),
    };
    if let Err(e) = validator.validate(&after.renamed) {
        return Some(format!("invalid under the new schema: {e}"));
    }
    if !read::same_meaning(&after.meaning, &before.meaning) {
        return Some(format!(
            "read as {} where it meant {}",
            after.meaning, before.meaning
        ));
    }
    None
}

fn check(old: &Value, m: &Mutation, seed: u64, tally: &RefCell<Tally>) -> Result<(), String> {
    let verdict = judge(old, m);
    let fail = |what: String| Err(format!("{what}\n{}", verdict.text));
    jsonschema::meta::validate(old).map_err(|e| format!("not a valid schema: {e}\n{old}"))?;
    let old_validator = jsonschema::validator_for(old).map_err(|e| e.to_string())?;
    let new_validator = jsonschema::validator_for(&m.new).map_err(|e| e.to_string())?;

    let same_print = Fingerprint::of_schema(old) == Fingerprint::of_schema(&m.new);
    if same_print != m.op.keeps_wire_shape() {
        let kept = if m.op.keeps_wire_shape() {
            "keeps"
        } else {
            "changes"
        };
        let equal = if same_print { "equal" } else { "different" };
        return fail(format!(
            "fingerprints are {equal}, but the change {kept} the wire shape"
        ));
    }

    let mut t = tally.borrow_mut();
    t.pairs += 1;
    let mut found = None;
    for k in 0..STEERED + FREE {
        let target = (k < STEERED).then_some(&m.target[..]);
        let value = Sampler::new(old, target, seed ^ k as u64).sample(k);
        t.samples += 1;
        if !old_validator.is_valid(&value) {
            t.skipped += 1;
            continue;
        }
        if let Some(why) = witness(old, &m.new, &new_validator, &value) {
            found = Some(format!("witness: {value}\n  {why}"));
            break;
        }
    }
    match (verdict.breaking, found) {
        (false, Some(w)) => {
            t.compatible += 1;
            drop(t);
            fail(format!(
                "a compatible verdict, but an old value is not read as it was\n{w}"
            ))
        }
        (false, None) => {
            t.compatible += 1;
            Ok(())
        }
        (true, Some(_)) => {
            t.breaking += 1;
            t.witnessed += 1;
            Ok(())
        }
        (true, None) if m.op.keeps_wire_shape() => {
            drop(t);
            fail("a breaking verdict on a change that keeps the wire shape".into())
        }
        (true, None) => {
            t.breaking += 1;
            let entry = t
                .unwitnessed
                .entry(format!("{:?}", m.op))
                .or_insert((0, verdict.text));
            entry.0 += 1;
            Ok(())
        }
    }
}

/// Where the pair being judged is written first.
fn pair_file() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("evolution_props_pair.txt")
}

fn env_number(key: &str) -> Option<u64> {
    std::env::var(key).ok()?.parse().ok()
}

/// A root type, and the choices of its change and of its samples.
fn pair() -> impl Strategy<Value = (shapes::Ty, usize, usize, u64, u64)> {
    (
        shapes::root(),
        0..Op::ALL.len(),
        0usize..64,
        any::<u64>(),
        any::<u64>(),
    )
}

/// The seed of a run that names none.
const DEFAULT_SEED: u64 = 0x00c0_dec5_eed0_0001;

#[test]
fn evolution_verdicts_agree_with_sampled_values() {
    let cases = env_number("CODEC_PROPTEST_CASES").unwrap_or(256) as u32;
    // A fixed seed unless asked: the suite passes or fails on the code,
    // never on the run. `CODEC_PROPTEST_SEED=random` explores.
    let random = std::env::var("CODEC_PROPTEST_SEED").is_ok_and(|v| v == "random");
    let seed = env_number("CODEC_PROPTEST_SEED")
        .or_else(|| env_number("PROPTEST_RNG_SEED"))
        .unwrap_or_else(|| {
            if !random {
                return DEFAULT_SEED;
            }
            let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
            now.map_or(0, |d| d.as_nanos() as u64 ^ u64::from(std::process::id()))
        });
    let replay = format!("CODEC_PROPTEST_SEED={seed} CODEC_PROPTEST_CASES={cases} cargo test --test schema evolution_props");
    // Straight to stderr, not captured: printed even if the process aborts.
    let _ = writeln!(
        std::io::stderr(),
        "evolution_props: {cases} cases, seed {seed} (replay: {replay}); the pair being judged is in {}",
        pair_file().display()
    );
    let config = Config {
        cases,
        rng_seed: RngSeed::Fixed(seed),
        failure_persistence: None,
        max_shrink_iters: 4096,
        ..Config::default()
    };
    let tally = RefCell::new(Tally::default());
    let started = std::time::Instant::now();
    let result =
        TestRunner::new(config).run(&pair(), |(ty, op, site, mutation_seed, sample_seed)| {
            let old = shapes::render(&ty);
            let m = mutate(&old, op, site, mutation_seed);
            check(&old, &m, sample_seed, &tally).map_err(TestCaseError::fail)
        });
    let t = tally.into_inner();
    eprintln!(
        "evolution_props: {} pairs in {:.1?} ({} compatible, {} breaking of which {} witnessed); {} of {} sampled values skipped as invalid under the old schema",
        t.pairs,
        started.elapsed(),
        t.compatible,
        t.breaking,
        t.witnessed,
        t.skipped,
        t.samples
    );
    for (op, (count, example)) in &t.unwitnessed {
        eprintln!("over-conservative: {count} breaking verdicts on {op} without a witness, e.g.\n{example}\n");
    }
    match result {
        Ok(()) => {}
        Err(TestError::Fail(why, (ty, op, site, mseed, sseed))) => panic!(
            "a verdict disagrees with the sampled values (seed {seed}; replay: {replay})\n{why}\nminimal input: {ty:?}, op {op}, site {site}, seeds {mseed} {sseed}"
        ),
        Err(TestError::Abort(why)) => panic!("aborted (seed {seed}; replay: {replay}): {why}"),
    }
    assert!(
        t.skipped * 50 <= t.samples,
        "the sampler made {} values the old schema rejects, of {}",
        t.skipped,
        t.samples
    );
}

// Disagreements of the current schema layer with the definitions above, each
// found by the property and shrunk by hand to its smallest pair.

fn breaking(old: &Value, new: &Value) -> bool {
    codec::schema::diff(old, new)
        .iter()
        .any(|c| c.is_breaking())
}

fn fingerprints_equal(old: &Value, new: &Value) -> bool {
    Fingerprint::of_schema(old) == Fingerprint::of_schema(new)
}

/// A struct with one required field `name` of schema `field`.
fn one_field(name: &str, field: Value) -> Value {
    json!({"type": "object", "properties": {name: field}, "required": [name]})
}

#[test]
fn a_field_named_title_changing_type_changes_the_fingerprint() {
    let old = one_field("title", json!({"type": "string"}));
    let new = one_field(
        "title",
        json!({"type": "integer", "minimum": 0, "maximum": 255}),
    );
    assert!(!fingerprints_equal(&old, &new));
}

#[test]
fn a_type_change_of_a_field_named_title_is_breaking() {
    let old = one_field("title", json!({"type": "string"}));
    let new = one_field(
        "title",
        json!({"type": "integer", "minimum": 0, "maximum": 255}),
    );
    assert!(
        breaking(&old, &new),
        "{:?}",
        codec::schema::diff(&old, &new)
    );
}

#[test]
fn fields_named_like_annotations_count_in_the_fingerprint() {
    for name in ["title", "description", "default", "examples"] {
        let old = json!({"type": "object", "properties": {}});
        let new = json!({"type": "object", "properties": {name: {"type": "boolean"}}});
        assert!(!fingerprints_equal(&old, &new), "a field `{name}` added");
    }
}

/// A struct whose field `mode` is the nested type `name`, an enum of `values`.
fn nested_enum(name: &str, values: Value) -> Value {
    let mut schema = one_field("mode", json!({"$ref": format!("#/$defs/{name}")}));
    schema["$defs"] = json!({name: {"enum": values}});
    schema
}

#[test]
fn a_nested_type_named_title_counts_in_the_fingerprint() {
    let old = nested_enum("title", json!(["A", "B"]));
    let new = nested_enum("title", json!(["A"]));
    assert!(!fingerprints_equal(&old, &new));
}

#[test]
fn a_value_removed_from_a_nested_enum_named_title_is_breaking() {
    let old = nested_enum("title", json!(["A", "B"]));
    let new = nested_enum("title", json!(["A"]));
    assert!(
        breaking(&old, &new),
        "{:?}",
        codec::schema::diff(&old, &new)
    );
}

#[test]
fn renaming_a_defs_key_keeps_the_fingerprint() {
    let old = nested_enum("app.Mode", json!(["A", "B"]));
    let new = nested_enum("app.Mode.v2", json!(["A", "B"]));
    assert!(fingerprints_equal(&old, &new));
    assert!(!breaking(&old, &new));
}

/// A struct with `spans: Vec<Span>`, `Span` having one field `start`.
fn vec_of_spans(start: Value) -> Value {
    let mut schema = one_field(
        "spans",
        json!({"type": "array", "items": {"$ref": "#/$defs/app.Span"}}),
    );
    schema["$defs"] = json!({"app.Span": one_field("start", start)});
    schema
}

#[test]
fn a_type_change_inside_a_vec_of_a_nested_type_is_breaking() {
    let old = vec_of_spans(json!({"type": "integer", "minimum": 0, "maximum": 4294967295u64}));
    let new = vec_of_spans(json!({"type": "string"}));
    assert!(
        breaking(&old, &new),
        "{:?}",
        codec::schema::diff(&old, &new)
    );
}

#[test]
fn an_untagged_variant_is_compared_with_the_new_variant_of_its_kind() {
    let int = |max: u64| json!({"type": "integer", "minimum": 0, "maximum": max});
    let untagged = |int: Value| json!({"anyOf": [int, {"type": "string"}]});
    let (narrow, wide) = (untagged(int(u32::MAX.into())), untagged(int(u64::MAX)));
    assert!(
        !breaking(&narrow, &wide),
        "{:?}",
        codec::schema::diff(&narrow, &wide)
    );
    let changes = codec::schema::diff(&wide, &narrow);
    assert!(
        changes
            .iter()
            .any(|c| c.is_breaking() && c.path.ends_with("<integer>")),
        "{changes:?}"
    );
    // No variant of its kind left: breaking.
    let only_text = json!({"anyOf": [{"type": "string"}, {"type": "boolean"}]});
    assert!(breaking(&narrow, &only_text));
}

#[test]
fn a_map_of_integer_keys_whose_values_widen_is_compatible() {
    let map = |max: u64| {
        json!({
            "type": "object",
            "additionalProperties": {"type": "integer", "minimum": 0, "maximum": max},
            "propertyNames": {"pattern": "^-?[0-9]+$"},
        })
    };
    let (old, new) = (map(u32::MAX.into()), map(u64::MAX));
    assert!(
        !breaking(&old, &new),
        "{:?}",
        codec::schema::diff(&old, &new)
    );
    let mut string_keys = new.clone();
    string_keys.as_object_mut().unwrap().remove("propertyNames");
    assert!(breaking(&old, &string_keys));
}

#[test]
fn an_excluded_value_counts_where_it_changes() {
    use std::num::{NonZeroU32, NonZeroU64};
    let (narrow, wide) = (
        codec::schema_of::<NonZeroU32>(),
        codec::schema_of::<NonZeroU64>(),
    );
    assert!(
        !breaking(&narrow, &wide),
        "{:?}",
        codec::schema::diff(&narrow, &wide)
    );
    // A zero stored no longer reads.
    assert!(breaking(&codec::schema_of::<u32>(), &narrow));
    assert!(!breaking(&narrow, &codec::schema_of::<u64>()));
}

#[test]
fn a_constant_read_as_an_enum_holding_it_is_compatible() {
    let constant = json!({"const": "a"});
    assert!(!breaking(&constant, &json!({"enum": ["a", "b"]})));
    assert!(breaking(&constant, &json!({"enum": ["b", "c"]})));
}

#[test]
fn a_field_removed_from_the_elements_of_a_set_is_breaking() {
    // Two elements that differed only by the field would become one.
    let set_of = |item: Value| json!({"type": "array", "uniqueItems": true, "items": item});
    let old = set_of(json!({
        "type": "object",
        "properties": {"name": {"type": "string"}, "lang": {"type": "string"}},
        "required": ["name", "lang"],
    }));
    let new = set_of(one_field("name", json!({"type": "string"})));
    assert!(
        breaking(&old, &new),
        "{:?}",
        codec::schema::diff(&old, &new)
    );
    // In a list, removing it is compatible.
    let (old, new) = (old.clone(), new.clone());
    let list = |mut v: Value| {
        v.as_object_mut().unwrap().remove("uniqueItems");
        v
    };
    assert!(!breaking(&list(old), &list(new)));
}

#[test]
fn a_required_field_added_to_the_nested_type_of_an_untagged_variant_is_breaking() {
    let untagged = |span: Value| {
        json!({
            "anyOf": [{"type": "number"}, {"$ref": "#/$defs/app.Span"}],
            "$defs": {"app.Span": span},
        })
    };
    let old = untagged(json!({"type": "object", "properties": {}}));
    let new = untagged(one_field("start", json!({"type": "boolean"})));
    assert!(
        breaking(&old, &new),
        "{:?}",
        codec::schema::diff(&old, &new)
    );
}

/// The variable holding the pair (`[old, new]`) that
/// `diff_of_the_pair_in_the_environment` diffs, in a child process.
const PAIR_ENV: &str = "CODEC_EVOLUTION_PAIR";

/// Whether `diff(old, new)` returns, run in a child process: a diff that
/// recurses without end overflows the stack, which aborts the process it
/// runs in, and would take every other test of the binary with it.
fn diff_returns(old: &Value, new: &Value) -> bool {
    let exe = std::env::current_exe().expect("the test binary");
    let child = std::process::Command::new(exe)
        .args([
            "--exact",
            "evolution_props::diff_of_the_pair_in_the_environment",
            "--test-threads=1",
        ])
        .env(PAIR_ENV, json!([old, new]).to_string())
        .output()
        .expect("the test binary runs");
    child.status.success()
}

#[test]
fn diff_of_the_pair_in_the_environment() {
    if let Ok(pair) = std::env::var(PAIR_ENV) {
        let pair: Value = serde_json::from_str(&pair).expect("a pair of schemas");
        codec::schema::diff(&pair[0], &pair[1]);
    }
}

#[test]
fn a_vec_of_the_root_type_made_a_vec_of_options_is_diffed() {
    let old = one_field("next", json!({"type": "array", "items": {"$ref": "#"}}));
    let new = one_field(
        "next",
        json!({"type": "array", "items": {"anyOf": [{"$ref": "#"}, {"type": "null"}]}}),
    );
    assert!(diff_returns(&old, &new), "diff does not return");
}
