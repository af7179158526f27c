//! Calendar and ISO 8601 helpers for the time types: RFC 3339 timestamps and
//! ISO 8601 durations, written as msgspec writes them.
//!
//! Written here rather than taken from a time crate so the standard types
//! need no dependency; the `chrono` feature reuses them.

/// Days since 1970-01-01 of a civil date (proleptic Gregorian).
pub fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = month as i64;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + day as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The civil date (year, month, day) of a day count since 1970-01-01.
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + (month <= 2) as i64;
    (year, month, day)
}

/// The fraction of a second: none, or 3, 6 or 9 digits, the fewest that are exact.
fn fraction(nanos: u32) -> String {
    if nanos == 0 {
        String::new()
    } else if nanos.is_multiple_of(1_000_000) {
        format!(".{:03}", nanos / 1_000_000)
    } else if nanos.is_multiple_of(1_000) {
        format!(".{:06}", nanos / 1_000)
    } else {
        format!(".{nanos:09}")
    }
}

/// `secs`/`nanos` since the epoch as RFC 3339 in UTC: `2024-05-01T12:00:00.5Z`
/// (3, 6 or 9 fraction digits as needed). Years outside 0001..=9999 are an error.
pub fn format_rfc3339(secs: i64, nanos: u32) -> Result<String, String> {
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let (year, month, day) = civil_from_days(days);
    if !(1..=9999).contains(&year) {
        return Err(format!(
            "year {year} is outside the RFC 3339 range 0001..=9999"
        ));
    }
    Ok(format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}{}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        fraction(nanos)
    ))
}

fn digits(s: &str, what: &str) -> Result<u32, String> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("expected digits for the {what}, found `{s}`"));
    }
    s.parse()
        .map_err(|_| format!("the {what} `{s}` is too large"))
}

/// Parses RFC 3339 (`T`, `t` or a space between date and time; `Z` or an
/// offset; up to 9 fraction digits) into seconds and nanoseconds since the epoch.
pub fn parse_rfc3339(s: &str) -> Result<(i64, u32), String> {
    let bad = || format!("`{s}` is not an RFC 3339 timestamp like 2024-05-01T12:00:00Z");
    if s.len() < 20 || !s.is_ascii() {
        return Err(bad());
    }
    let b = s.as_bytes();
    if b[4] != b'-'
        || b[7] != b'-'
        || !matches!(b[10], b'T' | b't' | b' ')
        || b[13] != b':'
        || b[16] != b':'
    {
        return Err(bad());
    }
    let year = digits(&s[0..4], "year")? as i64;
    let month = digits(&s[5..7], "month")?;
    let day = digits(&s[8..10], "day")?;
    let (hour, minute, second) = (
        digits(&s[11..13], "hour")?,
        digits(&s[14..16], "minute")?,
        digits(&s[17..19], "second")?,
    );
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let month_days = [
        31,
        if leap { 29 } else { 28 },
        31,
        30,
        31,
        30,
        31,
        31,
        30,
        31,
        30,
        31,
    ];
    if !(1..=12).contains(&month)
        || day == 0
        || day > month_days[month as usize - 1]
        || hour > 23
        || minute > 59
        || second > 59
    {
        return Err(format!("`{s}` names a date or time that does not exist"));
    }
    let mut rest = &s[19..];
    let mut nanos = 0u32;
    if let Some(frac) = rest.strip_prefix('.') {
        let n = frac.bytes().take_while(u8::is_ascii_digit).count();
        if n == 0 || n > 9 {
            return Err(format!("`{s}`: the fraction of a second has 1 to 9 digits"));
        }
        nanos = digits(&frac[..n], "fraction")? * 10u32.pow(9 - n as u32);
        rest = &frac[n..];
    }
    let offset = match rest {
        "Z" | "z" => 0,
        _ if rest.len() == 6
            && matches!(rest.as_bytes()[0], b'+' | b'-')
            && rest.as_bytes()[3] == b':' =>
        {
            let minutes = digits(&rest[1..3], "offset hours")? as i64 * 60
                + digits(&rest[4..6], "offset minutes")? as i64;
            if rest.starts_with('-') {
                -minutes
            } else {
                minutes
            }
        }
        _ => return Err(bad()),
    };
    let days = days_from_civil(year, month, day);
    let secs = days * 86_400 + (hour * 3600 + minute * 60 + second) as i64 - offset * 60;
    Ok((secs, nanos))
}

/// A duration as ISO 8601: `PT0S`, `PT1.5S`, `PT90061.000000001S`.
pub fn format_iso_duration(secs: u64, nanos: u32) -> String {
    let frac = if nanos == 0 {
        String::new()
    } else {
        let text = format!(".{nanos:09}");
        text.trim_end_matches('0').to_owned()
    };
    format!("PT{secs}{frac}S")
}

/// Parses an ISO 8601 duration `P[nW][nD][T[nH][nM][n[.f]S]]` (no years or
/// months: their length varies) into seconds and nanoseconds.
pub fn parse_iso_duration(s: &str) -> Result<(u64, u32), String> {
    let bad = |why: &str| format!("`{s}` is not an ISO 8601 duration like PT1.5S: {why}");
    let body = s
        .strip_prefix('P')
        .ok_or_else(|| bad("it must start with `P`"))?;
    if body.is_empty() || body == "T" {
        return Err(bad("it has no components"));
    }
    let (date, time) = match body.split_once('T') {
        Some((d, t)) if !t.is_empty() => (d, Some(t)),
        Some(_) => return Err(bad("`T` must be followed by a component")),
        None => (body, None),
    };
    let mut secs: u64 = 0;
    let mut nanos: u32 = 0;
    let overflow = || bad("it is too long");
    let mut add = |n: u64, unit: u64| -> Result<(), String> {
        secs = n
            .checked_mul(unit)
            .and_then(|v| v.checked_add(secs))
            .ok_or_else(overflow)?;
        Ok(())
    };
    let parse_part = |part: &str,
                      units: &[(char, u64)],
                      allow_fraction: bool|
     -> Result<Vec<(char, u64, u32)>, String> {
        let mut out = Vec::new();
        let mut rest = part;
        let mut next_unit = 0;
        while !rest.is_empty() {
            let n = rest
                .bytes()
                .take_while(|b| b.is_ascii_digit() || *b == b'.')
                .count();
            let (number, tail) = rest.split_at(n);
            let unit = tail
                .chars()
                .next()
                .ok_or_else(|| bad("a number lacks its unit"))?;
            let pos = units[next_unit..]
                .iter()
                .position(|(u, _)| *u == unit)
                .ok_or_else(|| bad("unknown or misplaced unit"))?;
            next_unit += pos + 1;
            let (whole, frac) = match number.split_once('.') {
                Some((w, f)) if allow_fraction && unit == 'S' && !f.is_empty() && f.len() <= 9 => {
                    (w, f)
                }
                Some(_) => return Err(bad("only seconds take a fraction, of 1 to 9 digits")),
                None => (number, ""),
            };
            if whole.is_empty() || !whole.bytes().all(|b| b.is_ascii_digit()) {
                return Err(bad("a component is not a number"));
            }
            let whole: u64 = whole.parse().map_err(|_| overflow())?;
            let frac_nanos = if frac.is_empty() {
                0
            } else {
                frac.parse::<u32>().map_err(|_| overflow())? * 10u32.pow(9 - frac.len() as u32)
            };
            out.push((unit, whole, frac_nanos));
            rest = &tail[1..];
        }
        Ok(out)
    };
    const DATE: &[(char, u64)] = &[('W', 604_800), ('D', 86_400)];
    const TIME: &[(char, u64)] = &[('H', 3600), ('M', 60), ('S', 1)];
    let mut parts = parse_part(date, DATE, false)?;
    if let Some(time) = time {
        parts.extend(parse_part(time, TIME, true)?);
    }
    for (unit, whole, frac) in parts {
        let scale = DATE
            .iter()
            .chain(TIME)
            .find(|(u, _)| *u == unit)
            .map_or(1, |(_, s)| *s);
        add(whole, scale)?;
        nanos += frac;
    }
    Ok((secs, nanos))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_round_trip() {
        for days in [-719_162, -1, 0, 1, 11_016, 2_932_896] {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days);
        }
        assert_eq!(civil_from_days(0), (1970, 1, 1));
    }

    #[test]
    fn rfc3339() {
        assert_eq!(format_rfc3339(1, 0).unwrap(), "1970-01-01T00:00:01Z");
        assert_eq!(
            format_rfc3339(-1, 500_000_000).unwrap(),
            "1969-12-31T23:59:59.500Z"
        );
        assert_eq!(
            format_rfc3339(0, 1_000).unwrap(),
            "1970-01-01T00:00:00.000001Z"
        );
        assert_eq!(parse_rfc3339("1970-01-01T00:00:01Z").unwrap(), (1, 0));
        assert_eq!(
            parse_rfc3339("1970-01-01 01:00:01.25+01:00").unwrap(),
            (1, 250_000_000)
        );
        assert!(parse_rfc3339("2023-02-29T00:00:00Z").is_err());
        assert!(parse_rfc3339("nope").is_err());
        assert!(format_rfc3339(i64::MAX / 2, 0).is_err());
    }

    #[test]
    fn durations() {
        assert_eq!(format_iso_duration(0, 0), "PT0S");
        assert_eq!(format_iso_duration(1, 500_000_000), "PT1.5S");
        assert_eq!(parse_iso_duration("PT1.5S").unwrap(), (1, 500_000_000));
        assert_eq!(
            parse_iso_duration("P1DT2H3M4.000000005S").unwrap(),
            (93_784, 5)
        );
        assert_eq!(parse_iso_duration("P2W").unwrap(), (1_209_600, 0));
        for bad in [
            "",
            "P",
            "PT",
            "1S",
            "PT1.S",
            "PTS",
            "PT1X",
            "P1H",
            "PT1S2M",
            "-PT1S",
            "PT99999999999999999999S",
        ] {
            assert!(parse_iso_duration(bad).is_err(), "{bad}");
        }
    }
}
