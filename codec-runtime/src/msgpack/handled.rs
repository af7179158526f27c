//! Values whose type has a store handler (`#[codec(handler = ..)]`), met
//! inside another value the cache store encodes: the store hands each to
//! its type's handler, and the payload keeps a placeholder where it was.
//!
//! Writing, [`MsgpackWriter::diverting`] runs an encoding with a
//! [`Divert`]: a derived type with a handler, encoded by that writer,
//! calls [`divert`] first, which gives the value to the `Divert` (the
//! store stores it) and writes the placeholder it is given the number of.
//! The root value of the encoding is not diverted when the store already
//! routes it to its handler (the writer is told its type).
//!
//! Reading, [`reading_handled`] runs a decoding with an [`Undivert`]: a
//! derived type with a handler meeting a placeholder calls it with the
//! number, and gets the value back.
//!
//! The placeholder is an extension value of type [`HANDLED_EXT`] with 8
//! bytes: the value's number (u32, big-endian), the [`WireKind`] bits of
//! its type (u16, big-endian; what an untagged union peeks), and two zero
//! bytes. The store keeps the numbers' meaning in the entry's info.
//!
//! The hooks live in thread-locals rather than in the writer and reader,
//! which stay small (see `out_of_band`).

use std::any::{Any, TypeId};
use std::cell::Cell;

use super::{MsgpackReader, MsgpackWriter};
use crate::__store::DefaultHandler;
use crate::codec::Codec;
use crate::error::{DecodeError, DecodeErrorKind, EncodeError};
use crate::kind::WireKind;
use crate::schema::SchemaInfo;

/// The extension type of the placeholder of a value kept by its handler.
pub const HANDLED_EXT: i8 = 99;
/// The placeholder: fixext8 marker, type, number, kind, zeros.
const PLACEHOLDER: [u8; 2] = [0xd7, HANDLED_EXT as u8];

/// What the store needs of a type whose values it keeps apart, without
/// the type: its handler, schema and codec, as functions of `dyn Any`.
#[derive(Clone, Copy)]
pub struct HandledType {
    /// The type's id.
    pub type_id: TypeId,
    /// The Rust name of the type, for messages.
    pub rust_name: &'static str,
    /// The handler the type names.
    pub handler: Option<DefaultHandler>,
    /// The kinds its encoding starts with.
    pub kind: WireKind,
    /// Its schema.
    pub schema: fn() -> &'static SchemaInfo,
    /// Encodes a value of the type (the `dyn Any` is one).
    pub encode: fn(&dyn Any, &mut MsgpackWriter) -> Result<(), EncodeError>,
    /// Decodes a value of the type, boxed.
    pub decode: fn(&mut MsgpackReader<'_>) -> Result<Box<dyn Any>, DecodeError>,
}

impl HandledType {
    /// The functions of `T`.
    pub fn of<T: Codec + 'static>() -> HandledType {
        fn encode<T: Codec + 'static>(
            value: &dyn Any,
            w: &mut MsgpackWriter,
        ) -> Result<(), EncodeError> {
            match value.downcast_ref::<T>() {
                Some(value) => value.encode_msgpack(w),
                None => Err(EncodeError::Custom {
                    message: format!(
                        "a value given as `{}` is not one",
                        std::any::type_name::<T>()
                    ),
                }),
            }
        }
        fn decode<T: Codec + 'static>(
            r: &mut MsgpackReader<'_>,
        ) -> Result<Box<dyn Any>, DecodeError> {
            Ok(Box::new(T::decode_msgpack(r)?))
        }
        fn schema<T: Codec + 'static>() -> &'static SchemaInfo {
            crate::schema::info::<T>()
        }
        HandledType {
            type_id: TypeId::of::<T>(),
            rust_name: std::any::type_name::<T>(),
            handler: T::__STORE_HANDLER,
            kind: T::KIND,
            schema: schema::<T>,
            encode: encode::<T>,
            decode: decode::<T>,
        }
    }
}

/// Where values of handled types go while a writer encodes (the store).
pub trait Divert {
    /// Keeps `value` (of `ty`) apart; returns its number in the entry.
    fn divert(&mut self, value: &dyn Any, ty: &HandledType) -> Result<u32, EncodeError>;
}

/// Where values of handled types come from while a payload decodes.
pub trait Undivert {
    /// The value numbered `index` (of `ty`), boxed.
    fn undivert(&self, index: u32, ty: &HandledType) -> Result<Box<dyn Any>, DecodeError>;
}

/// The writer whose handled values are diverted, on this thread.
#[derive(Clone, Copy)]
struct Diverting {
    /// Compared, never dereferenced.
    writer: *const MsgpackWriter,
    /// The root's type, and where it starts: not diverted there.
    root: Option<(TypeId, usize)>,
    /// Valid while the `diverting` call that set it runs.
    divert: *mut (dyn Divert + 'static),
}

thread_local! {
    static DIVERTING: Cell<Option<Diverting>> = const { Cell::new(None) };
    static UNDIVERTING: Cell<Option<*const (dyn Undivert + 'static)>> = const { Cell::new(None) };
}

/// Puts back a thread-local's value, even on a panic.
struct Restore<T: Copy + 'static>(&'static std::thread::LocalKey<Cell<T>>, T);

impl<T: Copy + 'static> Drop for Restore<T> {
    fn drop(&mut self) {
        let _ = self.0.try_with(|c| c.set(self.1));
    }
}

impl MsgpackWriter {
    /// Runs `encode` on this writer, giving every value of a type with a
    /// store handler it meets to `divert`, and writing a placeholder in
    /// its place; except the root value if its type is `root` (the store
    /// routes it to its handler already). Values encoded by other writers
    /// meanwhile (a handler's own encoding) are not diverted.
    #[doc(hidden)]
    pub fn diverting<R>(
        &mut self,
        root: Option<TypeId>,
        divert: &mut dyn Divert,
        encode: impl FnOnce(&mut Self) -> R,
    ) -> R {
        // SAFETY: only the lifetime is erased; the pointer is read while
        // this call runs (the `Restore` below takes it away before
        // `divert` is out of reach).
        let divert: *mut (dyn Divert + 'static) =
            unsafe { std::mem::transmute::<*mut (dyn Divert + '_), _>(divert) };
        let mine = Diverting {
            writer: self,
            root: root.map(|t| (t, self.as_slice().len())),
            divert,
        };
        let _restore = Restore(&DIVERTING, DIVERTING.with(|d| d.replace(Some(mine))));
        encode(self)
    }
}

/// Runs `decode`, reading every placeholder of a handled value through
/// `undivert`.
#[doc(hidden)]
pub fn reading_handled<R>(undivert: &dyn Undivert, decode: impl FnOnce() -> R) -> R {
    // SAFETY: as in `diverting`: read only while this call runs.
    let undivert: *const (dyn Undivert + 'static) =
        unsafe { std::mem::transmute::<*const (dyn Undivert + '_), _>(undivert) };
    let _restore = Restore(
        &UNDIVERTING,
        UNDIVERTING.with(|u| u.replace(Some(undivert))),
    );
    decode()
}

/// What a derived type with a store handler calls first in
/// `encode_msgpack`: true if `value` was given to the store and a
/// placeholder written in its place.
#[doc(hidden)]
#[inline]
pub fn divert<T: Codec + 'static>(value: &T, w: &mut MsgpackWriter) -> Result<bool, EncodeError> {
    let Some(mut here) = DIVERTING.try_with(Cell::get).ok().flatten() else {
        return Ok(false);
    };
    if !std::ptr::eq(here.writer, w) {
        return Ok(false);
    }
    if here.root == Some((TypeId::of::<T>(), w.as_slice().len())) {
        // Once: a value of the root's type inside it is diverted.
        here.root = None;
        DIVERTING.with(|d| d.set(Some(here)));
        return Ok(false);
    }
    divert_slow(value, &HandledType::of::<T>(), here, w)?;
    Ok(true)
}

#[cold]
fn divert_slow(
    value: &dyn Any,
    ty: &HandledType,
    here: Diverting,
    w: &mut MsgpackWriter,
) -> Result<(), EncodeError> {
    // The store's own encodings (a handler's sub-values) set their own.
    let _restore = Restore(&DIVERTING, DIVERTING.with(|d| d.replace(None)));
    // SAFETY: `here` is the current `diverting` call's, whose `divert`
    // is alive and not otherwise used while it runs `encode`.
    let index = unsafe { (*here.divert).divert(value, ty)? };
    w.write_raw(&PLACEHOLDER);
    w.write_raw(&index.to_be_bytes());
    w.write_raw(&ty.kind.bits().to_be_bytes());
    w.write_raw(&[0, 0]);
    Ok(())
}

/// What a tagged union calls before it merges the fields of a newtype
/// variant's payload, of type `type_name`, which has a store handler,
/// into its map: such a value cannot be given to its handler, so
/// encoding it for the store is an error naming the fix.
#[doc(hidden)]
#[cold]
pub fn refuse_merged(type_name: &str, w: &MsgpackWriter) -> Result<(), EncodeError> {
    let diverting = DIVERTING
        .try_with(Cell::get)
        .ok()
        .flatten()
        .is_some_and(|d| std::ptr::eq(d.writer, w));
    if !diverting {
        return Ok(());
    }
    Err(EncodeError::Custom {
        message: format!(
            "`{}` has a store handler, but as the payload of a newtype variant its fields merge \
             into the enum's map, where no handler can keep it; make the variant a struct \
             variant (`V {{ value: {0} }}`), whose field holds it",
            type_name
        ),
    })
}

/// What a derived type with a store handler calls first in
/// `decode_msgpack`: the value, if a placeholder stands here.
#[doc(hidden)]
#[inline]
pub fn undivert<T: Codec + 'static>(r: &mut MsgpackReader<'_>) -> Result<Option<T>, DecodeError> {
    if r.peek_placeholder().is_none() {
        return Ok(None);
    }
    undivert_slow(r, &HandledType::of::<T>()).map(|boxed| {
        Some(
            *boxed
                .downcast::<T>()
                .expect("an Undivert returns a value of the type asked"),
        )
    })
}

#[cold]
fn undivert_slow(r: &mut MsgpackReader<'_>, ty: &HandledType) -> Result<Box<dyn Any>, DecodeError> {
    let Some(undivert) = UNDIVERTING.try_with(Cell::get).ok().flatten() else {
        return Err(r.error(DecodeErrorKind::Custom {
            message: format!(
                "a value of `{}` kept apart by its store handler stands here; \
                 read the entry with the cache store's `get`",
                ty.rust_name
            ),
        }));
    };
    let (_, data) = r.read_ext()?;
    let index = u32::from_be_bytes(data[..4].try_into().expect("8 bytes"));
    // Sub-values decoded by the store set their own.
    let _restore = Restore(&UNDIVERTING, UNDIVERTING.with(|u| u.replace(None)));
    // SAFETY: set by the `reading_handled` call that is running.
    unsafe { (*undivert).undivert(index, ty) }
}

impl MsgpackReader<'_> {
    /// The kinds of the handled value whose placeholder is next, if one is.
    #[inline]
    pub(crate) fn peek_placeholder(&self) -> Option<WireKind> {
        let rest = self.cursor.rest();
        if rest.len() < 10 || rest[..2] != PLACEHOLDER {
            return None;
        }
        Some(WireKind::from_bits(u16::from_be_bytes([rest[6], rest[7]])))
    }

    /// Whether placeholders are read here: inside the store's decoding.
    pub(crate) fn reads_placeholders() -> bool {
        UNDIVERTING.try_with(Cell::get).ok().flatten().is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The placeholder of value 3, of a type whose encoding is a map.
    const MAP_PLACEHOLDER: [u8; 10] = [0xd7, 99, 0, 0, 0, 3, 0, 0x80, 0, 0];

    struct Nothing;

    impl Undivert for Nothing {
        fn undivert(&self, _: u32, _: &HandledType) -> Result<Box<dyn Any>, DecodeError> {
            Err(DecodeError::custom("nothing"))
        }
    }

    #[test]
    fn a_placeholder_has_its_types_kinds_only_where_the_store_reads() {
        // Elsewhere it is the extension value it is (a user's own type 99).
        let r = MsgpackReader::new(&MAP_PLACEHOLDER);
        assert!(r.peek_kind().unwrap().is(WireKind::EXT));
        reading_handled(&Nothing, || {
            let r = MsgpackReader::new(&MAP_PLACEHOLDER);
            assert!(r.peek_kind().unwrap().is(WireKind::MAP));
        });
        let r = MsgpackReader::new(&MAP_PLACEHOLDER);
        assert!(
            r.peek_kind().unwrap().is(WireKind::EXT),
            "not once it returned"
        );
    }

    #[test]
    fn a_placeholder_read_outside_the_store_names_the_fix() {
        let mut r = MsgpackReader::new(&MAP_PLACEHOLDER);
        let err = undivert::<crate::value::Value>(&mut r).unwrap_err();
        assert!(err.to_string().contains("cache store's `get`"), "{err}");
        // Not a placeholder: nothing to do.
        let mut r = MsgpackReader::new(&[0xc0]);
        assert!(undivert::<crate::value::Value>(&mut r).unwrap().is_none());
    }
}
