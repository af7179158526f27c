"""Fixtures: the Rust program that shares its caches with the tests
(`examples/python_shared.rs`, built once with cargo) and the msgspec
classes it generates from its types."""

from __future__ import annotations

import importlib
import importlib.util
import itertools
import os
import pathlib
import socket
import subprocess
import sys
import time
import types
import typing
import urllib.request

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]


def need(module: str) -> types.ModuleType:
    """`module`, or a skip where it is not installed, unless
    `CODEC_PY_SERVERS=required` (as `.ci/run` runs): then an error."""
    if os.environ.get("CODEC_PY_SERVERS") == "required":
        return importlib.import_module(module)
    return pytest.importorskip(module)


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


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


_names = itertools.count()


@pytest.fixture(scope="session")
def moto() -> typing.Iterator[int]:
    """moto's S3 server on a free port, and the variables that point the
    store (Rust's, in this process and in the Rust program) at it."""
    need("moto")
    port = _free_port()
    server = subprocess.Popen(
        [sys.executable, "-c", "import sys; from moto.server import main; main(sys.argv[1:])",
         "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    start = time.monotonic()
    while True:
        try:
            urllib.request.urlopen(
                urllib.request.Request(f"http://127.0.0.1:{port}/moto-api/reset", method="POST")
            )
            break
        except OSError:
            assert time.monotonic() - start < 60, "moto did not start"
            time.sleep(0.1)
    with pytest.MonkeyPatch.context() as patch:
        for name, value in {
            "AWS_ENDPOINT": f"http://127.0.0.1:{port}",
            "AWS_ALLOW_HTTP": "true",
            "AWS_ACCESS_KEY_ID": "test",
            "AWS_SECRET_ACCESS_KEY": "test",
            "AWS_REGION": "us-east-1",
        }.items():
            patch.setenv(name, value)
        yield port
    server.terminate()
    server.wait()


@pytest.fixture
def s3_bucket(moto: int) -> str:
    """A fresh bucket on moto, as a URL."""
    name = f"py-{os.getpid()}-{next(_names)}"
    request = urllib.request.Request(f"http://127.0.0.1:{moto}/{name}", method="PUT")
    urllib.request.urlopen(request)
    return f"s3://{name}"


@pytest.fixture(scope="session")
def azurite() -> typing.Iterator[int]:
    """Azurite's blob service, as the Rust tests installed it under the
    target folder (`tests/common/azurite.rs`), and the variables that point
    the store at it. Skipped where it is not installed, unless
    `CODEC_PY_SERVERS=required` (as `.ci/run` runs after the Rust tests)."""
    target = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
    root = target / "tmp" / "azurite-3.35.0"
    if not (root / "serve.js").exists():
        if os.environ.get("CODEC_PY_SERVERS") == "required":
            raise AssertionError(f"Azurite is not installed at {root}: run the Rust tests first")
        pytest.skip(f"Azurite is not installed at {root} (the Rust tests install it)")
    port = _free_port()
    server = subprocess.Popen(
        ["node", str(root / "serve.js"), str(root), str(port), "codec", "devstoreaccount1",
         "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert server.stdout is not None
    assert server.stdout.readline().strip() == "ready", "Azurite did not start"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("AZURE_STORAGE_USE_EMULATOR", "true")
        patch.setenv("AZURITE_BLOB_STORAGE_URL", f"http://127.0.0.1:{port}")
        yield port
    server.terminate()
    server.wait()


@pytest.fixture
def azure_prefix(azurite: int) -> str:
    """A fresh prefix of Azurite's container, as a URL."""
    return f"az://codec/py-{os.getpid()}-{next(_names)}"
