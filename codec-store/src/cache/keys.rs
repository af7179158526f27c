//! The keys of a cache: membership, listing, iteration, clearing.

use crate::cache::Cache;
use crate::error::StoreError;
use crate::index::line::LineView;
use crate::index::{corrupt_line, EntryInfo};
use codec_runtime::Codec;

use crate::layout::MAX_KEY_LEN;

/// Refuses a key the cache does not store: an empty one, one longer than
/// [`MAX_KEY_LEN`], or one holding a control character (a newline, a tab,
/// NUL, an escape...), which would read as two lines, or as nothing, in a
/// listing. The JSON index holds any text; the rule is for the people who
/// read keys. Keys stored before the rule still read, list and remove.
pub(crate) fn check_key(key: &str) -> Result<(), StoreError> {
    let reason = if key.is_empty() {
        "it is empty"
    } else if key.len() > MAX_KEY_LEN {
        "it is too long"
    } else if key.chars().any(char::is_control) {
        "it holds a control character"
    } else {
        return Ok(());
    };
    let mut shown: String = key.chars().take(200).collect();
    if shown.len() < key.len() {
        shown.push_str("...");
    }
    Err(StoreError::InvalidKey {
        key: shown.escape_debug().to_string(),
        reason,
    })
}

impl Cache {
    /// Whether `key` has a value.
    pub fn contains(&self, key: &str) -> Result<bool, StoreError> {
        Ok(self.lookup(key)?.is_some())
    }

    /// The live keys, sorted.
    pub fn keys(&self) -> Result<Vec<String>, StoreError> {
        let mut keys: Vec<String> = self
            .live_lines()?
            .into_iter()
            .map(|(key, _)| key.into())
            .collect();
        keys.sort();
        Ok(keys)
    }

    /// The number of live keys.
    pub fn len(&self) -> Result<usize, StoreError> {
        Ok(self.live_lines()?.len())
    }

    /// Whether the cache has no live keys.
    pub fn is_empty(&self) -> Result<bool, StoreError> {
        Ok(self.len()? == 0)
    }

    /// What the index says about every live entry, sorted by key.
    pub fn entries(&self) -> Result<Vec<EntryInfo>, StoreError> {
        let mut out = Vec::new();
        for (key, text) in self.live_lines()? {
            let line = LineView::parse(&text).map_err(|e| corrupt_line(&key, e))?;
            out.extend(EntryInfo::of_line(&line)?);
        }
        out.sort_by(|a, b| a.key.cmp(&b.key));
        Ok(out)
    }

    /// Every live entry as a `T`, in key order: a snapshot of the keys,
    /// each value read when the iteration reaches it (a key removed in the
    /// meantime is skipped). An entry that does not decode as a `T` is an
    /// error item; the iteration goes on after it.
    ///
    /// ```
    /// # fn main() -> Result<(), codec::StoreError> {
    /// # let dir = tempfile::tempdir().unwrap();
    /// let cache = codec::Cache::open(dir.path())?;
    /// cache.put("b", &2u32)?;
    /// cache.put("a", &1u32)?;
    /// let all: Vec<(String, u32)> = cache.iter::<u32>()?.collect::<Result<_, _>>()?;
    /// assert_eq!(all, [("a".to_string(), 1), ("b".to_string(), 2)]);
    /// # Ok(())
    /// # }
    /// ```
    pub fn iter<T: Codec + 'static>(
        &self,
    ) -> Result<impl Iterator<Item = Result<(String, T), StoreError>> + '_, StoreError> {
        Ok(self
            .keys()?
            .into_iter()
            .filter_map(move |key| match self.get::<T>(&key) {
                Ok(Some(value)) => Some(Ok((key, value))),
                Ok(None) => None,
                Err(e) => Some(Err(e)),
            }))
    }

    /// Removes every live key for every reader; returns how many were removed.
    /// Space is reclaimed by `codec compact`.
    pub fn clear(&self) -> Result<usize, StoreError> {
        let mut removed = 0;
        for key in self.keys()? {
            removed += usize::from(self.remove(&key)?);
        }
        Ok(removed)
    }
}

#[cfg(test)]
mod tests {
    use crate::index::records::Mode;
    use crate::{layout, Cache, StoreError};

    #[test]
    fn a_key_no_write_takes_is_an_error_to_read_unless_stored_before_the_rule() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::open(dir.path()).unwrap();
        let refused = |e: Result<bool, StoreError>| matches!(e, Err(StoreError::InvalidKey { .. }));
        assert!(refused(cache.get::<u32>("a\nb").map(|v| v.is_some())));
        assert!(refused(cache.remove("a\nb")));
        // Stored before the rule (here, past it).
        let payload = b"old".to_vec();
        let (info, parts, _) = cache
            .dump_with("a\nb", &[], false, |ctx| {
                let (file, offset) = ctx.append_shared(&payload)?;
                let len = payload.len();
                Ok(crate::content::handler::range_info(file, offset, len))
            })
            .unwrap();
        let line = (info, &parts[..], Vec::new());
        let shared = layout::SHARED;
        (cache.append_entry("a\nb", None, None, shared, Mode::Raw, line, 3, None)).unwrap();
        assert_eq!(cache.get_bytes("a\nb").unwrap(), Some(payload));
        assert!(cache.contains("a\nb").unwrap());
        assert!(cache.remove("a\nb").unwrap());
        assert!(refused(cache.contains("a\nb")));
    }
}
