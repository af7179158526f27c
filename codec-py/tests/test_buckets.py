"""The same values in a bucket: S3 (moto) and Azure (Azurite), written by
Rust and read by Python, and the other way round."""

from __future__ import annotations

import types
import typing

import pytest

import codec
from conftest import need


@pytest.fixture(params=["s3", "azure"])
def bucket(request: pytest.FixtureRequest) -> str:
    name = "s3_bucket" if request.param == "s3" else "azure_prefix"
    return str(request.getfixturevalue(name))


def test_values_cross_between_rust_and_python_in_a_bucket(
    rust: typing.Callable[..., str], v1: types.ModuleType, v2: types.ModuleType, bucket: str
) -> None:
    rust("write", bucket)
    cache = codec.Cache.open(bucket)
    assert cache.location == bucket
    assert cache.get("chunk", v1.Chunk) == v1.Chunk(text="chunk 7", start=7, end=12)
    assert cache.get("chunk", v2.Chunk) == v2.Chunk(text="chunk 7", start=7, end=12, source=None)
    with pytest.raises(codec.SchemaError, match="integer -> string"):
        cache.get("doc", v2.Doc)
    table = cache.get_array("array")
    assert table.shape == (100, 8) and table[99, 7] == 799.0
    cache.put("py/chunk", v1.Chunk(text="chunk 9", start=9, end=14))
    cache.put("py/doc", cache.get("doc", v1.Doc))
    cache.put("py/event", v1.Key(code="Esc"), type=v1.Event)
    cache.put("py/untyped", {"a": [1, 2.5, "x", None]})
    numpy = need("numpy")
    cache.put_array("py/array", numpy.arange(6, dtype=numpy.float32).reshape(3, 2) + 0.5)
    assert rust("check", bucket).strip() == "ok"
