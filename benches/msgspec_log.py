#!/usr/bin/env python3
"""msgspec 0.22 on the log workload, for comparison with `cargo bench -p codec-benches --bench log`.

Generates the same 10,000 records (splitmix64 seeded 0x5eed1234, fields in
the dataset's order), checks that msgspec's MessagePack bytes equal codec's
(written by the bench to target/criterion/log.msgpack; run the bench first),
and prints ns/record. Exits with status 1, before timing anything, when the
bytes differ or the bench's file is missing.

    python3 -m venv /tmp/msgspec && /tmp/msgspec/bin/pip install msgspec==0.22.0
    /tmp/msgspec/bin/python benches/msgspec_log.py
"""
import os
import sys
import time
from typing import Optional, Union

import msgspec

MASK = (1 << 64) - 1


class Rng:
    def __init__(self):
        self.state = 0x5EED1234

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)

    def range(self, lo, hi):
        return lo + self.next() % (hi - lo + 1)

    def word(self, lo, hi):
        alphabet = "abcdefghijklmnopqrstuvwxyz0123456789_-"
        n = self.range(lo, hi)
        return "".join(alphabet[self.range(0, len(alphabet) - 1)] for _ in range(n))


class Cached(msgspec.Struct, tag=True):
    pass


class Computed(msgspec.Struct, tag=True):
    value: int


class Failed(msgspec.Struct, tag=True):
    code: int
    reason: str


class Record(msgspec.Struct):
    service: str
    path: str
    ts: int
    status: int
    user: Optional[str]
    tags: list[int]
    kind: Union[Cached, Computed, Failed]


def generate():
    statuses = [200, 200, 200, 201, 204, 301, 304, 400, 404, 500]
    rng = Rng()
    out = []
    for i in range(10_000):
        service = rng.word(6, 12)
        path = "/api/" + rng.word(5, 20)
        ts = 1_700_000_000_000 + i * 37 + rng.range(0, 1000)
        status = statuses[rng.range(0, 9)]
        user = None if rng.range(0, 1) == 0 else rng.word(5, 10)
        tags = [rng.range(0, 99_999) for _ in range(rng.range(2, 6))]
        k = rng.range(0, 2)
        if k == 0:
            kind = Cached()
        elif k == 1:
            kind = Computed(value=rng.range(0, 2**32 - 1))
        else:
            kind = Failed(code=rng.range(0, 999), reason=rng.word(8, 20))
        out.append(Record(service, path, ts, status, user, tags, kind))
    return out


def best(fn, repeat=30):
    times = []
    for _ in range(repeat):
        t = time.perf_counter_ns()
        fn()
        times.append(time.perf_counter_ns() - t)
    times.sort()
    return times[len(times) // 2] / 10_000


def main():
    records = generate()
    enc = msgspec.msgpack.Encoder()
    dec = msgspec.msgpack.Decoder(list[Record])
    data = enc.encode(records)
    theirs = os.path.join(os.path.dirname(__file__), "..", "target", "criterion", "log.msgpack")
    if not os.path.exists(theirs):
        sys.exit(f"{theirs} is missing: run `cargo bench -p codec-benches --bench log` first")
    with open(theirs, "rb") as f:
        ours = f.read()
    if ours != data:
        at = next((i for i, (a, b) in enumerate(zip(ours, data)) if a != b), min(len(ours), len(data)))
        sys.exit(
            f"msgspec's bytes differ from codec's: {len(data)} bytes against {len(ours)}, "
            f"first difference at byte {at}"
        )
    print("msgspec bytes equal codec's")
    jenc, jdec = msgspec.json.Encoder(), msgspec.json.Decoder(list[Record])
    text = jenc.encode(records)
    print(f"bytes/record: msgpack {len(data) / 10_000:.1f}, json {len(text) / 10_000:.1f}")
    print(f"msgpack encode {best(lambda: enc.encode(records)):.0f} ns/record, decode {best(lambda: dec.decode(data)):.0f}")
    print(f"json    encode {best(lambda: jenc.encode(records)):.0f} ns/record, decode {best(lambda: jdec.decode(text)):.0f}")


if __name__ == "__main__":
    main()
