//! Large byte buffers of a value (arrays' data, byte strings) kept apart
//! from the rest of it: the `auto` handler, the store's counterpart of
//! exca's Auto.
//!
//! A MessagePack payload is encoded with its `bin` values of at least
//! [`CacheOptions::apart_min`](crate::CacheOptions::apart_min) bytes listed
//! (however deep in the value they sit). Each goes to the writer's shared
//! data file at a 64-byte boundary, as [`Cache::put_array`](crate::cache::Cache)
//! writes arrays, and an extension value takes its place in the payload:
//! type [`REF_EXT`], the buffer's offset and length (8 bytes each,
//! big-endian). The rest of the value goes in the line or the shared file
//! by size. The info names the buffers' file (`bins`) and where the
//! references sit in the rest (`refs`), so a reference is never confused
//! with an extension value of the user's.
//!
//! A typed `get` decodes the rest with each buffer read from a memory map
//! of the data file (`MsgpackReader::with_out_of_band`); other reads (raw
//! bytes, the `codec` command, compaction) get the payload put back
//! together.

use crate::content::handler::{DumpContext, Handler, Inline, LoadContext, Shared};
use crate::content::ranged::Window;
use crate::error::StoreError;
use crate::index::records::{Info, InfoValue};
use crate::layout::{self, ALIGN};
use codec_runtime::__store::{LargeBin, OutOfBand};
use codec_runtime::MsgpackReader;

/// The extension type of a reference to a buffer kept apart.
pub const REF_EXT: i8 = 98;
/// A reference: ext8 marker, length 16, type, offset, length.
const REF_LEN: usize = 19;

/// The handler named `auto`: large byte buffers of a value apart, the rest
/// in the line or the shared data file.
pub struct Auto;

impl Handler for Auto {
    fn name(&self) -> &str {
        layout::AUTO
    }

    fn dump(&self, payload: &[u8], ctx: &mut DumpContext<'_>) -> Result<Info, StoreError> {
        let large = std::mem::take(&mut ctx.large);
        let info = dump_apart(payload, &large, ctx);
        ctx.large = large;
        info
    }

    fn load(&self, info: &Info, ctx: &LoadContext<'_>) -> Result<Vec<u8>, StoreError> {
        Ok(Parts::load(info, ctx)?.reassemble()?.0)
    }
}

/// Stores `payload` with its `large` bins apart: what [`Auto`] does with
/// an entry, and [`DumpContext::dump`] with a sub-value.
pub(crate) fn dump_apart(
    payload: &[u8],
    large: &[LargeBin],
    ctx: &mut DumpContext<'_>,
) -> Result<Info, StoreError> {
    {
        // An encoder that moved bytes after writing a buffer (through
        // `buffer_mut`) leaves stale positions: store the payload whole.
        let large = if are_bins(payload, large) { large } else { &[] };
        let mut rest = Vec::with_capacity(
            payload.len() - large.iter().map(|b| b.end - b.data).sum::<usize>()
                + REF_LEN * large.len(),
        );
        let mut refs = String::new();
        let parts: Vec<&[u8]> = large.iter().map(|b| &payload[b.data..b.end]).collect();
        let (bins, offsets) = match parts.is_empty() {
            true => (None, Vec::new()),
            false => {
                let (file, offsets) = ctx.append_shared_parts(&parts, ALIGN)?;
                (Some(file), offsets)
            }
        };
        let mut copied = 0;
        for (bin, offset) in large.iter().zip(offsets) {
            rest.extend_from_slice(&payload[copied..bin.start]);
            if !refs.is_empty() {
                refs.push(',');
            }
            refs.push_str(itoa::Buffer::new().format(rest.len()));
            rest.extend_from_slice(&[0xc7, 16, REF_EXT as u8]);
            rest.extend_from_slice(&offset.to_be_bytes());
            rest.extend_from_slice(&((bin.end - bin.data) as u64).to_be_bytes());
            copied = bin.end;
        }
        rest.extend_from_slice(&payload[copied..]);
        let mut info = if rest.len() <= ctx.inline_limit {
            Inline.dump(&rest, ctx)?
        } else {
            Shared.dump(&rest, ctx)?
        };
        if let Some(bins) = bins {
            info.insert("bins".to_owned(), InfoValue::Text(bins));
            info.insert("refs".to_owned(), InfoValue::Text(refs));
        }
        Ok(info)
    }
}

/// Where the buffers an `auto` entry's `info` keeps apart end in their
/// data file (`bins`), read from its inline rest; `None` if it keeps none
/// there or they do not read. A rest of its own in the shared data is
/// appended after the buffers, in the same file: its range reaches past
/// theirs, and this gives 0.
pub(crate) fn bins_reach(info: &Info) -> Option<u64> {
    use base64::Engine as _;
    let InfoValue::Text(refs) = info.get("refs")? else {
        return None;
    };
    let Some(InfoValue::Text(data)) = info.get("data") else {
        return (info.get("file") == info.get("bins")).then_some(0);
    };
    let rest = base64::engine::general_purpose::STANDARD
        .decode(data)
        .ok()?;
    let mut reach = 0;
    for at in refs.split(',') {
        let r = reference(&rest, at.parse().ok()?)?;
        reach = u64::max(reach, r.offset.checked_add(r.len)?);
    }
    Some(reach)
}

/// One reference: at `at` of the rest, `len` bytes at `offset` of the data file.
struct Ref {
    at: usize,
    offset: u64,
    len: u64,
}

/// Where an entry's buffers are: the data file and the references.
struct Apart<'i> {
    bins: &'i str,
    refs: Vec<Ref>,
}

/// An `auto` entry as stored: the rest of the value, and its buffers in a
/// memory-mapped data file, or where the backend has no maps, the range of
/// the data file that holds them, read (checked to lie within it).
pub(crate) struct Parts {
    rest: Vec<u8>,
    window: Option<Window>,
    refs: Vec<Ref>,
}

impl Parts {
    pub fn load(info: &Info, ctx: &LoadContext<'_>) -> Result<Parts, StoreError> {
        let (rest, apart) = Self::load_rest(info, ctx)?;
        let Some(Apart { bins, refs }) = apart else {
            return Ok(Parts {
                rest,
                window: None,
                refs: Vec::new(),
            });
        };
        let start = refs.iter().map(|r| r.offset).min().unwrap_or(0);
        let end = refs.iter().map(|r| r.offset + r.len).max().unwrap_or(0);
        // Only the buffers' bytes, never the file before them.
        let window = ctx.window(bins, start..end)?;
        Ok(Parts {
            rest,
            window: Some(window),
            refs,
        })
    }

    /// The rest of the value, and the name of its buffers' data file and
    /// their references, checked (their bytes not read).
    fn load_rest<'i>(
        info: &'i Info,
        ctx: &LoadContext<'_>,
    ) -> Result<(Vec<u8>, Option<Apart<'i>>), StoreError> {
        let rest = match info.get("data") {
            Some(_) => Inline.load(info, ctx)?,
            None => Shared.load(info, ctx)?,
        };
        let Some(refs_text) = info.get("refs") else {
            return Ok((rest, None));
        };
        let (Some(InfoValue::Text(bins)), InfoValue::Text(refs_text)) =
            (info.get("bins"), refs_text)
        else {
            return Err(ctx.corrupt("index info of an `auto` entry lacks `bins` or `refs`"));
        };
        let mut refs = Vec::new();
        for at in refs_text.split(',') {
            let r = at
                .parse::<usize>()
                .ok()
                .filter(|&at| refs.last().is_none_or(|p: &Ref| p.at + REF_LEN <= at))
                .and_then(|at| reference(&rest, at))
                .filter(|r| r.offset.checked_add(r.len).is_some())
                .ok_or_else(|| {
                    ctx.corrupt(format!("no buffer reference at `{at}` of the payload"))
                })?;
            refs.push(r);
        }
        check_apart(&refs, ctx)?;
        Ok((rest, Some(Apart { bins, refs })))
    }

    /// The payload with its buffers back in place, and where they are in it.
    pub fn reassemble(&self) -> Result<(Vec<u8>, Vec<LargeBin>), StoreError> {
        let apart: usize = self.refs.iter().map(|r| r.len as usize).sum();
        let mut w = codec_runtime::MsgpackWriter::new(Vec::with_capacity(self.rest.len() + apart));
        let mut large = Vec::with_capacity(self.refs.len());
        let mut copied = 0;
        for r in &self.refs {
            w.write_raw(&self.rest[copied..r.at]);
            let start = w.as_slice().len();
            let bytes = self.bytes(r);
            w.write_bin(bytes)?;
            let end = w.as_slice().len();
            large.push(LargeBin {
                start,
                data: end - bytes.len(),
                end,
            });
            copied = r.at + REF_LEN;
        }
        w.write_raw(&self.rest[copied..]);
        Ok((w.into_inner(), large))
    }

    fn bytes(&self, r: &Ref) -> &[u8] {
        match &self.window {
            // In range: `load` read every reference's bytes.
            Some(window) => window.slice(r.offset, r.len),
            None => &[],
        }
    }

    /// Decodes the value, each buffer read from the memory map (or the
    /// range read).
    pub fn decode<T: codec_runtime::Codec>(&self) -> Result<T, codec_runtime::DecodeError> {
        self.decode_with(|r| T::decode_msgpack(r))
    }

    /// [`decode`](Self::decode) by `decode`.
    pub fn decode_with<R>(
        &self,
        decode: impl FnOnce(&mut MsgpackReader<'_>) -> Result<R, codec_runtime::DecodeError>,
    ) -> Result<R, codec_runtime::DecodeError> {
        let apart = self.window.as_ref().map(|window| OutOfBand {
            refs: self.refs.iter().map(|r| (r.at, self.bytes(r))).collect(),
            backing: window.bytes.clone(),
        });
        let mut r = MsgpackReader::new(&self.rest);
        if let Some(apart) = &apart {
            r = r.with_out_of_band(apart);
        }
        let value = decode(&mut r).map_err(|e| r.locate(e))?;
        r.finish()?;
        Ok(value)
    }
}

/// Checks that no two buffers of an entry overlap in the data file: an
/// entry whose buffers went to several objects under one name (as an
/// earlier codec wrote them on object storage) is refused, not read wrong.
fn check_apart(refs: &[Ref], ctx: &LoadContext<'_>) -> Result<(), StoreError> {
    let mut spans: Vec<(u64, u64)> = refs
        .iter()
        .filter(|r| r.len > 0)
        .map(|r| (r.offset, r.offset.saturating_add(r.len)))
        .collect();
    spans.sort_unstable();
    match spans.windows(2).find(|w| w[1].0 < w[0].1) {
        Some(w) => Err(ctx.corrupt(format!(
            "its buffers kept apart overlap in the data file (bytes {}..{} and {}..{})",
            w[0].0, w[0].1, w[1].0, w[1].1
        ))),
        None => Ok(()),
    }
}

/// An array stored with `put` whose data was kept apart: its dtype and
/// shape, and where its data is (`len` bytes at `offset` of data file `file`).
#[cfg(feature = "ndarray")]
pub(crate) struct ArrayApart {
    pub dtype: String,
    pub shape: Vec<u64>,
    pub file: String,
    pub offset: u64,
    pub len: u64,
}

/// The array an `auto` entry holds when the value is the array itself
/// (`dtype`, `shape`, `data`) and its data the entry's one buffer; `None`
/// for any other value.
#[cfg(feature = "ndarray")]
pub(crate) fn array_apart(
    info: &Info,
    ctx: &LoadContext<'_>,
) -> Result<Option<ArrayApart>, StoreError> {
    let (rest, apart) = Parts::load_rest(info, ctx)?;
    let Some(Apart { bins, refs }) = apart else {
        return Ok(None);
    };
    let [r] = refs.as_slice() else {
        return Ok(None);
    };
    let mut reader = MsgpackReader::new(&rest);
    let parts = codec_runtime::__store::ndarray::read_msgpack_parts(&mut reader, |reader| {
        let at = reader.position();
        reader.skip_value()?;
        Ok(at)
    });
    match parts {
        Ok((dtype, shape, at)) if at == r.at && reader.finish().is_ok() => Ok(Some(ArrayApart {
            dtype: dtype.to_owned(),
            shape,
            file: bins.to_owned(),
            offset: r.offset,
            len: r.len,
        })),
        _ => Ok(None),
    }
}

/// Whether each of `large` is a `bin` value of `payload`, in order and
/// apart from the others.
fn are_bins(payload: &[u8], large: &[LargeBin]) -> bool {
    let mut after = 0;
    large.iter().all(|b| {
        let len = b.end.wrapping_sub(b.data);
        let header = match payload.get(b.start) {
            Some(0xc4) => payload.get(b.start + 1..b.start + 2),
            Some(0xc5) => payload.get(b.start + 1..b.start + 3),
            Some(0xc6) => payload.get(b.start + 1..b.start + 5),
            _ => None,
        };
        let ok = b.start >= after
            && b.end <= payload.len()
            && header.is_some_and(|h| {
                b.data == b.start + 1 + h.len()
                    && h.iter().fold(0usize, |n, &d| n << 8 | d as usize) == len
            });
        after = b.end;
        ok
    })
}

/// The reference at `at` of `rest`, if one is there.
fn reference(rest: &[u8], at: usize) -> Option<Ref> {
    let bytes = rest.get(at..at.checked_add(REF_LEN)?)?;
    if bytes[..3] != [0xc7, 16, REF_EXT as u8] {
        return None;
    }
    let word = |i: usize| u64::from_be_bytes(bytes[i..i + 8].try_into().expect("8 bytes"));
    Some(Ref {
        at,
        offset: word(3),
        len: word(11),
    })
}

#[cfg(test)]
mod tests {
    use base64::Engine as _;

    use super::*;
    use crate::content::handler::Resources;

    #[test]
    fn damaged_references_are_typed_errors() {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join(crate::layout::DATA);
        std::fs::create_dir(&data).unwrap();
        std::fs::write(data.join("w.bin"), vec![7u8; 256]).unwrap();
        let mut rest = vec![0x92]; // [ref, ref]
        for (offset, len) in [(0u64, 64u64), (128, 64)] {
            rest.extend_from_slice(&[0xc7, 16, REF_EXT as u8]);
            rest.extend_from_slice(&offset.to_be_bytes());
            rest.extend_from_slice(&len.to_be_bytes());
        }
        let resources = Resources::default();
        let ctx = LoadContext {
            backend: &crate::backend::folder::Folder::new(dir.path()),
            resources: &resources,
            key: "k",
            subs: None,
        };
        let info = |refs: &str, bins: &str| -> Info {
            [
                (
                    "data",
                    base64::engine::general_purpose::STANDARD.encode(&rest),
                ),
                ("refs", refs.to_owned()),
                ("bins", bins.to_owned()),
            ]
            .into_iter()
            .map(|(k, v)| (k.to_owned(), InfoValue::Text(v)))
            .collect()
        };
        let good = Parts::load(&info("1,20", "w.bin"), &ctx).unwrap();
        assert_eq!(
            good.decode::<Vec<Vec<u8>>>().unwrap(),
            vec![vec![7u8; 64]; 2]
        );
        assert_eq!(
            Auto.load(&info("1,20", "w.bin"), &ctx).unwrap(),
            codec_runtime::to_msgpack(&vec![vec![7u8; 64]; 2]).unwrap()
        );
        for (refs, bins) in [
            ("2", "w.bin"),       // not at a reference
            ("x", "w.bin"),       // not a number
            ("1,1", "w.bin"),     // the same reference twice
            ("20,1", "w.bin"),    // out of order
            ("1,30", "w.bin"),    // past the end of the rest
            ("1", "../w.bin"),    // outside the data folder
            ("1", "missing.bin"), // no such file
        ] {
            let err = Parts::load(&info(refs, bins), &ctx).err().expect(refs);
            assert!(
                matches!(err, StoreError::Corrupt { .. } | StoreError::Io { .. }),
                "{refs} {bins}: {err}"
            );
        }
        // A reference past the end of the data file.
        std::fs::write(data.join("short.bin"), vec![7u8; 100]).unwrap();
        let err = Parts::load(&info("1,20", "short.bin"), &ctx).err().unwrap();
        assert!(err.to_string().contains("past its end"), "{err}");
        // Positions that are not the payload's bins (an encoder that moved
        // bytes through `buffer_mut`) are not trusted.
        let payload = codec_runtime::to_msgpack(&(vec![1u8; 5000], 7u32)).unwrap();
        let bin = LargeBin {
            start: 1,
            data: 4,
            end: 5004,
        };
        assert!(are_bins(&payload, &[bin]));
        for stale in [
            LargeBin { start: 0, ..bin },
            LargeBin { data: 3, ..bin },
            LargeBin { end: 5005, ..bin },
            LargeBin { end: 5003, ..bin },
        ] {
            assert!(!are_bins(&payload, &[stale]), "{stale:?}");
        }
        assert!(!are_bins(&payload, &[bin, bin]));
        // Only the listed offsets are references: an extension value of the
        // same shape elsewhere is not read as one.
        let one = Parts::load(&info("1", "w.bin"), &ctx).unwrap();
        assert!(one.decode::<Vec<Vec<u8>>>().is_err());
    }
}
