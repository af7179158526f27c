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

/// The fraction of a second as msgspec writes it: none, or 6 digits
/// (microseconds, Python's precision); 9 digits when the nanoseconds are not
/// whole microseconds, so no precision is lost.
pub fn fraction(nanos: u32) -> String {
    if nanos == 0 {
        String::new()
    } else if nanos.is_multiple_of(1_000) {
        format!(".{:06}", nanos / 1_000)
    } else {
        format!(".{nanos:09}")
    }
}

/// A UTC offset in seconds as msgspec writes it: `Z` for zero, else
/// `+HH:MM` (`+HH:MM:SS` when it has seconds).
pub fn format_offset(offset: i32) -> String {
    if offset == 0 {
        return "Z".to_owned();
    }
    let sign = if offset < 0 { '-' } else { '+' };
    let abs = offset.unsigned_abs();
    let (h, m, s) = (abs / 3600, abs % 3600 / 60, abs % 60);
    if s == 0 {
        format!("{sign}{h:02}:{m:02}")
    } else {
        format!("{sign}{h:02}:{m:02}:{s:02}")
    }
}

/// A time of day: `HH:MM:SS`, the fraction as [`fraction`] writes it, then
/// the offset if there is one.
pub fn format_time(secs_of_day: u32, nanos: u32, offset: Option<i32>) -> String {
    format!(
        "{:02}:{:02}:{:02}{}{}",
        secs_of_day / 3600,
        secs_of_day % 3600 / 60,
        secs_of_day % 60,
        fraction(nanos),
        offset.map(format_offset).unwrap_or_default()
    )
}

/// A date and time given as wall-clock seconds since 1970-01-01T00:00:00,
/// followed by its offset if it has one (none for a naive date and time).
/// Years outside 0001..=9999 are an error.
pub fn format_datetime(local_secs: i64, nanos: u32, offset: Option<i32>) -> Result<String, String> {
    let days = local_secs.div_euclid(86_400);
    let (year, month, day) = civil_from_days(days);
    if !(1..=9999).contains(&year) {
        return Err(format!(
            "year {year} is outside the RFC 3339 range 0001..=9999"
        ));
    }
    let time = format_time(local_secs.rem_euclid(86_400) as u32, nanos, offset);
    Ok(format!("{year:04}-{month:02}-{day:02}T{time}"))
}

/// `secs`/`nanos` since the epoch as RFC 3339 in UTC, as msgspec writes it:
/// `2024-05-01T12:00:00.500000Z` (6 fraction digits, 9 for sub-microsecond
/// times). Years outside 0001..=9999 are an error.
pub fn format_rfc3339(secs: i64, nanos: u32) -> Result<String, String> {
    format_datetime(secs, nanos, Some(0))
}

fn digits(s: &str, what: &str) -> Result<u32, String> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("expected digits for the {what}, found `{s}`"));
    }
    s.parse()
        .map_err(|_| format!("the {what} `{s}` is too large"))
}

/// A date and time read from text: wall-clock seconds since
/// 1970-01-01T00:00:00, nanoseconds, and the UTC offset in seconds if the text
/// has one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParsedDateTime {
    /// Wall-clock seconds since 1970-01-01T00:00:00 (not adjusted for the offset).
    pub local_secs: i64,
    /// Nanoseconds within the second.
    pub nanos: u32,
    /// The UTC offset in seconds; `None` for a naive date and time.
    pub offset: Option<i32>,
}

impl ParsedDateTime {
    /// Seconds since the Unix epoch, if the text had an offset.
    pub fn utc_secs(&self) -> Option<i64> {
        self.offset.map(|o| self.local_secs - i64::from(o))
    }
}

/// Parses `YYYY-MM-DD` into days since 1970-01-01.
pub fn parse_date(s: &str) -> Result<i64, String> {
    let b = s.as_bytes();
    if s.len() != 10 || !s.is_ascii() || b[4] != b'-' || b[7] != b'-' {
        return Err(format!("`{s}` is not a date like 2024-05-01"));
    }
    let year = digits(&s[0..4], "year")? as i64;
    let month = digits(&s[5..7], "month")?;
    let day = digits(&s[8..10], "day")?;
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
    if year == 0 || !(1..=12).contains(&month) || day == 0 || day > month_days[month as usize - 1] {
        return Err(format!("`{s}` names a date that does not exist"));
    }
    Ok(days_from_civil(year, month, day))
}

/// Parses a time of day as msgspec accepts it: `HH:MM:SS`, an optional
/// fraction (digits past the ninth are dropped), an optional offset (`Z`,
/// `z`, `+HH:MM` or `+HHMM`). Returns seconds of the day, nanoseconds and
/// the offset in seconds.
pub fn parse_time(s: &str) -> Result<(u32, u32, Option<i32>), String> {
    let bad = || format!("`{s}` is not a time like 12:30:00, 12:30:00.5 or 12:30:00+02:00");
    let b = s.as_bytes();
    if s.len() < 8 || !s.is_ascii() || b[2] != b':' || b[5] != b':' {
        return Err(bad());
    }
    let (hour, minute, second) = (
        digits(&s[0..2], "hour")?,
        digits(&s[3..5], "minute")?,
        digits(&s[6..8], "second")?,
    );
    if hour > 23 || minute > 59 || second > 59 {
        return Err(format!("`{s}` names a time that does not exist"));
    }
    let mut rest = &s[8..];
    let mut nanos = 0u32;
    if let Some(frac) = rest.strip_prefix('.') {
        let n = frac.bytes().take_while(u8::is_ascii_digit).count();
        if n == 0 {
            return Err(format!(
                "`{s}`: a `.` must be followed by the fraction's digits"
            ));
        }
        let kept = n.min(9);
        nanos = digits(&frac[..kept], "fraction")? * 10u32.pow(9 - kept as u32);
        rest = &frac[n..];
    }
    let offset = match rest.as_bytes() {
        [] => None,
        [b'Z' | b'z'] => Some(0),
        [sign @ (b'+' | b'-'), h1, h2, b':', m1, m2] | [sign @ (b'+' | b'-'), h1, h2, m1, m2] => {
            let text = |a: &u8, b: &u8| String::from_utf8_lossy(&[*a, *b]).into_owned();
            let hours = digits(&text(h1, h2), "offset hours")?;
            let minutes = digits(&text(m1, m2), "offset minutes")?;
            if hours > 23 || minutes > 59 {
                return Err(format!("`{s}` has an offset beyond 23:59"));
            }
            let secs = (hours * 3600 + minutes * 60) as i32;
            Some(if *sign == b'-' { -secs } else { secs })
        }
        _ => return Err(bad()),
    };
    Ok((hour * 3600 + minute * 60 + second, nanos, offset))
}

/// Parses a date and time as msgspec accepts it: RFC 3339 (`T`, `t` or a
/// space between date and time), the offset optional (a naive date and time)
/// and written `Z`, `+HH:MM` or `+HHMM`, the fraction of any length (digits
/// past the ninth are dropped).
pub fn parse_datetime(s: &str) -> Result<ParsedDateTime, String> {
    let bad = || format!("`{s}` is not an RFC 3339 timestamp like 2024-05-01T12:00:00Z");
    if s.len() < 19 || !s.is_ascii() || !matches!(s.as_bytes()[10], b'T' | b't' | b' ') {
        return Err(bad());
    }
    let days = parse_date(&s[..10]).map_err(|e| format!("{}: {e}", bad()))?;
    let (secs_of_day, nanos, offset) =
        parse_time(&s[11..]).map_err(|e| format!("{}: {e}", bad()))?;
    Ok(ParsedDateTime {
        local_secs: days * 86_400 + i64::from(secs_of_day),
        nanos,
        offset,
    })
}

/// Parses an aware RFC 3339 timestamp (see [`parse_datetime`]) into seconds
/// and nanoseconds since the epoch; a timestamp without an offset is an error.
pub fn parse_rfc3339(s: &str) -> Result<(i64, u32), String> {
    let parsed = parse_datetime(s)?;
    match parsed.utc_secs() {
        Some(secs) => Ok((secs, parsed.nanos)),
        None => Err(format!(
            "`{s}` has no UTC offset; add `Z` or one like +02:00 (this type holds an instant)"
        )),
    }
}

/// A duration as msgspec writes a `timedelta`: `P1DT30S`, `PT1.5S`, `P0D`,
/// `-PT1.5S` (whole days, then the remaining seconds with their fraction,
/// trailing zeros dropped; nanoseconds kept).
pub fn format_iso_duration(negative: bool, secs: u64, nanos: u32) -> String {
    let mut out = String::new();
    if negative && (secs != 0 || nanos != 0) {
        out.push('-');
    }
    out.push('P');
    let (days, rem) = (secs / 86_400, secs % 86_400);
    if days != 0 {
        out.push_str(&format!("{days}D"));
    }
    if rem != 0 || nanos != 0 {
        out.push_str(&format!("T{rem}"));
        if nanos != 0 {
            out.push_str(format!(".{nanos:09}").trim_end_matches('0'));
        }
        out.push('S');
    } else if days == 0 {
        out.push_str("0D");
    }
    out
}

/// Parses an ISO 8601 duration as msgspec accepts it: an optional sign, `P`,
/// then `nW`, `nD`, and after `T` `nH`, `nM`, `nS`, in that order, each
/// optional, any of them with a fraction (up to 9 digits), letters in either
/// case. Years and months are refused: their length varies. Returns whether
/// it is negative, the seconds and the nanoseconds.
pub fn parse_iso_duration(s: &str) -> Result<(bool, u64, u32), String> {
    let bad = |why: &str| format!("`{s}` is not an ISO 8601 duration like PT1.5S: {why}");
    let (negative, rest) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let body = rest
        .strip_prefix(['P', 'p'])
        .ok_or_else(|| bad("it must start with `P`"))?;
    const UNITS: [(u8, u64, bool); 5] = [
        (b'W', 604_800, false),
        (b'D', 86_400, false),
        (b'H', 3600, true),
        (b'M', 60, true),
        (b'S', 1, true),
    ];
    let mut total: u128 = 0; // nanoseconds
    let mut next_unit = 0;
    let mut in_time = false;
    let mut components = 0;
    let mut rest = body.as_bytes();
    while let Some(&first) = rest.first() {
        if first.eq_ignore_ascii_case(&b'T') {
            if in_time {
                return Err(bad("`T` appears twice"));
            }
            in_time = true;
            next_unit = 2;
            rest = &rest[1..];
            if rest.is_empty() {
                return Err(bad("`T` must be followed by a component"));
            }
            continue;
        }
        let whole_len = rest.iter().take_while(|b| b.is_ascii_digit()).count();
        let (whole, tail) = rest.split_at(whole_len);
        let (frac, tail) = match tail.strip_prefix(b".") {
            Some(t) => match t.iter().take_while(|b| b.is_ascii_digit()).count() {
                0 => return Err(bad("a `.` must be followed by digits")),
                n => t.split_at(n),
            },
            None => (&[][..], tail),
        };
        if whole.is_empty() {
            return Err(bad("a component is not a number"));
        }
        if frac.len() > 9 {
            return Err(bad("a fraction has more than 9 digits"));
        }
        let unit = tail
            .first()
            .ok_or_else(|| bad("a number lacks its unit"))?
            .to_ascii_uppercase();
        if unit == b'Y' || (unit == b'M' && !in_time) {
            return Err(bad("years and months have no fixed length; use days"));
        }
        let pos = UNITS[next_unit..]
            .iter()
            .position(|(u, _, time)| *u == unit && *time == in_time)
            .ok_or_else(|| bad("unknown or misplaced unit"))?;
        let scale = UNITS[next_unit + pos].1 as u128 * 1_000_000_000;
        next_unit += pos + 1;
        let too_long = || bad("it is too long");
        let whole: u128 = std::str::from_utf8(whole)
            .ok()
            .and_then(|w| w.parse().ok())
            .filter(|w| *w <= u64::MAX as u128)
            .ok_or_else(too_long)?;
        let frac_value: u128 = std::str::from_utf8(frac)
            .ok()
            .and_then(|f| f.parse().ok())
            .unwrap_or(0);
        let frac_nanos = frac_value * scale / 10u128.pow(frac.len() as u32);
        total = total
            .checked_add(whole * scale + frac_nanos)
            .filter(|t| t / 1_000_000_000 <= u64::MAX as u128)
            .ok_or_else(too_long)?;
        components += 1;
        rest = &tail[1..];
    }
    if components == 0 {
        return Err(bad("it has no components"));
    }
    Ok((
        negative,
        (total / 1_000_000_000) as u64,
        (total % 1_000_000_000) as u32,
    ))
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
    fn every_day_of_eight_centuries_has_its_calendar_date() {
        // 1600 to 2400 holds the starts of two 400-year eras (2000-03-01 and
        // 2400-03-01), the leap days of 1600, 2000 and 2400, and the years
        // 1700, 1800, 1900, 2100, 2200 and 2300, which have none. A wrong year
        // of the era gives a day past a month's end, which `days_from_civil`
        // takes back to the same count: the round trip alone misses it.
        let (mut year, mut month, mut day) = (1600, 1, 1);
        for days in -135_140..157_420 {
            assert_eq!(civil_from_days(days), (year, month, day), "day {days}");
            assert_eq!(days_from_civil(year, month, day), days);
            let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
            let month_len = match month {
                2 if leap => 29,
                2 => 28,
                4 | 6 | 9 | 11 => 30,
                _ => 31,
            };
            day += 1;
            if day > month_len {
                (month, day) = (month % 12 + 1, 1);
                year += i64::from(month == 1);
            }
        }
        assert_eq!((year, month, day), (2401, 1, 1));
    }

    #[test]
    fn dates_exist_by_the_gregorian_rules() {
        for (date, days) in [
            ("2024-02-29", 19_782),
            ("2000-02-29", 11_016),
            ("2024-01-31", 19_753),
        ] {
            assert_eq!(parse_date(date), Ok(days), "{date}");
        }
        for bad in [
            "2023-02-29",
            "1900-02-29",
            "2100-02-29",
            "2024-04-31",
            "2024-00-10",
            "2024-13-01",
            "2024-01-00",
            "2024/05-01",
            "2024-05/01",
            "2024-05-1",
            "2024-05-011",
            "2024-+5-01",
            "2024-05-é",
        ] {
            assert!(parse_date(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn rfc3339_is_written_as_msgspec_writes_it() {
        assert_eq!(format_rfc3339(1, 0).unwrap(), "1970-01-01T00:00:01Z");
        assert_eq!(
            format_rfc3339(-1, 500_000_000).unwrap(),
            "1969-12-31T23:59:59.500000Z"
        );
        assert_eq!(
            format_rfc3339(0, 1_000).unwrap(),
            "1970-01-01T00:00:00.000001Z"
        );
        assert_eq!(
            format_rfc3339(0, 1).unwrap(),
            "1970-01-01T00:00:00.000000001Z"
        );
        assert_eq!(
            format_datetime(0, 0, Some(-19_800)).unwrap(),
            "1970-01-01T00:00:00-05:30"
        );
        assert_eq!(format_datetime(0, 0, None).unwrap(), "1970-01-01T00:00:00");
        assert!(format_rfc3339(i64::MAX / 2, 0).is_err());
    }

    #[test]
    fn rfc3339_reads_every_form_msgspec_accepts() {
        assert_eq!(parse_rfc3339("1970-01-01T00:00:01Z").unwrap(), (1, 0));
        assert_eq!(
            parse_rfc3339("1970-01-01 01:00:01.25+01:00").unwrap(),
            (1, 250_000_000)
        );
        assert_eq!(parse_rfc3339("1970-01-01t01:00:01+0100").unwrap(), (1, 0));
        assert_eq!(parse_rfc3339("1970-01-01T00:00:01-00:00").unwrap(), (1, 0));
        assert_eq!(
            parse_rfc3339("1970-01-01T00:00:00.1234567891z").unwrap(),
            (0, 123_456_789)
        );
        let naive = parse_datetime("1970-01-02T00:00:00").unwrap();
        assert_eq!((naive.local_secs, naive.offset), (86_400, None));
        assert!(parse_rfc3339("1970-01-02T00:00:00").is_err());
        for bad in [
            "2023-02-29T00:00:00Z",
            "nope",
            "2026-01-02T03:04Z",
            "2026-01-02T03:04:05+02",
            "2026-01-02",
            "2026-01-02T24:00:00Z",
            "2026-01-02T03:04:05.Z",
            "0000-01-01T00:00:00Z",
            "2026-01-02X03:04:05Z",
        ] {
            assert!(parse_datetime(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn times_of_day() {
        assert_eq!(format_time(3723, 400_000_000, None), "01:02:03.400000");
        assert_eq!(format_time(3723, 0, Some(0)), "01:02:03Z");
        assert_eq!(
            format_time(3723, 5_000, Some(7200)),
            "01:02:03.000005+02:00"
        );
        assert_eq!(parse_time("01:02:03+0200").unwrap(), (3723, 0, Some(7200)));
        assert_eq!(parse_time("01:02:03.5").unwrap(), (3723, 500_000_000, None));
        assert_eq!(parse_time("23:59:59").unwrap(), (86_399, 0, None));
        assert_eq!(parse_time("00:00:00+23:59").unwrap(), (0, 0, Some(86_340)));
        assert_eq!(parse_time("00:00:00-05:30").unwrap(), (0, 0, Some(-19_800)));
        for bad in [
            "01:02",
            "24:00:00",
            "01:60:00",
            "01:02:60",
            "01:02:03+02",
            "1:02:03",
            "+1:02:03",
            "01-02:03",
            "01:02-03",
            "00:00:00+24:00",
            "00:00:00+00:60",
        ] {
            assert!(parse_time(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn durations_are_written_as_msgspec_writes_timedelta() {
        assert_eq!(format_iso_duration(false, 0, 0), "P0D");
        assert_eq!(format_iso_duration(true, 0, 0), "P0D");
        assert_eq!(format_iso_duration(false, 86_430, 0), "P1DT30S");
        assert_eq!(format_iso_duration(false, 90_000, 0), "P1DT3600S");
        assert_eq!(format_iso_duration(false, 1, 500_000_000), "PT1.5S");
        assert_eq!(format_iso_duration(true, 1, 500_000_000), "-PT1.5S");
        assert_eq!(format_iso_duration(true, 86_400, 0), "-P1D");
        assert_eq!(format_iso_duration(false, 0, 10_000), "PT0.00001S");
        assert_eq!(format_iso_duration(false, 259_200, 1_000), "P3DT0.000001S");
        assert_eq!(format_iso_duration(false, 0, 1), "PT0.000000001S");
    }

    #[test]
    fn durations_read_every_form_msgspec_accepts() {
        assert_eq!(
            parse_iso_duration("PT1.5S").unwrap(),
            (false, 1, 500_000_000)
        );
        assert_eq!(parse_iso_duration("P0D").unwrap(), (false, 0, 0));
        assert_eq!(
            parse_iso_duration("-PT1.5S").unwrap(),
            (true, 1, 500_000_000)
        );
        assert_eq!(parse_iso_duration("+pt1s").unwrap(), (false, 1, 0));
        assert_eq!(parse_iso_duration("PT1.5H").unwrap(), (false, 5400, 0));
        assert_eq!(parse_iso_duration("P1.5D").unwrap(), (false, 129_600, 0));
        assert_eq!(parse_iso_duration("PT1.5M").unwrap(), (false, 90, 0));
        assert_eq!(
            parse_iso_duration("P1DT2H3M4.000000005S").unwrap(),
            (false, 93_784, 5)
        );
        assert_eq!(parse_iso_duration("P2W").unwrap(), (false, 1_209_600, 0));
        for bad in [
            "",
            "P",
            "PT",
            "P1DT",
            "1S",
            "PT1.S",
            "PT.5S",
            "PTS",
            "PT1X",
            "P1H",
            "P1Y",
            "P1M",
            "PT1S2M",
            "--PT1S",
            "PT0.1234567891S",
            "PT99999999999999999999S",
            "P100000000000000W",
            "PT1S1S",
        ] {
            assert!(parse_iso_duration(bad).is_err(), "{bad}");
        }
        for years_or_months in ["P1Y", "P1M"] {
            let message = parse_iso_duration(years_or_months).unwrap_err();
            assert!(message.contains("use days"), "{message}");
        }
    }

    #[test]
    fn arbitrary_text_is_an_error_or_a_value_never_a_panic() {
        let alphabet: Vec<char> = "0123456789PTDHMSWYpt+-.:Zz é𝄞".chars().collect();
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..50_000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let len = (seed % 32) as usize;
            let text: String = (0..len)
                .map(|i| alphabet[((seed >> (i % 8 * 8)) as usize + i * 7) % alphabet.len()])
                .collect();
            for s in [
                text.as_str(),
                &format!("2024-05-01T{text}"),
                &format!("P{text}"),
            ] {
                let _ = parse_iso_duration(s);
                let _ = parse_datetime(s);
                let _ = parse_time(s);
                let _ = parse_date(s);
            }
        }
    }
}
