"""The package over the Rust store: values Rust wrote read in Python and
the other way round, the readability check on both sides, and the
store's rules (keys, TTL, errors) as Python sees them."""

from __future__ import annotations

import pathlib
import time
import types
import typing

import msgspec
import pytest

import codec
from conftest import need


def test_values_rust_wrote_read_as_their_classes(
    rust: typing.Callable[..., str], v1: types.ModuleType, tmp_path: pathlib.Path
) -> None:
    rust("write", str(tmp_path))
    cache = codec.Cache.open(tmp_path)
    assert cache.get("chunk", v1.Chunk) == v1.Chunk(text="chunk 7", start=7, end=12)
    doc = cache.get("doc", v1.Doc)
    assert doc == v1.Doc(
        title="$ref",
        default=None,
        chunks=[v1.Chunk(text="chunk 1", start=1, end=6), v1.Chunk(text="chunk 2", start=2, end=7)],
        tags={"a": 1, "b": 2},
        event=v1.Key(code="Enter"),
    )
    assert cache.get("event", v1.Event) == v1.Click(x=3, y=-4)
    # Untyped: any entry, whatever type wrote it.
    assert cache.get("chunk") == {"text": "chunk 7", "start": 7, "end": 12}
    assert cache.get("number") == 42
    assert cache.get_bytes("raw") == b"\x00raw bytes"
    assert cache.get("missing", v1.Chunk) is None
    assert sorted(cache.keys()) == ["array", "chunk", "doc", "event", "number", "raw"]
    assert "doc" in cache and "missing" not in cache and len(cache) == 6


def test_a_newer_class_reads_what_rust_would_read_and_refuses_the_rest(
    rust: typing.Callable[..., str],
    v1: types.ModuleType,
    v2: types.ModuleType,
    tmp_path: pathlib.Path,
) -> None:
    rust("write", str(tmp_path))
    cache = codec.Cache.open(tmp_path)
    # A field added with a default: read, the field at its default.
    assert cache.get("chunk", v2.Chunk) == v2.Chunk(text="chunk 7", start=7, end=12, source=None)
    # A type changed inside a map of a nested field: refused, naming it.
    with pytest.raises(codec.SchemaError) as refused:
        cache.get("doc", v2.Doc)
    message = str(refused.value)
    assert "shared.Doc.tags.*: integer -> string (breaking)" in message, message
    assert v1.Doc.__codec_fingerprint__ in message and v2.Doc.__codec_fingerprint__ in message
    # Another type altogether.
    with pytest.raises(codec.SchemaError, match="is a `shared.Doc`, not a `shared.Chunk`"):
        cache.get("doc", v1.Chunk)


def test_values_python_wrote_read_in_rust(
    rust: typing.Callable[..., str], v1: types.ModuleType, tmp_path: pathlib.Path
) -> None:
    cache = codec.Cache.open(str(tmp_path))
    cache.put("py/chunk", v1.Chunk(text="chunk 9", start=9, end=14))
    doc = v1.Doc(
        title="$ref",
        default=None,
        chunks=[v1.Chunk(text="chunk 1", start=1, end=6), v1.Chunk(text="chunk 2", start=2, end=7)],
        # Inserted out of order: stored sorted, as Rust sorts maps.
        tags={"b": 2, "a": 1},
        event=v1.Key(code="Enter"),
    )
    cache.put("py/doc", doc)
    cache.put("py/event", v1.Key(code="Esc"), type=v1.Event)
    cache.put("py/untyped", {"a": [1, 2.5, "x", None]})
    numpy = need("numpy")
    cache.put_array("py/array", numpy.arange(6, dtype=numpy.float32).reshape(3, 2) + 0.5)
    assert rust("check", str(tmp_path)).strip() == "ok"
    # And back in Python, from JSON too.
    assert cache.get("py/doc", v1.Doc) == doc
    cache.put("py/json", doc, json=True)
    assert cache.get("py/json", v1.Doc) == doc
    assert cache.get("py/event", v1.Event) == v1.Key(code="Esc")


def test_a_value_that_does_not_match_its_class_is_refused_before_it_is_stored(
    v1: types.ModuleType, tmp_path: pathlib.Path
) -> None:
    cache = codec.Cache.open(tmp_path)
    # msgspec does not check types when a class is built; the store does
    # before it writes.
    with pytest.raises(codec.DecodeError, match="does not match its type `shared.Chunk`"):
        cache.put("bad", v1.Chunk(text="x", start=-1, end=2))
    with pytest.raises(codec.DecodeError, match="shared.Chunk"):
        cache.put("bad", v1.Chunk(text=3, start=1, end=2))  # type: ignore[arg-type]
    assert "bad" not in cache


def test_keys_ttl_and_removal_follow_the_stores_rules(
    v1: types.ModuleType, tmp_path: pathlib.Path
) -> None:
    cache = codec.Cache.open(tmp_path)
    for bad in ["", "a\nb", "x" * 5000]:
        with pytest.raises(codec.KeyRuleError):
            cache.put(bad, 1)
        with pytest.raises(codec.KeyRuleError):
            cache.get(bad)
    cache.put("short", v1.Chunk(text="t", start=0, end=1), ttl=0.05)
    cache.put("long", 1, ttl=3600)
    time.sleep(0.2)
    assert cache.get("short", v1.Chunk) is None
    assert cache.get("long") == 1
    with pytest.raises(ValueError, match="ttl"):
        cache.put("k", 1, ttl=-1)
    assert cache.remove("long") is True
    assert cache.remove("long") is False
    assert cache.get("long") is None
    # As a mapping, as exca's CacheDict.
    cache["m"] = v1.Chunk(text="m", start=1, end=2)
    assert cache["m"] == {"text": "m", "start": 1, "end": 2}
    assert cache.get("m", v1.Chunk) == v1.Chunk(text="m", start=1, end=2)
    del cache["m"]
    with pytest.raises(KeyError):
        cache["m"]
    with pytest.raises(KeyError):
        del cache["m"]
    assert list(cache) == cache.keys()


def test_types_the_generator_did_not_write_are_refused_with_the_fix(
    v1: types.ModuleType, tmp_path: pathlib.Path
) -> None:
    cache = codec.Cache.open(tmp_path)

    class Own(msgspec.Struct):
        x: int

    with pytest.raises(TypeError, match="not a type `codec python` generated"):
        cache.get("k", Own)

    class Edited(msgspec.Struct):
        __codec_name__: typing.ClassVar[str] = "shared.Chunk"
        __codec_fingerprint__: typing.ClassVar[str] = "00000000000000000000000000000000"
        text: str

    with pytest.raises(TypeError, match="carries no schema"):
        cache.get("k", Edited)
    # A class whose schema and fingerprint disagree: edited by hand.
    v1.CODEC_SCHEMAS["00000000000000000000000000000000"] = v1.CODEC_SCHEMAS[v1.Chunk.__codec_fingerprint__]
    Edited.__module__ = v1.__name__
    try:
        with pytest.raises(TypeError, match="edited by hand"):
            cache.get("k", Edited)
    finally:
        del v1.CODEC_SCHEMAS["00000000000000000000000000000000"]


def test_memo_keys_are_the_ones_rust_computes(
    rust: typing.Callable[..., str], tmp_path: pathlib.Path
) -> None:
    assert rust("memo", str(tmp_path), "0", "10").strip() == "computed 10"
    cache = codec.Cache.open(tmp_path)
    for n in range(10):
        key = codec.memo_key("shared::embed", 1, f"input {n}", 4)
        expected = [len(f"input {n}") * 0.5 + i for i in range(4)]
        assert cache.get(key) == {"values": expected}, key
    # Pinned in Rust too (`codec::content_hash(&("embed".to_string(), 3u32))`).
    assert codec.content_hash("embed", 3) == "0eaf4feede31dec91e34ab3f20977cd76495192bdf93374998228844ae43e106"


def test_bounds_remove_the_least_recently_used_entries(
    v1: types.ModuleType, tmp_path: pathlib.Path
) -> None:
    cache = codec.Cache.open(tmp_path, max_entries=1000)
    for n in range(300):
        cache.put(f"k{n}", v1.Chunk(text=f"chunk {n}", start=n, end=n + 1))
    # Used last: kept.
    assert cache.get("k0", v1.Chunk) is not None
    removed = cache.reduce_size(max_entries=100)
    assert len(removed) == 200 and "k0" not in removed and "k299" not in removed
    assert len(cache) == 100 and "k0" in cache and "k1" not in cache
    with pytest.raises(ValueError, match="max_age"):
        cache.reduce_size(max_age=0)


def test_arrays_rust_stored_are_numpy_views_of_the_memory_map(
    rust: typing.Callable[..., str], tmp_path: pathlib.Path
) -> None:
    numpy = need("numpy")
    rust("write", str(tmp_path))
    cache = codec.Cache.open(tmp_path)
    table = cache.get_array("array")
    assert table.shape == (100, 8) and table.dtype == numpy.float64
    assert table[99, 7] == 799.0 and table[3, 1] == 25.0
    # Not a copy: the bytes are the map's, lent read-only.
    assert not table.flags.owndata and not table.flags.writeable
    owner = table
    while isinstance(owner, numpy.ndarray):
        owner = owner.base
    assert isinstance(owner, codec._native.ArrayBuffer), owner
    with pytest.raises(ValueError):
        table[0, 0] = 1.0
    with pytest.raises(codec.CacheError, match="dtype `<f8`, not `<f4`"):
        cache.get_array("array", numpy.float32)
    assert cache.get_array("missing") is None
    # Round trip of every dtype, any shape.
    for dtype in ["f8", "f4", "i8", "i4", "i2", "i1", "u8", "u4", "u2", "u1", "?"]:
        array = (numpy.arange(24) % 7).astype(dtype).reshape(2, 3, 4)
        cache.put_array(f"a/{dtype}", array)
        back = cache.get_array(f"a/{dtype}")
        assert back.dtype == array.dtype and numpy.array_equal(back, array), dtype
    with pytest.raises(ValueError, match="is not one a stored array has"):
        cache.put_array("c", numpy.zeros(2, dtype=numpy.complex128))


def test_content_hashes_of_every_kind_of_argument_are_rusts(
    rust: typing.Callable[..., str], v1: types.ModuleType
) -> None:
    chunk = lambda n: v1.Chunk(text=f"chunk {n}", start=n, end=n + 5)  # noqa: E731
    doc = v1.Doc(
        title="$ref",
        default=None,
        chunks=[chunk(1), chunk(2)],
        tags={"b": 2, "a": 1},
        event=v1.Key(code="Enter"),
    )
    ours = [
        codec.content_hash("text"),
        codec.content_hash("héllo ✓", ""),
        codec.content_hash(42, -7, 0),
        codec.content_hash(2**64 - 1, -(2**63), 255, -129),
        codec.content_hash(2.5, 0.1, -0.0, 1e300),
        codec.content_hash(True, False),
        codec.content_hash(None, 3),
        codec.content_hash(b"\x01\x02\x03"),
        codec.content_hash([1, 2, 3], []),
        codec.content_hash({"b": 2, "a": 1}),
        codec.content_hash({"z": [1], "y": []}),
        codec.content_hash({"q", "p"}, {3, 1, 2}),
        codec.content_hash(chunk(3)),
        codec.content_hash(v1.Key(code="Enter"), v1.Click(x=-1, y=2)),
        codec.content_hash(doc),
        codec.content_hash([chunk(1), chunk(2)], chunk(4)),
        codec.content_hash(("embed", 3)),
    ]
    theirs = rust("hashes").split()
    assert len(theirs) == len(ours)
    for i, (mine, rusts) in enumerate(zip(ours, theirs)):
        assert mine == rusts, f"case {i}"
