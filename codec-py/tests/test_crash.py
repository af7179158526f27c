"""A Python writer killed mid-put (SIGKILL, at points spread over its
writes) loses no write it was told had landed, and leaves a store every
reader opens without a warning but one: a kill can cut a line's write
where it crosses a page of the file (the kernel stops a write between
pages for a fatal signal), and the next writer ends that line, which
readers then skip with a warning, as for any torn line. That line's put
was never acknowledged."""

from __future__ import annotations

import pathlib
import signal
import subprocess
import sys
import time

import codec

WRITER = """
import sys, codec
cache = codec.Cache.open(sys.argv[1])
n = 0
while True:
    # Inline and shared-data-file sizes, every 7th overwriting the one before.
    value = {"n": n, "text": ("x" * (n % 3) * 900) or f"value {n}"}
    cache.put(f"k{n}", value)
    if n % 7 == 6:
        cache.put(f"k{n - 1}", {"n": n - 1, "text": "overwritten"})
    print(f"ack {n}", flush=True)
    n += 1
"""


def _expected(n: int, done: int) -> list[dict[str, object]]:
    """What key `n` may hold once `done` puts were acknowledged."""
    first = {"n": n, "text": ("x" * (n % 3) * 900) or f"value {n}"}
    overwritten = {"n": n, "text": "overwritten"}
    if n % 7 == 5:
        return [overwritten] if n + 1 < done else [first, overwritten]
    return [first]


def test_a_python_writer_killed_mid_put_loses_no_acknowledged_write(tmp_path: pathlib.Path) -> None:
    done = 0
    for point in range(12):
        writer = subprocess.Popen(
            [sys.executable, "-c", WRITER, str(tmp_path)],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert writer.stdout is not None
        # Some writes, then a kill at a moment that moves with `point`.
        for _ in range(20 + point * 7):
            line = writer.stdout.readline()
            assert line.startswith("ack "), line
        time.sleep(point * 0.0007)
        writer.send_signal(signal.SIGKILL)
        rest = writer.stdout.read()
        writer.wait()
        last = [int(l.split()[1]) for l in (line + rest).splitlines() if l.startswith("ack ")]
        acked = last[-1] + 1
        reader = codec.Cache.open(tmp_path)
        for n in range(acked):
            got = reader.get(f"k{n}")
            assert got in _expected(n, acked), (point, n, got)
        torn = "no checksum at the end of the line"
        others = [w for w in reader.warnings() if not ("skipped the line" in w and torn in w)]
        assert others == [], reader.warnings()
        done += acked
    assert done > 12 * 20
