"""One memo cache, a Rust process and a Python one: the same keys for
the same calls, and each key computed once between them, on a folder and
on an S3 bucket (moto)."""

from __future__ import annotations

import os
import pathlib
import subprocess
import time
import types
import typing

import pytest

import codec

KEYS = 1000

# Each memo on moto is a dozen requests to a Python server: 1,000 keys
# take minutes there, so CI runs fewer (the variable asks for more).
BUCKET_KEYS = int(os.environ.get("CODEC_SHARED_BUCKET_KEYS", "200"))


def _embedding(text: str, dims: int) -> list[float]:
    return [len(text) * 0.5 + i for i in range(dims)]


def _share(
    rust_program: str, location: str, v1: types.ModuleType, keys: int, *, together: bool = False
) -> None:
    """Rust memoizes inputs 0..keys upwards while Python memoizes them
    downwards (or upwards too, `together`: both ask for each key at about
    the same time), both with memo_lock: every key is computed once, and
    (going opposite ways) each side computed some."""
    rust = subprocess.Popen(
        [rust_program, "memo", location, "0", str(keys)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    cache = codec.Cache.open(location, memo_lock=True)
    calls = 0

    @codec.memoize(cache, name="shared::embed", version=1, type=v1.Embedding)
    def embed(text: str, dims: int) -> typing.Any:
        nonlocal calls
        calls += 1
        time.sleep(0.002)
        return v1.Embedding(values=_embedding(text, dims))

    for n in range(keys) if together else reversed(range(keys)):
        got = embed(f"input {n}", 4)
        assert got == v1.Embedding(values=_embedding(f"input {n}", 4)), n
    out, err = rust.communicate(timeout=600)
    assert rust.returncode == 0, err
    rust_calls = int(out.split()[-1])
    print(f"{location}: Rust computed {rust_calls}, Python {calls}")
    assert rust_calls + calls == keys, (rust_calls, calls)
    if not together:
        assert rust_calls > 0 and calls > 0, (rust_calls, calls)
    # And now every call hits, on both sides.
    calls = 0
    for n in range(keys):
        embed(f"input {n}", 4)
    assert calls == 0
    out = subprocess.run(
        [rust_program, "memo", location, "0", str(keys)], capture_output=True, text=True, check=True
    ).stdout
    assert out.split()[-1] == "0", out


def test_a_rust_and_a_python_process_compute_each_memo_key_once_in_a_folder(
    rust_program: str, v1: types.ModuleType, tmp_path: pathlib.Path
) -> None:
    _share(rust_program, str(tmp_path / "apart"), v1, KEYS)
    _share(rust_program, str(tmp_path / "together"), v1, KEYS, together=True)


def test_a_rust_and_a_python_process_compute_each_memo_key_once_in_a_bucket(
    rust_program: str, v1: types.ModuleType, s3_bucket: str
) -> None:
    _share(rust_program, f"{s3_bucket}/memo", v1, BUCKET_KEYS)


def test_an_async_memo_hits_rusts_values_and_computes_a_key_once_in_the_process(
    rust_program: str, v1: types.ModuleType, tmp_path: pathlib.Path
) -> None:
    import asyncio

    subprocess.run([rust_program, "memo", str(tmp_path), "0", "5"], check=True, capture_output=True)
    cache = codec.Cache.open(tmp_path)
    calls: list[str] = []

    @codec.memoize(cache, name="shared::embed", version=1, type=v1.Embedding)
    async def embed(text: str, dims: int) -> typing.Any:
        calls.append(text)
        await asyncio.sleep(0.01)
        return v1.Embedding(values=_embedding(text, dims))

    async def main() -> list[typing.Any]:
        hits = [await embed(f"input {n}", 4) for n in range(5)]
        # Five callers of one new key at once: one computation.
        many = await asyncio.gather(*(embed("input 99", 4) for _ in range(5)))
        return hits + list(many)

    got = asyncio.run(main())
    assert calls == ["input 99"], calls
    assert got[0] == v1.Embedding(values=_embedding("input 0", 4))
    assert all(g == v1.Embedding(values=_embedding("input 99", 4)) for g in got[5:])
    # Rust hits what the async Python function stored.
    out = subprocess.run(
        [rust_program, "memo", str(tmp_path), "99", "100"], capture_output=True, text=True, check=True
    ).stdout
    assert out.split()[-1] == "0", out
