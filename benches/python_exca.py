#!/usr/bin/env python3
"""codec's Python package against exca's CacheDict, from Python, in one run.

    python3 benches/python_exca.py [--rounds N]

Builds the package's wheel in release (maturin), installs it with exca into
a venv under target/tmp (pip reaches PyPI), and alternates rounds of each
library in processes of their own, in fresh folders, on the same values:
1000 puts of a ~100-byte dict (exca inside one `write()` context), then a
fresh handle's 1000 gets (codec stores the dicts untyped, as a Rust
`codec::Value`). Prints each round
and the ratios of the medians (codec / exca: above 1, codec is faster).
"""
import argparse
import glob
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
TARGET = os.path.join(ROOT, "target")
PACKAGES = ["exca==0.6.0", "msgspec==0.22.0", "maturin==1.16.0"]
SMALL = 1000
OPERATIONS = [
    ("small_put", "put, ~100-byte dict"),
    ("fresh_get", "get, fresh handle (open + 1000 gets)"),
]


def value(i):
    return {"id": i, "text": f"value number {i} of the benchmark", "values": list(range(12))}


def rate(count, start):
    return count / (time.perf_counter() - start)


def exca_round(root):
    from exca.cachedict import CacheDict

    out = {}
    with tempfile.TemporaryDirectory(dir=root) as tmp:
        start = time.perf_counter()
        cache = CacheDict(folder=tmp)
        with cache.write():
            for i in range(SMALL):
                cache[f"k{i}"] = value(i)
        out["small_put"] = rate(SMALL, start)
        start = time.perf_counter()
        cache = CacheDict(folder=tmp)
        for i in range(SMALL):
            cache[f"k{i}"]
        out["fresh_get"] = rate(SMALL, start)
    print(json.dumps(out))


def codec_round(root):
    import codec

    out = {}
    with tempfile.TemporaryDirectory(dir=root) as tmp:
        start = time.perf_counter()
        cache = codec.Cache.open(tmp)
        for i in range(SMALL):
            cache.put(f"k{i}", value(i))
        out["small_put"] = rate(SMALL, start)
        del cache
        start = time.perf_counter()
        cache = codec.Cache.open(tmp)
        for i in range(SMALL):
            cache.get(f"k{i}")
        out["fresh_get"] = rate(SMALL, start)
    print(json.dumps(out))


def venv_python():
    """A Python with exca, msgspec and maturin, made once under target/tmp."""
    venv = os.path.join(TARGET, "tmp", "python-exca-venv")
    python = os.path.join(venv, "bin", "python")
    ready = os.path.join(venv, "ready")
    if not os.path.exists(ready):
        shutil.rmtree(venv, ignore_errors=True)
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
        pip = [python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
        subprocess.run(pip + PACKAGES, check=True)
        open(ready, "w").close()
    return python


def install_wheel(python):
    """Builds the package in release and installs it into the venv."""
    wheels = os.path.join(TARGET, "tmp", "python-exca-wheels")
    shutil.rmtree(wheels, ignore_errors=True)
    maturin = os.path.join(os.path.dirname(python), "maturin")
    env = dict(os.environ, CARGO_TARGET_DIR=os.path.join(TARGET, "codec-py-release"))
    subprocess.run([maturin, "build", "--release", "--quiet", "--locked",
                    "--manifest-path", os.path.join(ROOT, "codec-py", "Cargo.toml"),
                    "--interpreter", python, "--out", wheels], check=True, env=env)
    wheel = glob.glob(os.path.join(wheels, "*.whl"))[0]
    subprocess.run([python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                    "--force-reinstall", "--no-deps", wheel], check=True)


def run_round(cmd):
    out = subprocess.run(cmd, check=True, stdout=subprocess.PIPE, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--round", nargs=2, metavar=("LIB", "DIR"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.round:
        lib, root = args.round
        return (codec_round if lib == "codec" else exca_round)(root)

    python = venv_python()
    install_wheel(python)
    os.makedirs(os.path.join(TARGET, "tmp"), exist_ok=True)
    results = {"codec": [], "exca": []}
    with tempfile.TemporaryDirectory(dir=os.path.join(TARGET, "tmp"), prefix="python-exca-") as tmp:
        for r in range(args.rounds):
            for lib in ("codec", "exca") if r % 2 == 0 else ("exca", "codec"):
                cmd = [python, os.path.abspath(__file__), "--round", lib, tmp]
                results[lib].append(run_round(cmd))
            print(f"round {r + 1}: " + "; ".join(
                f"{lib} " + ", ".join(f"{k} {v[-1][k]:.4g}" for k, _ in OPERATIONS)
                for lib, v in results.items()), file=sys.stderr)
    print(f"{args.rounds} rounds each, alternating; load average {os.getloadavg()[0]:.1f}\n")
    print("| operation (from Python) | codec | exca | ratio | per round |\n|---|---|---|---|---|")
    for key, what in OPERATIONS:
        codec = [r[key] for r in results["codec"]]
        exca = [r[key] for r in results["exca"]]
        per_round = [c / e for c, e in zip(codec, exca)]
        ratio = statistics.median(codec) / statistics.median(exca)
        print(f"| {what} | {statistics.median(codec):,.0f} /s | {statistics.median(exca):,.0f} /s "
              f"| {ratio:.2f}x | {min(per_round):.2f}-{max(per_round):.2f} |")


if __name__ == "__main__":
    main()
