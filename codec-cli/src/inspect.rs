//! `codec inspect`: the live entries as a table sized to its data, or as
//! JSON lines for scripts.

use std::io::Write;
use std::process::ExitCode;

use codec::store::EntryInfo;

use crate::location::Location;
use crate::{open, warn, Outcome};

const HEADERS: [&str; 6] = ["key", "type", "handler", "mode", "bytes", "fingerprint"];

/// A key as the table shows it: as is when that is unambiguous, else
/// quoted and escaped as Rust writes a string (`" lead"`, `"a\u{200b}b"`,
/// `"a\nb"` for a key stored before control characters were refused), so
/// that no key reads as another, as blank, or as two lines.
pub fn shown_key(key: &str) -> String {
    let plain = !key.is_empty()
        && !key.starts_with([' ', '"'])
        && !key.ends_with(' ')
        && key
            .chars()
            .all(|c| matches!(c, '"' | '\'' | '\\') || c.escape_debug().len() == 1);
    if plain {
        key.to_owned()
    } else {
        format!("\"{}\"", key.escape_debug())
    }
}

fn cells(e: &EntryInfo) -> [String; 6] {
    [
        shown_key(&e.key),
        e.type_name.clone().unwrap_or_else(|| "-".into()),
        e.handler.clone(),
        format!("{:?}", e.mode).to_lowercase(),
        e.size.to_string(),
        e.fingerprint.clone().unwrap_or_else(|| "-".into()),
    ]
}

pub fn inspect(out: &mut impl Write, dir: &Location, prefix: Option<&str>, json: bool) -> Outcome {
    let cache = open(dir)?;
    let mut entries = cache.entries()?;
    if let Some(prefix) = prefix {
        entries.retain(|e| e.key.starts_with(prefix));
    }
    if json {
        for e in &entries {
            let mut line = serde_json::json!({
                "key": e.key,
                "type": e.type_name,
                "handler": e.handler,
                "mode": format!("{:?}", e.mode).to_lowercase(),
                "bytes": e.size,
                "fingerprint": e.fingerprint,
            });
            if let Some(table) = e.table() {
                line["rows"] = table.rows.into();
                line["schema"] = table.schema.into();
            }
            writeln!(out, "{line}")?;
        }
    } else {
        table(out, &entries)?;
    }
    for w in cache.warnings() {
        warn(format_args!("warning: {w}"));
    }
    Ok(ExitCode::SUCCESS)
}

/// Columns as wide as their widest cell; sizes right-aligned.
fn table(out: &mut impl Write, entries: &[EntryInfo]) -> std::io::Result<()> {
    let rows: Vec<[String; 6]> = entries.iter().map(cells).collect();
    let mut widths = HEADERS.map(|h| h.chars().count());
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |out: &mut dyn Write, row: [&str; 6]| {
        let [key, ty, handler, mode, bytes, fp] = row;
        writeln!(
            out,
            "{key:<w0$}  {ty:<w1$}  {handler:<w2$}  {mode:<w3$}  {bytes:>w4$}  {fp}",
            w0 = widths[0],
            w1 = widths[1],
            w2 = widths[2],
            w3 = widths[3],
            w4 = widths[4],
        )
    };
    line(out, HEADERS)?;
    for (row, entry) in rows.iter().zip(entries) {
        line(out, row.each_ref().map(String::as_str))?;
        // An Arrow table's rows and schema, on a line of their own.
        if let Some(table) = entry.table() {
            writeln!(out, "    {} rows: {}", table.rows, table.schema)?;
        }
    }
    let total: u64 = entries.iter().map(|e| e.size).sum();
    writeln!(out, "{} entries, {total} bytes of payload", entries.len())
}

#[cfg(test)]
mod tests {
    use super::shown_key;

    #[test]
    fn keys_are_shown_as_is_unless_they_could_be_misread() {
        for key in ["chunk/42", "a b", "ключ", "it's", "a\"b", "C:\\x"] {
            assert_eq!(shown_key(key), key);
        }
        for (key, shown) in [
            ("", r#""""#),
            (" lead", r#"" lead""#),
            ("trail ", r#""trail ""#),
            ("\"q\"", r#""\"q\"""#),
            ("a\nb", r#""a\nb""#),
            ("a\u{200b}b", r#""a\u{200b}b""#),
            ("rtl\u{202e}", r#""rtl\u{202e}""#),
        ] {
            assert_eq!(shown_key(key), shown, "{key:?}");
        }
    }
}
