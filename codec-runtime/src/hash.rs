//! Content hashes: stable keys for memoized results, from their inputs.

use sha2::{Digest as _, Sha256};

use crate::encode::Encode;
use crate::error::EncodeError;
use crate::msgpack::MsgpackWriter;

/// A stable content hash of a value: SHA-256 of its deterministic MessagePack
/// encoding, as 64 hex digits. Equal values give equal hashes across runs and
/// platforms, so it keys memoized results by their inputs.
///
/// The hash is of the encoding, so it changes whenever the encoding does,
/// compatible changes included: a field added to a type (even with a
/// default) changes the hash of every value of that type, and a memo keyed
/// by such values starts over empty. Key memos by the inputs that decide
/// the result (the text, the model name, a version you raise on purpose),
/// not by a whole struct that may gain fields:
///
/// ```
/// #[derive(codec::Codec)]
/// struct Chunk { text: String, start: u32, #[codec(default)] source: Option<String> }
///
/// let chunk = Chunk { text: "hello".into(), start: 0, source: None };
/// // Stays the same when `Chunk` gains a field: the key is what the embedding depends on.
/// let key = codec::ContentHash::new().part("mini-lm v2").part(&chunk.text).finish().unwrap();
/// # assert_eq!(key.len(), 64);
/// ```
///
/// ```
/// let a = codec::content_hash(&("embed".to_string(), vec![1u32, 2, 3])).unwrap();
/// let b = codec::content_hash(&("embed".to_string(), vec![1u32, 2, 3])).unwrap();
/// assert_eq!(a, b);
/// assert_eq!(a.len(), 64);
/// ```
pub fn content_hash<T: Encode + ?Sized>(value: &T) -> Result<String, EncodeError> {
    Ok(hex(&Sha256::digest(crate::convert::to_msgpack(value)?)))
}

fn hex(digest: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    digest
        .iter()
        .flat_map(|b| {
            [
                DIGITS[(b >> 4) as usize] as char,
                DIGITS[(b & 15) as usize] as char,
            ]
        })
        .collect()
}

/// The content hash of several inputs, borrowed: the same as
/// [`content_hash`] of the tuple of them, without building that tuple.
///
/// ```
/// # #[derive(codec::Codec)] struct Chunk { text: String }
/// let chunk = Chunk { text: "hello".into() };
/// let model = "mini-lm";
/// let key = codec::ContentHash::new().part(model).part(&chunk).finish().unwrap();
/// let owned = (model.to_string(), Chunk { text: "hello".into() });
/// assert_eq!(key, codec::content_hash(&owned).unwrap());
/// ```
#[derive(Debug, Default)]
pub struct ContentHash {
    parts: MsgpackWriter,
    count: usize,
    error: Option<EncodeError>,
}

impl ContentHash {
    /// A hash of no inputs yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds the next input: any [`Encode`] value (a [`crate::Codec`] value,
    /// a `str`, a slice, a reference, a tuple of them...), encoded as the
    /// owned value would be.
    pub fn part<T: Encode + ?Sized>(mut self, value: &T) -> Self {
        if self.error.is_none() {
            self.error = value.encode_msgpack(&mut self.parts).err();
            self.count += 1;
        }
        self
    }

    /// The hash, as 64 hex digits; an input that does not encode (an
    /// integer out of MessagePack's range) is the error.
    pub fn finish(self) -> Result<String, EncodeError> {
        if let Some(e) = self.error {
            return Err(e);
        }
        let mut header = MsgpackWriter::default();
        header.write_array_len(self.count)?;
        let mut hasher = Sha256::new();
        hasher.update(header.as_slice());
        hasher.update(self.parts.as_slice());
        Ok(hex(&hasher.finalize()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn borrowed_inputs_hash_as_the_owned_tuple() {
        let text = "some text";
        let ids = [1u32, 2, 3];
        let bytes = [7u8; 40];
        let hashed = ContentHash::new()
            .part(text)
            .part(&ids[..])
            .part(&bytes[..])
            .part(&Some(2.5f64))
            .finish()
            .unwrap();
        let owned = (text.to_string(), ids.to_vec(), bytes.to_vec(), Some(2.5f64));
        assert_eq!(hashed, content_hash(&owned).unwrap());
        assert_ne!(hashed, ContentHash::new().part(text).finish().unwrap());
        assert_eq!(
            ContentHash::new().part("x").finish().unwrap(),
            content_hash(&("x".to_string(),)).unwrap()
        );
        // Pinned: the hash is part of what stored caches are keyed by.
        assert_eq!(
            content_hash(&("embed".to_string(), 3u32)).unwrap(),
            // sha256 of 92 a5 "embed" 03
            "0eaf4feede31dec91e34ab3f20977cd76495192bdf93374998228844ae43e106"
        );
    }
}
