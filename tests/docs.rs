//! The guides under `docs/` name only APIs that exist: each codec name in
//! backticks is looked up in the sources (a rename that leaves a guide
//! behind fails here, as a broken intra-doc link fails `cargo doc`).

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
    if !span.contains("::") && span.starts_with(|c: char| c.is_ascii_uppercase()) && is_ident(span)
    {
        if !item_exists(code, span) {
            missing.push(span.to_owned());
        }
        checked += 1;
    }
    checked
}

#[test]
fn the_python_guide_names_only_apis_that_exist() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut code = Vec::new();
    sources(&root.join("codec-runtime/src"), &mut code);
    sources(&root.join("codec-store/src"), &mut code);
    sources(&root.join("src"), &mut code);
    // The keys `#[codec(..)]` takes (not the serde keys it reports).
    let derive = ["attr.rs", "constraints.rs"]
        .map(|f| std::fs::read_to_string(root.join("codec-derive/src").join(f)).unwrap())
        .concat();

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
    assert!(
        missing.is_empty(),
        "docs/from-python.md names what codec does not have:\n{}",
        missing.join("\n")
    );
}
