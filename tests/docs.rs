//! The README and the guides under `docs/` name only APIs that exist: each
//! codec name in backticks is looked up in the sources (a rename that leaves
//! a guide behind fails here, as a broken intra-doc link fails `cargo doc`),
//! each test they cite is looked up in its file, and the README's commands
//! are the project's. (Their samples are doc tests: `cargo test --doc`.)

use std::path::Path;

/// The text of every `.rs` file under `dir`.
fn sources(dir: &Path, out: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(std::fs::read_to_string(&path).unwrap());
        }
    }
}

fn words(line: &str) -> impl Iterator<Item = &str> {
    line.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
}

/// Whether `text` has a line that, trimmed, starts with one of `starts`
/// as a whole word (`fn get` is not `fn get_many`).
fn has_line(text: &str, starts: &[String]) -> bool {
    text.lines().map(str::trim_start).any(|line| {
        starts.iter().any(|s| {
            line.strip_prefix(s.as_str()).is_some_and(|rest| {
                !rest.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
            })
        })
    })
}

fn is_ident(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Whether the codec item `name` (a type or function, declared public or
/// re-exported) exists.
fn item_exists(code: &[String], name: &str) -> bool {
    let declared = ["struct", "enum", "trait", "type", "fn", "mod", "async fn"]
        .map(|kind| format!("pub {kind} {name}"));
    code.iter().any(|file| {
        has_line(file, &declared)
            || has_line(file, &[format!("macro_rules! {name}")])
            || file.lines().any(|line| {
                line.trim_start().starts_with("pub use ") && words(line).any(|w| w == name)
            })
    })
}

/// The type an `impl` line is for: `Y` in `impl<T> X for Y<T> {`, `X` in
/// `impl X {`.
fn self_type(line: &str) -> Option<&str> {
    let mut rest = line.strip_prefix("impl")?;
    if rest.starts_with('<') {
        let mut depth = 0;
        for (i, c) in rest.char_indices() {
            depth += match c {
                '<' => 1,
                '>' => -1,
                _ => 0,
            };
            if depth == 0 {
                rest = &rest[i + 1..];
                break;
            }
        }
    } else if !rest.starts_with(' ') {
        return None;
    }
    let rest = rest.split('{').next()?;
    let ty = rest.rsplit_once(" for ").map_or(rest, |(_, ty)| ty);
    words(ty).find(|w| w.starts_with(|c: char| c.is_ascii_uppercase()))
}

/// The lines of the item that starts at `lines[0]`: to its `;`, or to the
/// `}` that closes its block.
fn block<'a>(lines: &[&'a str]) -> Vec<&'a str> {
    let mut depth = 0;
    let mut opened = false;
    let mut out = Vec::new();
    for line in lines {
        out.push(*line);
        if line.trim_start().starts_with("//") {
            continue;
        }
        depth += line.matches('{').count() as i64 - line.matches('}').count() as i64;
        opened |= line.contains('{');
        if (opened && depth <= 0) || (!opened && line.trim_end().ends_with(';')) {
            break;
        }
    }
    out
}

/// Whether the type `ty` has the method, field or variant `member`: in a
/// block that declares or implements `ty`.
fn member_exists(code: &[String], ty: &str, member: &str) -> bool {
    let starts = [
        format!("pub fn {member}"),
        format!("pub async fn {member}"),
        format!("fn {member}"),
        format!("pub {member}:"),
        format!("{member},"),
        format!("{member} {{"),
        format!("{member}("),
    ];
    code.iter().any(|file| {
        let lines: Vec<&str> = file.lines().collect();
        (0..lines.len()).any(|i| {
            let line = lines[i].trim_start();
            let declares = ["pub struct ", "pub enum ", "pub trait "].iter().any(|k| {
                line.strip_prefix(k)
                    .is_some_and(|rest| words(rest).next() == Some(ty))
            });
            (declares || self_type(line) == Some(ty))
                && has_line(&block(&lines[i..]).join("\n"), &starts)
        })
    })
}

/// The names a piece of code in backticks refers to: `Type::member` pairs
/// and `codec::item` paths; attribute keys as `#[codec(key`.
fn check_span(span: &str, code: &[String], derive: &str, missing: &mut Vec<String>) -> usize {
    let mut checked = 0;
    let parts: Vec<&str> = span.split("::").collect();
    for pair in parts.windows(2) {
        let ty = pair[0]
            .rsplit(|c: char| !c.is_ascii_alphanumeric() && c != '_')
            .next()
            .unwrap();
        let member: String = pair[1]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        // Another crate's type, or a type parameter (`I::Item`).
        if not_codecs(ty) || ty.len() == 1 {
            continue;
        }
        if ty == "codec" {
            if member != "store" && !item_exists(code, &member) {
                missing.push(format!("codec::{member} (in `{span}`)"));
            }
            checked += 1;
        } else if ty.starts_with(|c: char| c.is_ascii_uppercase()) && !member.is_empty() {
            if !item_exists(code, ty) {
                missing.push(format!("{ty} (in `{span}`)"));
            } else if !member_exists(code, ty, &member) {
                missing.push(format!("{ty}::{member} (in `{span}`)"));
            }
            checked += 1;
        }
    }
    if let Some(rest) = span.strip_prefix("#[codec(") {
        let key: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if !derive.contains(&format!("\"{key}\"")) {
            missing.push(format!("#[codec({key})] (in `{span}`)"));
        }
        checked += 1;
    }
    // A type's name (`Cache`), not a constant (`O_DIRECT`), a letter (`T`)
    // or another crate's name.
    if !span.contains("::")
        && span.starts_with(|c: char| c.is_ascii_uppercase())
        && span.contains(|c: char| c.is_ascii_lowercase())
        && is_ident(span)
        && !not_codecs(span)
    {
        if !item_exists(code, span) {
            missing.push(span.to_owned());
        }
        checked += 1;
    }
    checked
}

/// The sources of codec's crates, and the keys `#[codec(..)]` takes (not
/// the serde keys it reports).
fn codec_sources(root: &Path) -> (Vec<String>, String) {
    let mut code = Vec::new();
    sources(&root.join("codec-runtime/src"), &mut code);
    sources(&root.join("codec-store/src"), &mut code);
    sources(&root.join("codec-python/src"), &mut code);
    sources(&root.join("src"), &mut code);
    let derive = ["attr/mod.rs", "attr/constraints.rs"]
        .map(|f| std::fs::read_to_string(root.join("codec-derive/src").join(f)).unwrap())
        .concat();
    (code, derive)
}

#[test]
fn the_python_guide_names_only_apis_that_exist() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let (code, derive) = codec_sources(root);

    let guide = std::fs::read_to_string(root.join("docs/from-python.md")).unwrap();
    let mut missing = Vec::new();
    let mut checked = 0;
    // The codec column: the last cell of each table row.
    for row in guide.lines().filter(|l| l.starts_with('|')) {
        let cells: Vec<&str> = row.trim_matches('|').split(" | ").collect();
        let Some(ours) = cells.last().filter(|_| cells.len() >= 2) else {
            continue;
        };
        for (i, span) in ours.split('`').enumerate() {
            if i % 2 == 1 {
                checked += check_span(span, &code, &derive, &mut missing);
            }
        }
    }
    // A parse that finds nothing would pass: the guide names dozens.
    assert!(
        checked >= 60,
        "only {checked} names found in docs/from-python.md"
    );
    // A row that says codec has none of a Python name, where codec has a
    // function of that very name, went stale (it said so of `ttl` once
    // the store had it).
    let mut stale = Vec::new();
    for row in guide.lines().filter(|l| l.starts_with('|')) {
        let cells: Vec<&str> = row.trim_matches('|').split(" | ").collect();
        let [python, .., ours] = cells[..] else {
            continue;
        };
        if !ours.trim_start().starts_with("none") {
            continue;
        }
        let names = python.split('`').skip(1).step_by(2);
        for name in names.filter(|n| is_ident(n)) {
            let declared = [format!("pub fn {name}("), format!("pub fn {name}<")];
            if code
                .iter()
                .any(|file| declared.iter().any(|d| file.contains(d)))
            {
                stale.push(format!("`{name}`: {row}"));
            }
        }
    }
    assert!(
        stale.is_empty(),
        "docs/from-python.md says codec has none of what it has:\n{}",
        stale.join("\n")
    );
    assert!(
        missing.is_empty(),
        "docs/from-python.md names what codec does not have:\n{}",
        missing.join("\n")
    );
}

/// The README, then the guide's chapters (`docs/guide/*.md`), by name.
fn readme_and_guide(root: &Path) -> Vec<(String, String)> {
    let mut chapters: Vec<_> = std::fs::read_dir(root.join("docs/guide"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "md"))
        .map(|path| {
            let name = format!("docs/guide/{}", path.file_name().unwrap().to_string_lossy());
            (name, std::fs::read_to_string(&path).unwrap())
        })
        .collect();
    chapters.sort();
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    // A guide that lost its chapters would pass every check below.
    assert!(
        chapters.len() >= 8,
        "only {} chapters in docs/guide",
        chapters.len()
    );
    [("README.md".to_owned(), readme)]
        .into_iter()
        .chain(chapters)
        .collect()
}

/// The lines of a markdown text outside its fenced code blocks (the
/// samples, which `cargo test --doc` compiles).
fn prose(text: &str) -> String {
    let mut fenced = false;
    let mut out = String::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// The code spans of `prose` (in backticks), each with the text before it
/// back to the span before.
fn spans(prose: &str) -> Vec<(&str, String)> {
    let parts: Vec<&str> = prose.split('`').collect();
    (1..parts.len())
        .step_by(2)
        .map(|i| (parts[i - 1], parts[i].replace('\n', " ")))
        .collect()
}

/// Names of std's types, which the guide names in backticks beside codec's.
const STD: &str = "\
    Arc Box BTreeMap BTreeSet Cow Default Duration HashMap HashSet IpAddr \
    Ipv4Addr Ipv6Addr NonZero Option PathBuf PhantomData Rc Result SocketAddr \
    String SystemTime Vec VecDeque";

/// Names of other crates' items (serde, chrono, ndarray, arrow, polars,
/// object_store, msgspec...).
const OTHER_CRATES: &str = "\
    Any Array DataFrame DateTime Decimal Deserialize FixedOffset InMemory Json \
    JsonSchema LargeList Meta NaiveDate NaiveDateTime NaiveTime ObjectStore \
    PutMode RecordBatch Serialize TimeDelta Utc Utf8View Uuid";

/// Names of the types the samples declare.
const SAMPLES: &str = "\
    Blob Chunk Client Event Job Model MyError Page Settings Text TextFiles TextPages Value \
    Wrapper";

/// Names the generated Python module defines (`codec::python::Module`).
const PYTHON: &str = "StoredValueError ArrayF8D2";

/// Whether `name` is not one of codec's Rust items, but one of std, of
/// another crate, of a sample or of the generated Python module.
fn not_codecs(name: &str) -> bool {
    [STD, OTHER_CRATES, SAMPLES, PYTHON]
        .iter()
        .any(|names| names.split_whitespace().any(|n| n == name))
}

#[test]
fn the_readme_and_the_guide_name_only_apis_that_exist() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let (code, derive) = codec_sources(root);
    let mut missing = Vec::new();
    for (file, text) in readme_and_guide(root) {
        let mut checked = 0;
        for (_, span) in spans(&prose(&text)) {
            let mut found = Vec::new();
            checked += check_span(&span, &code, &derive, &mut found);
            missing.extend(found.into_iter().map(|m| format!("{file}: {m}")));
        }
        // A chapter whose names all go unchecked would pass: each names some.
        assert!(checked >= 3, "only {checked} names checked in {file}");
    }
    assert!(
        missing.is_empty(),
        "the README and the guide name what codec does not have:\n{}",
        missing.join("\n")
    );
}

/// Whether `name` is a snake_case identifier, as test functions are named.
fn is_test_name(name: &str) -> bool {
    name.contains('_')
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

/// Files the guide tells users to write in their own package.
const USERS_FILES: &[&str] = &["tests/schema_drift.rs"];

#[test]
fn the_tests_the_readme_and_the_guide_cite_exist() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut missing = Vec::new();
    let mut checked = 0;
    for (file, text) in readme_and_guide(root) {
        // `tests/x.rs` `a_test`, `another`: the test functions that follow a
        // test file, separated by commas or spaces only.
        let mut current: Option<String> = None;
        for (before, span) in spans(&prose(&text)) {
            let path = span.trim();
            if path.ends_with(".rs") && path.contains("tests/") {
                if USERS_FILES.contains(&path) {
                    current = None;
                    continue;
                }
                if let Some((dir, _)) = path.split_once('*') {
                    // A pattern (`ui/fail/memoize-*.rs`): its folder exists.
                    assert!(
                        root.join(dir).parent().unwrap().is_dir(),
                        "{file} cites {path}"
                    );
                    current = None;
                    continue;
                }
                assert!(
                    root.join(path).is_file(),
                    "{file} cites {path}, which does not exist"
                );
                current = Some(std::fs::read_to_string(root.join(path)).unwrap());
                continue;
            }
            let follows = before.chars().all(|c| c == ',' || c.is_whitespace());
            match &current {
                Some(source) if follows && is_test_name(path) => {
                    if !has_line(
                        source,
                        &[
                            format!("fn {path}"),
                            format!("pub fn {path}"),
                            format!("async fn {path}"),
                        ],
                    ) {
                        missing.push(format!("{file}: {path}"));
                    }
                    checked += 1;
                }
                _ => current = None,
            }
        }
    }
    assert!(checked >= 30, "only {checked} cited tests found");
    assert!(
        missing.is_empty(),
        "the README and the guide cite tests that do not exist:\n{}",
        missing.join("\n")
    );
}

#[test]
fn the_readme_s_two_commands_are_the_project_s() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let section = readme.split("## Two commands").nth(1).unwrap();
    let block = section
        .split("```sh")
        .nth(1)
        .unwrap()
        .split("```")
        .next()
        .unwrap();
    let commands: Vec<&str> = block
        .lines()
        .map(|line| line.split('#').next().unwrap().trim())
        .filter(|line| !line.is_empty())
        .collect();
    let [run, test] = commands[..] else {
        panic!("the README's first block holds {commands:?}, not two commands")
    };
    let example = run.strip_prefix("cargo run --example ").unwrap();
    assert!(
        root.join("examples")
            .join(format!("{example}.rs"))
            .is_file(),
        "{run}"
    );
    let ci = std::fs::read_to_string(root.join(".ci/run")).unwrap();
    assert!(test.starts_with("cargo test"), "{test}");
    assert!(
        ci.lines().any(|line| line.trim() == test),
        ".ci/run does not run `{test}`"
    );
    assert!(
        ci.contains(&format!("/examples/{example}\"")),
        ".ci/run does not run the example {example}"
    );
}

#[test]
fn every_guide_chapter_is_a_doc_tested_module_linked_from_the_readme() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let lib = std::fs::read_to_string(root.join("src/lib.rs")).unwrap();
    let chapters = readme_and_guide(root);
    let readme = &chapters[0].1;
    assert!(
        lib.contains("#[doc = include_str!(\"../README.md\")]"),
        "the README's samples are not doc tests"
    );
    for (file, _) in &chapters[1..] {
        assert!(
            lib.contains(&format!("#[doc = include_str!(\"../{file}\")]")),
            "{file} is no module of codec::guide in src/lib.rs: its samples would not run"
        );
        assert!(
            readme.contains(&format!("]({file})")),
            "the README does not link {file}"
        );
    }
}
