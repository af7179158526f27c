"""Fixtures: the Rust program that shares its caches with the tests
(`examples/python_shared.rs`, built once with cargo) and the msgspec
classes it generates from its types."""

from __future__ import annotations

import importlib.util
import os
import pathlib
import subprocess
import sys
import types
import typing

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def rust_program() -> str:
    """The Rust program's path. `CODEC_SHARED_PROGRAM` names it when
    built; else cargo builds it, with the features the workspace's tests
    build (so, after them, nothing)."""
    program = os.environ.get("CODEC_SHARED_PROGRAM")
    if program is None:
        target = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
        subprocess.run(
            ["cargo", "build", "--quiet", "--workspace", "--all-features"]
            + ["--example", "python_shared"],
            cwd=REPO,
            check=True,
        )
        program = str(target / "debug" / "examples" / "python_shared")
    return program


@pytest.fixture(scope="session")
def rust(rust_program: str) -> typing.Callable[..., str]:
    """Runs the Rust program with arguments; returns what it printed."""
    program = rust_program

    def run(*args: str) -> str:
        done = subprocess.run([program, *args], capture_output=True, text=True)
        if done.returncode != 0:
            raise AssertionError(f"python_shared {' '.join(args)}: {done.stderr}")
        return done.stdout

    return run


def _module(rust: typing.Callable[..., str], version: str, tmp: pathlib.Path) -> types.ModuleType:
    name = f"shared_{version}"
    path = tmp / f"{name}.py"
    path.write_text(rust("module", version))
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def v1(rust: typing.Callable[..., str], tmp_path_factory: pytest.TempPathFactory) -> types.ModuleType:
    """The classes of the Rust types `v1`."""
    return _module(rust, "v1", tmp_path_factory.mktemp("models"))


@pytest.fixture(scope="session")
def v2(rust: typing.Callable[..., str], tmp_path_factory: pytest.TempPathFactory) -> types.ModuleType:
    """The classes of the Rust types `v2`: `Chunk` changed compatibly,
    `Doc` not."""
    return _module(rust, "v2", tmp_path_factory.mktemp("models"))
