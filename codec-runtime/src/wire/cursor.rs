//! Where a reader stands in its input, whatever the format: the bytes, the
//! offset of the next one, the nesting budget, and the errors that carry
//! that offset.
//!
//! Both readers hold one and keep only what their format adds (the JSON
//! reader its input as text, the MessagePack reader its buffers kept out of
//! band). Its small methods are `#[inline]`: generated decoders, in the
//! user's crate, inline the readers' reads, and those call into it.

use super::Depth;
use crate::error::{DecodeError, DecodeErrorKind, Format};

/// A reader's input and its offset in it, with the nesting budget.
#[derive(Debug, Clone)]
pub(crate) struct Cursor<'de> {
    /// The whole input.
    pub(crate) buf: &'de [u8],
    /// The offset of the next byte to read. At most `buf.len()`, except
    /// within a skip that moves past the end and checks it afterwards.
    pub(crate) pos: usize,
    depth: Depth,
    /// The format errors are reported in.
    format: Format,
}

impl<'de> Cursor<'de> {
    /// The start of `buf`, read as `format`, allowing `limit` levels of nesting.
    #[inline]
    pub(crate) fn new(buf: &'de [u8], limit: u32, format: Format) -> Self {
        Cursor {
            buf,
            pos: 0,
            depth: Depth::new(limit),
            format,
        }
    }

    /// The next byte, not consumed.
    #[inline(always)]
    pub(crate) fn peek(&self) -> Option<u8> {
        self.buf.get(self.pos).copied()
    }

    /// The input from the next byte on.
    #[inline(always)]
    pub(crate) fn rest(&self) -> &'de [u8] {
        &self.buf[self.pos..]
    }

    /// How many bytes are left.
    #[inline(always)]
    pub(crate) fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    /// Moves to `pos`, or to the end if that is past it.
    #[inline]
    pub(crate) fn seek(&mut self, pos: usize) {
        self.pos = pos.min(self.buf.len());
    }

    /// Consumes `prefix` if the input continues with it; true if it did.
    #[inline(always)]
    pub(crate) fn take_prefix(&mut self, prefix: &[u8]) -> bool {
        let hit = self.rest().starts_with(prefix);
        if hit {
            self.pos += prefix.len();
        }
        hit
    }

    /// Consumes the next `n` bytes, which are part of `what`.
    #[inline]
    pub(crate) fn take(&mut self, n: usize, what: &'static str) -> Result<&'de [u8], DecodeError> {
        if self.remaining() < n {
            return Err(self.eof(what));
        }
        let out = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(out)
    }

    /// Consumes the next `N` bytes, which are part of `what`.
    #[inline]
    pub(crate) fn take_array<const N: usize>(
        &mut self,
        what: &'static str,
    ) -> Result<[u8; N], DecodeError> {
        let bytes = self.take(N, what)?;
        let mut out = [0u8; N];
        out.copy_from_slice(bytes);
        Ok(out)
    }

    /// Fails unless the whole input was consumed.
    pub(crate) fn finish(&self) -> Result<(), DecodeError> {
        match self.remaining() {
            0 => Ok(()),
            count => Err(self.error(DecodeErrorKind::TrailingBytes { count })),
        }
    }

    /// Takes one level of nesting; past the depth limit, an error.
    ///
    /// Every level taken is given back by [`leave`](Self::leave): readers
    /// pair them in their `nested` method, and the JSON reader also from
    /// an opening bracket to the one that closes it.
    #[inline(always)]
    pub(crate) fn enter(&mut self) -> Result<(), DecodeError> {
        if self.depth.enter() {
            Ok(())
        } else {
            Err(self.too_deep())
        }
    }

    /// Gives back a level taken by [`enter`](Self::enter).
    #[inline(always)]
    pub(crate) fn leave(&mut self) {
        self.depth.leave();
    }

    /// How many more levels of nesting are accepted.
    #[inline]
    pub(crate) fn depth_left(&self) -> u32 {
        self.depth.remaining()
    }

    /// The error of input nested deeper than the limit.
    #[cold]
    pub(crate) fn too_deep(&self) -> DecodeError {
        self.error(DecodeErrorKind::DepthLimitExceeded {
            limit: self.depth.limit(),
        })
    }

    /// An error at the current offset.
    #[cold]
    pub(crate) fn error(&self, kind: DecodeErrorKind) -> DecodeError {
        self.error_at(kind, self.pos)
    }

    /// An error at `offset`.
    #[cold]
    pub(crate) fn error_at(&self, kind: DecodeErrorKind, offset: usize) -> DecodeError {
        DecodeError::new(kind).at(self.format, offset)
    }

    /// Adds the current offset to an error built elsewhere.
    #[cold]
    pub(crate) fn locate(&self, err: DecodeError) -> DecodeError {
        err.at(self.format, self.pos)
    }

    /// The input ended where `expected` should have been.
    #[cold]
    pub(crate) fn eof(&self, expected: &'static str) -> DecodeError {
        self.error(DecodeErrorKind::UnexpectedEof {
            expected: expected.into(),
        })
    }

    /// Input that breaks the format's grammar.
    #[cold]
    pub(crate) fn syntax(&self, message: &'static str) -> DecodeError {
        self.error(DecodeErrorKind::Syntax {
            message: message.into(),
        })
    }

    /// An "expected X, found Y" error at the current offset.
    #[cold]
    pub(crate) fn invalid_type(&self, expected: &'static str, found: &'static str) -> DecodeError {
        self.error(DecodeErrorKind::InvalidType {
            expected: expected.into(),
            found: found.into(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn take_past_the_end_fails_where_the_value_starts_and_does_not_move() {
        let mut c = Cursor::new(b"abc", 1, Format::Json);
        assert_eq!(c.take(2, "a string").unwrap(), b"ab");
        let err = c.take(2, "a string").unwrap_err();
        assert!(matches!(err.kind(), DecodeErrorKind::UnexpectedEof { .. }));
        assert_eq!((err.format(), err.offset()), (Some(Format::Json), Some(2)));
        assert_eq!(c.pos, 2);
        assert!(c.finish().is_err());
        assert_eq!(c.take_array::<1>("a string").unwrap(), *b"c");
        assert!(c.finish().is_ok());
    }

    #[test]
    fn seek_stops_at_the_end_and_take_prefix_moves_only_on_a_match() {
        let mut c = Cursor::new(b"null", 1, Format::MsgPack);
        c.seek(10);
        assert_eq!((c.pos, c.remaining(), c.peek()), (4, 0, None));
        c.seek(0);
        assert!(!c.take_prefix(b"nil"));
        assert_eq!(c.pos, 0);
        assert!(c.take_prefix(b"nu"));
        assert_eq!(c.rest(), b"ll");
    }

    #[test]
    fn each_level_entered_is_given_back() {
        let mut c = Cursor::new(b"", 2, Format::MsgPack);
        c.enter().unwrap();
        c.enter().unwrap();
        let err = c.enter().unwrap_err();
        assert!(matches!(
            err.kind(),
            DecodeErrorKind::DepthLimitExceeded { limit: 2 }
        ));
        c.leave();
        assert_eq!(c.depth_left(), 1);
        c.enter().unwrap();
    }
}
