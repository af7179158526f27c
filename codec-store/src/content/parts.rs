//! The bytes an entry holds outside its line, as its dump wrote them
//! through the [`DumpContext`](crate::DumpContext): each file of its
//! own and each range of a shared data file, with its length and CRC-32.
//!
//! Entries of the handlers a program brings (its [`Handler`]s and
//! [`TypedHandler`]s) record them in their info, under [`layout::PARTS`]:
//!
//! ```json
//! "#parts": [{"file": "w1-7.txt", "len": 12, "crc": "3610a686"},
//!            {"file": "w1.bin", "offset": 4096, "len": 80, "crc": "0c1e2f30"}]
//! ```
//!
//! so any handle, and the `codec` command, sizes, checks and lists them
//! without the handler's code. Built-in handlers are known to every
//! handle and record nothing; entries written before parts were recorded
//! have none, and only their handler checks them.
//!
//! [`Handler`]: crate::Handler
//! [`TypedHandler`]: crate::TypedHandler

use crate::content::handler::LoadContext;
use crate::error::StoreError;
use crate::index::records::{Info, InfoValue};
use crate::layout;

/// A file, or a range of a shared data file, that an entry holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part {
    /// The file's name, relative to `data/`.
    pub file: String,
    /// Where the range starts in a shared file; `None` for a file of the
    /// entry's own, whole.
    pub offset: Option<u64>,
    /// Its length in bytes.
    pub len: u64,
    /// The CRC-32 of its bytes.
    pub crc: u32,
}

impl Part {
    /// A part of `bytes` written at `offset` of `file` (or as the whole file).
    pub(crate) fn of(file: &str, offset: Option<u64>, bytes: &[u8]) -> Part {
        Part {
            file: file.to_owned(),
            offset,
            len: bytes.len() as u64,
            crc: crc32fast::hash(bytes),
        }
    }

    /// The parts as the info keeps them.
    pub(crate) fn to_info(parts: &[Part]) -> InfoValue {
        InfoValue::List(
            parts
                .iter()
                .map(|p| {
                    let mut map = Info::new();
                    map.insert("file".into(), p.file.clone().into());
                    if let Some(offset) = p.offset {
                        map.insert("offset".into(), InfoValue::Int(offset as i64));
                    }
                    map.insert("len".into(), InfoValue::Int(p.len as i64));
                    map.insert("crc".into(), format!("{:08x}", p.crc).into());
                    InfoValue::Map(map)
                })
                .collect(),
        )
    }

    /// The parts an entry's info records: `None` when it records none (a
    /// built-in handler's entry, or one written before parts were
    /// recorded); an error naming what is wrong when they do not read.
    pub(crate) fn of_info(info: &Info) -> Option<Result<Vec<Part>, String>> {
        let list = info.get(layout::PARTS)?;
        let InfoValue::List(items) = list else {
            return Some(Err(format!("`{}` is not a list", layout::PARTS)));
        };
        Some(items.iter().map(Part::of_item).collect())
    }

    fn of_item(item: &InfoValue) -> Result<Part, String> {
        let bad = || format!("a part of `{}` is not a file and a length", layout::PARTS);
        let InfoValue::Map(map) = item else {
            return Err(bad());
        };
        let int = |key: &str| match map.get(key) {
            Some(InfoValue::Int(n)) => u64::try_from(*n).map(Some).map_err(|_| bad()),
            None => Ok(None),
            Some(_) => Err(bad()),
        };
        let file = map
            .get("file")
            .and_then(InfoValue::as_text)
            .ok_or_else(bad)?;
        let crc = map
            .get("crc")
            .and_then(InfoValue::as_text)
            .ok_or_else(bad)?;
        Ok(Part {
            file: file.to_owned(),
            offset: int("offset")?,
            len: int("len")?.ok_or_else(bad)?,
            crc: u32::from_str_radix(crc, 16).map_err(|_| bad())?,
        })
    }

    /// Reads the part's bytes, checked against its length and checksum.
    pub(crate) fn read_checked(&self, ctx: &LoadContext<'_>) -> Result<Vec<u8>, StoreError> {
        ctx.check_file_name(&self.file)?;
        let bytes = match self.offset {
            Some(offset) => ctx.read_range(&self.file, offset, self.len)?,
            None => ctx.read_file(&self.file)?,
        };
        if bytes.len() as u64 != self.len {
            return Err(ctx.corrupt(format!(
                "{} holds {} bytes where the entry recorded {}",
                self.file,
                bytes.len(),
                self.len
            )));
        }
        let crc = crc32fast::hash(&bytes);
        if crc != self.crc {
            return Err(ctx.corrupt(format!(
                "the {} bytes {} of {} do not have the checksum the entry recorded ({crc:08x}, not {:08x}): they were changed or damaged",
                self.len,
                self.offset.map_or_else(|| "(the whole file)".to_owned(), |o| format!("at {o}")),
                self.file,
                self.crc
            )));
        }
        Ok(bytes)
    }
}
