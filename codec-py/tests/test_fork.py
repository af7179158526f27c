"""A process forked from one whose handles ran background work
(`multiprocessing`'s default start on Linux) has none of its parent's
threads: its own handles' background work (checkpoint builds, passes of
the bounds) runs all the same, and a handle dropped in it waits for
nothing that never runs."""

from __future__ import annotations

import os
import pathlib
import signal
import time

import pytest

import codec


def _fill(location: pathlib.Path) -> None:
    """Puts enough to start builds and passes, then drops the handle,
    which waits for its background work."""
    cache = codec.Cache.open(location, max_entries=50)
    for n in range(400):
        cache.put(f"k{n}", {"n": n, "text": "x" * 200})
    del cache


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the platform does not fork")
def test_a_forked_child_runs_its_own_background_work(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A checkpoint every 4 KiB of logs: a build every few puts.
    monkeypatch.setenv("CODEC_STORE_CHECKPOINT_BYTES", "4096")
    _fill(tmp_path / "parent")
    # The parent's threads, their jobs done, wait for the next: listed
    # idle a moment after.
    time.sleep(0.5)
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            _fill(tmp_path / "child")
            code = 0
        finally:
            os._exit(code)
    deadline = time.monotonic() + 60
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            pytest.fail("the forked child's handle waited for work that never ran")
        time.sleep(0.05)
    assert os.waitstatus_to_exitcode(status) == 0
