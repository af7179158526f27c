//! The Python side of codec's stored values (`codec::to_stored`): each type
//! added to a module carries its wire name and schema fingerprint, and the
//! module ends with `from_stored`, which reads the envelope, checks both,
//! and decodes the payload with msgspec. (A type the added ones only
//! contain has a definition among theirs, but not its own schema, so no
//! fingerprint.)

use super::names::python_str;

/// A definition's wire name and schema fingerprint, as an envelope holds them.
pub(super) struct Identity {
    pub(super) name: String,
    pub(super) fingerprint: String,
}

impl Identity {
    /// The lines a class of a definition starts with.
    pub(super) fn class_vars(&self) -> String {
        format!(
            "    __codec_name__: typing.ClassVar[str] = {}\n    __codec_fingerprint__: typing.ClassVar[str] = {}\n",
            python_str(&self.name),
            python_str(&self.fingerprint)
        )
    }
}

/// The end of the module: the identities of the types that are not classes
/// (unions and aliases: `(Python type, wire name, fingerprint)`), and the
/// helper.
pub(super) fn helper(others: &[(String, Identity)]) -> String {
    let mut out = String::from(
        "\n\n# The wire name and schema fingerprint of each type that is not a class;\n\
         # classes carry theirs as __codec_name__ and __codec_fingerprint__.\n\
         CODEC_TYPES: tuple[tuple[typing.Any, str, str], ...] = (\n",
    );
    for (class, id) in others {
        out.push_str(&format!(
            "    ({class}, {}, {}),\n",
            python_str(&id.name),
            python_str(&id.fingerprint)
        ));
    }
    out.push_str(")\n");
    out.push_str(HELPER);
    out
}

const HELPER: &str = r#"

class StoredValueError(ValueError):
    """Bytes that are not a value stored as the type asked for: not codec's
    envelope, a value of another type, or one written with another schema."""


_T = typing.TypeVar("_T")


@typing.overload
def from_stored(data: bytes, type: type[_T]) -> _T: ...
@typing.overload
def from_stored(data: bytes, type: typing.Any) -> typing.Any: ...
def from_stored(data: bytes, type: typing.Any) -> typing.Any:
    """Decodes a value codec stored (`codec::to_stored`) as `type`, a type of
    this module, once the envelope says it was written as that type with the
    schema this module was generated from (else raises StoredValueError)."""
    found, fingerprint, payload = _read_envelope(data)
    candidates = [(n, f) for t, n, f in CODEC_TYPES if t is type]
    if hasattr(type, "__codec_name__"):
        candidates = [(type.__codec_name__, type.__codec_fingerprint__)]
    if not candidates:
        raise TypeError(
            f"{type!r} is not one of the types this module was generated for "
            "(those added to it, not the types they contain): add it to the module "
            "to read its stored values"
        )
    expected = [f for n, f in candidates if n == found]
    if not expected:
        raise StoredValueError(
            f"stored value is a `{found}`, not a `{candidates[0][0]}`; read it as `{found}`"
        )
    if fingerprint not in expected:
        raise StoredValueError(
            f"stored `{found}` was written with schema {fingerprint}, and this module's "
            f"`{found}` has schema {expected[0]}: regenerate the module from the types "
            "that wrote it, or read the value in Rust (codec::from_stored), which "
            "decodes compatible changes"
        )
    return msgspec.msgpack.decode(payload, type=type)


def _read_envelope(data: bytes) -> tuple[str, str, bytes]:
    """The wire name, the fingerprint (hex) and the payload of an envelope."""
    if data[:4] != b"\xc1CDC":
        raise StoredValueError(
            "not a stored value: these bytes were not written by codec::to_stored"
        )
    if data[4:5] != b"\x01":
        raise StoredValueError(
            f"envelope format {data[4:5].hex() or 'missing'} is not the format 01 this module reads"
        )
    name, pos = _header_item(data, 5, {0xD9: 1, 0xDA: 2, 0xDB: 4})
    fingerprint, pos = _header_item(data, pos, {0xC4: 1, 0xC5: 2, 0xC6: 4})
    _schema, pos = _header_item(data, pos, {0xC4: 1, 0xC5: 2, 0xC6: 4})
    return name.decode(), fingerprint.hex(), data[pos:]


def _header_item(data: bytes, pos: int, widths: dict[int, int]) -> tuple[bytes, int]:
    """A MessagePack str or bin of the envelope's header, and where it ends."""
    lead = data[pos] if pos < len(data) else -1
    if 0xA0 <= lead <= 0xBF and 0xD9 in widths:
        size, pos = lead & 0x1F, pos + 1
    elif lead in widths:
        width = widths[lead]
        size = int.from_bytes(data[pos + 1 : pos + 1 + width], "big")
        pos += 1 + width
    else:
        raise StoredValueError(f"damaged envelope header at byte {pos}")
    if pos + size > len(data):
        raise StoredValueError("truncated envelope header")
    return data[pos : pos + size], pos + size
"#;
