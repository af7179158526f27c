#!/usr/bin/env python3
"""codec's cache store against exca's CacheDict, in one run: ratios.

    python3 benches/store_exca.py [--rounds N]

Builds codec's round (`benches/store_exca.rs`, release), installs exca into a
venv under target/tmp (pip reaches PyPI) and alternates rounds: codec, exca,
codec, exca, ... Each round runs in a process of its own, in fresh folders,
with the same shapes on both sides: 1000 puts of a ~100-byte value, then a
fresh handle's 1000 gets; 200 puts of a 1 MiB float64 array, then a fresh
handle reading each one's last element through its memory map; a fresh
handle's first load of a 1 GiB array (written once per library). Prints each
round's figures and the ratios of the medians (codec / exca for rates,
exca / codec for the first load's time: above 1, codec is ahead).
"""
import argparse
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
EXCA = "exca==0.6.0"
SMALL = 1000
ARRAYS = 200
ARRAY_LEN = 131_072
# (key, what, goal: codec's rate over exca's at least this)
OPERATIONS = [
    ("small_put", "put, ~100-byte value", 5.0),
    ("fresh_get", "get, fresh handle (open + 1000 gets)", 5.0),
    ("array_put", "put, 1 MiB float64 array", 1.5),
    ("array_get_fresh", "get, 1 MiB array after a fresh open (last element)", 1.0),
    ("first_load_1gib", "first load of a 1 GiB array (time, exca / codec)", 1.0),
]


def exca_round(root):
    """One round of exca, in this (the venv's) Python: prints its rates."""
    import numpy as np
    from exca.cachedict import CacheDict

    def rate(count, start):
        return count / (time.perf_counter() - start)

    out = {}
    with tempfile.TemporaryDirectory(dir=root) as tmp:
        small = os.path.join(tmp, "small")
        start = time.perf_counter()
        cache = CacheDict(folder=small)
        with cache.write():
            for i in range(SMALL):
                cache[f"k{i}"] = {
                    "id": i,
                    "text": f"value number {i} of the benchmark",
                    "values": list(range(12)),
                }
        out["small_put"] = rate(SMALL, start)
        start = time.perf_counter()
        cache = CacheDict(folder=small)
        for i in range(SMALL):
            cache[f"k{i}"]
        out["fresh_get"] = rate(SMALL, start)

        arrays = os.path.join(tmp, "arrays")
        array = np.arange(ARRAY_LEN, dtype=np.float64)
        start = time.perf_counter()
        cache = CacheDict(folder=arrays)
        with cache.write():
            for i in range(ARRAYS):
                cache[f"a{i}"] = array
        out["array_put"] = rate(ARRAYS, start)
        start = time.perf_counter()
        cache = CacheDict(folder=arrays)
        for i in range(ARRAYS):
            assert cache[f"a{i}"][-1] == ARRAY_LEN - 1
        out["array_get_fresh"] = rate(ARRAYS, start)

    big = os.path.join(root, "big")
    if not os.path.exists(big):
        cache = CacheDict(folder=big)
        with cache.write():
            cache["big"] = np.zeros(1 << 27)
    start = time.perf_counter()
    cache = CacheDict(folder=big)
    float(cache["big"][12_345])
    out["first_load_1gib"] = time.perf_counter() - start
    print(json.dumps(out))


def venv_python():
    """A Python with exca, installed once into a venv under the target folder."""
    venv = os.path.join(TARGET, "tmp", "exca-venv")
    python = os.path.join(venv, "bin", "python")
    ready = os.path.join(venv, EXCA + ".ready")
    if not os.path.exists(ready):
        shutil.rmtree(venv, ignore_errors=True)
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
        pip = [python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
        subprocess.run(pip + [EXCA], check=True)
        open(ready, "w").close()
    return python


def codec_binary():
    """Builds codec's round in release and returns its path."""
    out = subprocess.run(
        ["cargo", "bench", "-p", "codec-benches", "--bench", "store_exca", "--features", "ndarray",
         "--no-run", "--message-format=json"],
        cwd=ROOT, check=True, stdout=subprocess.PIPE, text=True,
    ).stdout
    for line in out.splitlines():
        msg = json.loads(line)
        if msg.get("reason") == "compiler-artifact" and msg["target"]["name"] == "store_exca" \
                and msg.get("executable"):
            return msg["executable"]
    sys.exit("cargo built no store_exca binary")


def run_round(cmd):
    out = subprocess.run(cmd, check=True, stdout=subprocess.PIPE, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--exca-round", metavar="DIR", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.exca_round:
        return exca_round(args.exca_round)

    python = venv_python()
    binary = codec_binary()
    os.makedirs(os.path.join(TARGET, "tmp"), exist_ok=True)
    with tempfile.TemporaryDirectory(dir=os.path.join(TARGET, "tmp"), prefix="store-exca-") as tmp:
        dirs = {"codec": os.path.join(tmp, "codec"), "exca": os.path.join(tmp, "exca")}
        for d in dirs.values():
            os.makedirs(d)
        commands = {
            "codec": [binary, dirs["codec"]],
            "exca": [python, os.path.abspath(__file__), "--exca-round", dirs["exca"]],
        }
        # The 1 GiB arrays are written in a first round of each, not measured.
        for lib in ("codec", "exca"):
            run_round(commands[lib])
        results = {"codec": [], "exca": []}
        for r in range(args.rounds):
            for lib in ("codec", "exca") if r % 2 == 0 else ("exca", "codec"):
                results[lib].append(run_round(commands[lib]))
            print(f"round {r + 1}: " + "; ".join(
                f"{lib} " + ", ".join(f"{k} {v[-1][k]:.4g}" for k, _, _ in OPERATIONS)
                for lib, v in results.items()), file=sys.stderr)

    print(f"{args.rounds} rounds each, alternating; load average {os.getloadavg()[0]:.1f}\n")
    print("| operation | codec | exca | ratio | per round | goal | |\n|---|---|---|---|---|---|---|")
    for key, what, goal in OPERATIONS:
        codec = [r[key] for r in results["codec"]]
        exca = [r[key] for r in results["exca"]]
        per_round = [c / e for c, e in zip(codec, exca)]
        if key == "first_load_1gib":
            per_round = [1 / x for x in per_round]
            fmt = lambda xs: f"{statistics.median(xs) * 1e6:,.0f} µs"
            ratio = statistics.median(exca) / statistics.median(codec)
        else:
            fmt = lambda xs: f"{statistics.median(xs):,.0f} /s"
            ratio = statistics.median(codec) / statistics.median(exca)
        spread = f"{min(per_round):.2f}-{max(per_round):.2f}"
        verdict = "PASS" if ratio >= goal else "MISS"
        print(f"| {what} | {fmt(codec)} | {fmt(exca)} | {ratio:.2f}x | {spread} | >= {goal} | {verdict} |")


if __name__ == "__main__":
    main()
