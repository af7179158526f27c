"""A user's program, as `mypy --strict` checks it: a Rust service's cache
read and written with the classes `codec python` generated
(`shared_v1.py` beside it)."""

from __future__ import annotations

import sys

import codec
from shared_v1 import Chunk, Click, Doc, Event


def main(location: str) -> None:
    cache = codec.Cache.open(location)
    cache.put("chunk", Chunk(text="hello", start=0, end=5), ttl=3600.0)
    chunk: Chunk | None = cache.get("chunk", Chunk)
    if chunk is not None:
        print(chunk.text.upper(), chunk.end - chunk.start)
    cache.put("event", Click(x=1, y=2), type=Event)
    doc = cache.get("doc", Doc)
    titles: list[str] = [doc.title] if doc is not None else []
    print(titles, "chunk" in cache, len(cache), sorted(cache.keys()))
    print(codec.memo_key("shared::embed", 1, "input 0", 4))
    try:
        cache.get("chunk", Doc)
    except codec.SchemaError as e:
        print("refused:", e)


if __name__ == "__main__":
    main(sys.argv[1])
