//! `codec inspect`: the live entries as a table sized to its data, or as
//! JSON lines for scripts.

use std::io::Write;
use std::process::ExitCode;

use codec::store::Used;

use crate::location::Location;
use crate::{open, warn, Outcome};

const HEADERS: [&str; 8] = [
    "key",
    "type",
    "handler",
    "mode",
    "bytes",
    "last used (UTC)",
    "expires (UTC)",
    "fingerprint",
];

/// Nanoseconds since the Unix epoch as a UTC date and time to the second
/// (`2026-11-27 13:45:02`), by the proleptic Gregorian calendar.
pub fn utc(nanos: u64) -> String {
    let secs = nanos / 1_000_000_000;
    let (days, rest) = (secs / 86_400, secs % 86_400);
    // Howard Hinnant's civil_from_days, for days since 1970-01-01.
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02}",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

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

fn cells(used: &Used) -> [String; 8] {
    let e = &used.entry;
    [
        shown_key(&e.key),
        e.type_name.clone().unwrap_or_else(|| "-".into()),
        e.handler.clone(),
        format!("{:?}", e.mode).to_lowercase(),
        e.size.to_string(),
        utc(used.last_used),
        e.expires.map_or_else(|| "never".into(), utc),
        e.fingerprint.clone().unwrap_or_else(|| "-".into()),
    ]
}

pub fn inspect(out: &mut impl Write, dir: &Location, prefix: Option<&str>, json: bool) -> Outcome {
    let cache = open(dir)?;
    let mut entries = cache.admin().entries_by_use()?;
    entries.sort_by(|a, b| a.entry.key.cmp(&b.entry.key));
    if let Some(prefix) = prefix {
        entries.retain(|u| u.entry.key.starts_with(prefix));
    }
    if json {
        for used in &entries {
            let e = &used.entry;
            let mut line = serde_json::json!({
                "key": e.key,
                "type": e.type_name,
                "handler": e.handler,
                "mode": format!("{:?}", e.mode).to_lowercase(),
                "bytes": e.size,
                "last_used": utc(used.last_used),
                "last_used_ns": used.last_used,
                "expires": e.expires.map(utc),
                "expires_ns": e.expires,
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
fn table(out: &mut impl Write, entries: &[Used]) -> std::io::Result<()> {
    let rows: Vec<[String; 8]> = entries.iter().map(cells).collect();
    let mut widths = HEADERS.map(|h| h.chars().count());
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |out: &mut dyn Write, row: [&str; 8]| {
        let [key, ty, handler, mode, bytes, used, expires, fp] = row;
        writeln!(
            out,
            "{key:<w0$}  {ty:<w1$}  {handler:<w2$}  {mode:<w3$}  {bytes:>w4$}  {used:<w5$}  {expires:<w6$}  {fp}",
            w0 = widths[0],
            w1 = widths[1],
            w2 = widths[2],
            w3 = widths[3],
            w4 = widths[4],
            w5 = widths[5],
            w6 = widths[6],
        )
    };
    line(out, HEADERS)?;
    for (row, used) in rows.iter().zip(entries) {
        line(out, row.each_ref().map(String::as_str))?;
        // An Arrow table's rows and schema, on a line of their own.
        if let Some(table) = used.entry.table() {
            writeln!(out, "    {} rows: {}", table.rows, table.schema)?;
        }
    }
    let total: u64 = entries.iter().map(|u| u.entry.size).sum();
    writeln!(out, "{} entries, {total} bytes of payload", entries.len())
}

#[cfg(test)]
mod tests {
    use super::{shown_key, utc};

    #[test]
    fn times_are_shown_as_utc_dates() {
        assert_eq!(utc(0), "1970-01-01 00:00:00");
        assert_eq!(utc(951_782_400_000_000_000), "2000-02-29 00:00:00");
        assert_eq!(utc(1_795_786_502_999_999_999), "2026-11-27 13:35:02");
    }

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
