//! The trace of a run: one line per call the store made to the disk, per
//! step of the workload and per fault, shared by the disk and the run.
//!
//! Writer ids and table numbers hold the clock and random bits, which
//! differ between two runs of one seed; the trace names them `w0`, `w1`,
//! `t0`... in the order it first meets them, so that one seed gives one
//! trace.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::{Mutex, MutexGuard};

/// The shared trace.
#[derive(Clone, Default)]
pub struct Trace(Arc<Mutex<Lines>>);

#[derive(Default)]
struct Lines {
    lines: Vec<String>,
    names: HashMap<String, String>,
    writers: usize,
    tables: usize,
}

impl Trace {
    /// Adds `line`, its writer ids and table numbers renamed.
    pub fn push(&self, line: String) {
        let mut t = lock(&self.0);
        let line = t.rename(&line);
        t.lines.push(line);
    }

    /// Every line so far.
    pub fn lines(&self) -> Vec<String> {
        lock(&self.0).lines.clone()
    }

    /// The last `n` lines, one string.
    pub fn tail(&self, n: usize) -> String {
        let t = lock(&self.0);
        let from = t.lines.len().saturating_sub(n);
        t.lines[from..].join("\n")
    }
}

impl Lines {
    fn rename(&mut self, line: &str) -> String {
        let bytes = line.as_bytes();
        let mut out = String::with_capacity(line.len());
        let mut i = 0;
        while i < bytes.len() {
            if let Some(len) = writer_id_at(&bytes[i..]) {
                let id = &line[i..i + len];
                let n = self.writers;
                let alias = self
                    .names
                    .entry(id.to_owned())
                    .or_insert_with(|| format!("w{n}"));
                if alias == &format!("w{n}") {
                    self.writers += 1;
                }
                out.push_str(alias);
                i += len;
            } else if line[i..].starts_with("index/") && bytes.len() >= i + 22 {
                let number = &line[i + 6..i + 22];
                if number.bytes().all(|b| b.is_ascii_hexdigit()) {
                    let n = self.tables;
                    let alias = self
                        .names
                        .entry(number.to_owned())
                        .or_insert_with(|| format!("t{n}"));
                    if alias == &format!("t{n}") {
                        self.tables += 1;
                    }
                    out.push_str("index/");
                    out.push_str(alias);
                    i += 22;
                } else {
                    out.push_str("index/");
                    i += 6;
                }
            } else {
                let c = line[i..].chars().next().expect("within the line");
                out.push(c);
                i += c.len_utf8();
            }
        }
        out
    }
}

/// The length of the writer id (`<13 hex>-<pid>-<n>-<8 hex>`) at the
/// start of `b`, if one starts there.
fn writer_id_at(b: &[u8]) -> Option<usize> {
    let hex = |s: &[u8], n: usize| s.len() >= n && s[..n].iter().all(u8::is_ascii_hexdigit);
    let digits = |s: &[u8]| s.iter().take_while(|c| c.is_ascii_digit()).count();
    if !hex(b, 13) || b.get(13) != Some(&b'-') {
        return None;
    }
    let mut i = 14;
    for _ in 0..2 {
        let d = digits(&b[i..]);
        if d == 0 || b.get(i + d) != Some(&b'-') {
            return None;
        }
        i += d + 1;
    }
    hex(&b[i..], 8).then_some(i + 8)
}

/// The lock of `m`, also after a panic of the run while it was held
/// (the run reports the panic; the state is only read for its trace).
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}
