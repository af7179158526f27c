//! The Python side of codec's stored values (`codec::to_stored`): each type
//! added to a module carries its wire name, the names it also accepts
//! (`#[codec(alias = "...")]`) and its schema fingerprint, and the module
//! ends with `from_stored`, which reads the envelope, checks it as Rust's
//! `from_stored` does, and decodes the payload with msgspec. (A type the
//! added ones only contain has a definition among theirs, but not its own
//! schema, so no fingerprint.)
//!
//! Rust reads a value written with the same fingerprint whatever name it
//! was written under, and one written with another schema under an
//! accepted name (the name, an alias, the same generic type with other
//! arguments) when every change is compatible. Python cannot compare
//! schemas: it reads the first, and refuses the second naming both
//! fingerprints.

use super::names::python_str;

/// A definition's wire name and schema fingerprint, as an envelope holds
/// them, and the other names it reads.
#[derive(Debug, Clone)]
pub(super) struct Identity {
    pub(super) name: String,
    pub(super) aliases: Vec<String>,
    pub(super) fingerprint: String,
    /// The fingerprint earlier versions of codec gave the same schema,
    /// where it was exact and is not today's: values they stored read.
    pub(super) legacy_fingerprint: Option<String>,
    /// The schema as a store keeps its writer's (compact, without
    /// descriptions): what a reader diffs a value of another schema
    /// against.
    pub(super) schema: String,
}

impl Identity {
    /// The lines a class of a definition starts with (its aliases only if
    /// it has some).
    pub(super) fn class_vars(&self) -> String {
        let mut out = format!(
            "    __codec_name__: typing.ClassVar[str] = {}\n",
            python_str(&self.name)
        );
        if !self.aliases.is_empty() {
            out.push_str(&format!(
                "    __codec_aliases__: typing.ClassVar[tuple[str, ...]] = {}\n",
                self.aliases_tuple()
            ));
        }
        out.push_str(&format!(
            "    __codec_fingerprint__: typing.ClassVar[str] = {}\n",
            python_str(&self.fingerprint)
        ));
        if let Some(legacy) = &self.legacy_fingerprint {
            out.push_str(&format!(
                "    __codec_legacy_fingerprint__: typing.ClassVar[str] = {}\n",
                python_str(legacy)
            ));
        }
        out
    }

    /// `("a", "b")`, `("a",)` or `()`.
    fn aliases_tuple(&self) -> String {
        let items: Vec<String> = self.aliases.iter().map(|a| python_str(a)).collect();
        match items.len() {
            1 => format!("({},)", items[0]),
            _ => format!("({})", items.join(", ")),
        }
    }
}

/// The fingerprint of each type a generated module names, by wire name:
/// read from its classes' `__codec_name__` and `__codec_fingerprint__`,
/// and from the rows of `CODEC_TYPES`.
pub(super) fn fingerprints(module: &str) -> std::collections::BTreeMap<String, String> {
    /// The double-quoted strings of a line, as `python_str` writes them.
    fn quoted(line: &str) -> Vec<&str> {
        line.split('"').skip(1).step_by(2).collect()
    }
    let mut out = std::collections::BTreeMap::new();
    let mut name = None;
    for line in module.lines() {
        let line = line.trim();
        if line.starts_with("__codec_name__") {
            name = quoted(line).first().map(|n| n.to_string());
        } else if line.starts_with("__codec_fingerprint__") {
            if let (Some(n), Some(fp)) = (name.take(), quoted(line).first()) {
                out.insert(n, fp.to_string());
            }
        } else if line.starts_with('(')
            && let [n, fp, ..] = quoted(line)[..]
            && fp.len() == 32
        {
            out.insert(n.to_owned(), fp.to_owned());
        }
    }
    out
}

/// The end of the module: the identities of the types that are not classes
/// (unions and aliases: `(Python type, wire name, fingerprint, aliases)`),
/// and the helper.
pub(super) fn helper(
    others: &[(String, Identity)],
    identities: &std::collections::BTreeMap<String, Identity>,
) -> String {
    let mut out = String::from(
        "\n\n# The wire name and schema fingerprint of each type that is not a class;\n\
         # classes carry theirs as __codec_name__ and __codec_fingerprint__.\n\
         CODEC_TYPES: tuple[tuple[typing.Any, str, str, tuple[str, ...]], ...] = (\n",
    );
    for (class, id) in others {
        out.push_str(&format!(
            "    ({class}, {}, {}, {}),\n",
            python_str(&id.name),
            python_str(&id.fingerprint),
            id.aliases_tuple()
        ));
    }
    out.push_str(")\n");
    out.push_str(
        "\n\n# The schema of each fingerprint above, as a store keeps its writer's: the\n\
         # `codec` Python package reads a value written with another schema when Rust\n\
         # would, by comparing the two.\n\
         CODEC_SCHEMAS: dict[str, str] = {\n",
    );
    let mut schemas: Vec<(&str, &str)> = Vec::new();
    for id in identities.values() {
        schemas.push((&id.fingerprint, &id.schema));
        if let Some(legacy) = &id.legacy_fingerprint {
            schemas.push((legacy, &id.schema));
        }
    }
    schemas.sort();
    schemas.dedup_by_key(|(fp, _)| *fp);
    for (fingerprint, schema) in schemas {
        out.push_str(&format!(
            "    {}: {},\n",
            python_str(fingerprint),
            python_str(schema)
        ));
    }
    out.push_str("}\n");
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
    this module, once the envelope says it was written with the schema this
    module was generated from (else raises StoredValueError)."""
    found, fingerprint, payload = _read_envelope(data)
    candidates = [(n, f, a) for t, n, f, a in CODEC_TYPES if t is type]
    if hasattr(type, "__codec_name__"):
        aliases = getattr(type, "__codec_aliases__", ())
        candidates = [(type.__codec_name__, type.__codec_fingerprint__, aliases)]
        # The fingerprint an earlier codec gave this very schema.
        legacy = getattr(type, "__codec_legacy_fingerprint__", None)
        if legacy is not None:
            candidates.append((type.__codec_name__, legacy, aliases))
    if not candidates:
        raise TypeError(
            f"{type!r} is not one of the types this module was generated for "
            "(those added to it, not the types they contain): add it to the module "
            "to read its stored values"
        )
    # As in Rust: the same schema reads whatever name it was stored under.
    if any(f == fingerprint for _, f, _ in candidates):
        return msgspec.msgpack.decode(payload, type=type)
    named = [(n, f) for n, f, a in candidates if _accepts_name(n, a, found)]
    if not named:
        raise StoredValueError(
            f"stored value is a `{found}`, not a `{candidates[0][0]}`; read it as `{found}`"
        )
    name, expected = named[0]
    raise StoredValueError(
        f"stored `{found}` was written with schema {fingerprint}, and this module's "
        f"`{name}` has schema {expected}: regenerate the module from the types "
        "that wrote it, or read the value in Rust (codec::from_stored), which "
        "decodes compatible changes"
    )


def _accepts_name(name: str, aliases: tuple[str, ...], found: str) -> bool:
    """Whether a value stored as `found` is one of the type named `name`:
    the name, an alias, or the same generic type with other arguments."""
    if found == name or found in aliases:
        return True
    base, ours = found.partition("<"), name.partition("<")
    return bool(base[1] and ours[1]) and (base[0] == ours[0] or base[0] in aliases)


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
