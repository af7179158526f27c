//! `codec inspect`: the live entries as a table sized to its data, or as
//! JSON lines for scripts.

use std::io::Write;
use std::process::ExitCode;

use codec::store::EntryInfo;

use crate::location::Location;
use crate::{open, warn, Outcome};

const HEADERS: [&str; 6] = ["key", "type", "handler", "mode", "bytes", "fingerprint"];

fn cells(e: &EntryInfo) -> [String; 6] {
    [
        e.key.clone(),
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
