#!/usr/bin/env python3
"""Prints the table of ratios of the last `cargo bench -p codec-benches --bench log` run.

Reads criterion's estimates under target/criterion/<group>/<id>/new/ and the
bytes per record the bench wrote to target/criterion/log_bytes.json. Another
criterion folder may be given (`CRITERION_HOME` of a run, such as a native
build's): `python3 benches/ratios.py target/native/criterion`.
"""
import json
import os
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "target", "criterion")
RECORDS = 10_000


# The bench writes the sizes beside the sources' target folder, whatever the run's.
BYTES = os.path.join(ROOT, "log_bytes.json")
if len(sys.argv) > 1:
    ROOT = sys.argv[1]


def ns_per_record(group, ident):
    path = os.path.join(ROOT, group, ident, "new", "estimates.json")
    try:
        with open(path) as f:
            return json.load(f)["median"]["point_estimate"] / RECORDS
    except FileNotFoundError:
        return None


def main():
    rows = [(g, i, ns_per_record(g, i)) for g, ids in [
        ("msgpack_encode", ["codec", "rmp-serde", "msgpacker", "zerompk-map", "zerompk-array"]),
        ("msgpack_decode", ["codec", "rmp-serde", "msgpacker", "zerompk-map", "zerompk-array", "clone_floor", "codec-borrowed",
                            "codec-derived-borrowed", "rmp-serde-borrowed"]),
        ("json_encode", ["codec", "serde_json", "sonic-rs"]),
        ("json_decode", ["codec", "serde_json", "sonic-rs", "codec-borrowed", "serde_json-borrowed"]),
        ("per_record_encode", ["codec", "rmp-serde"]),
        ("stored_decode", ["bare", "envelope"]),
    ] for i in ids]
    t = {(g, i): v for g, i, v in rows}
    if any(v is None for v in t.values()):
        sys.exit("run `cargo bench -p codec-benches --bench log` first")
    print("| group | library | ns/record |\n|---|---|---|")
    for g, i, v in rows:
        print(f"| {g} | {i} | {v:.1f} |")
    try:
        with open(BYTES) as f:
            sizes = json.load(f)
        print("\n| library | bytes/record |\n|---|---|")
        for name, size in sizes.items():
            print(f"| {name} | {size:.1f} |")
    except FileNotFoundError:
        pass
    goals = [
        ("MessagePack encode, codec / rmp-serde", t["msgpack_encode", "codec"] / t["msgpack_encode", "rmp-serde"], 0.65),
        ("MessagePack decode, codec / rmp-serde", t["msgpack_decode", "codec"] / t["msgpack_decode", "rmp-serde"], 0.42),
        ("MessagePack decode, codec / clone floor", t["msgpack_decode", "codec"] / t["msgpack_decode", "clone_floor"], 1.5),
        ("MessagePack decode, codec / zerompk (map form)", t["msgpack_decode", "codec"] / t["msgpack_decode", "zerompk-map"], 1.0),
        ("MessagePack decode, codec / zerompk (array form)", t["msgpack_decode", "codec"] / t["msgpack_decode", "zerompk-array"], 1.3),
        ("JSON encode, codec / serde_json", t["json_encode", "codec"] / t["json_encode", "serde_json"], 0.8),
        ("JSON decode, codec / serde_json", t["json_decode", "codec"] / t["json_decode", "serde_json"], 0.6),
        ("JSON encode, codec / sonic-rs", t["json_encode", "codec"] / t["json_encode", "sonic-rs"], 1.0),
        ("JSON decode, codec / sonic-rs", t["json_decode", "codec"] / t["json_decode", "sonic-rs"], 1.0),
        ("one record into a fresh buffer / batched", t["per_record_encode", "codec"] / t["msgpack_encode", "codec"], 1.5),
        ("checked envelope / bare decode", t["stored_decode", "envelope"] / t["stored_decode", "bare"], 1.05),
    ]
    print("\n| ratio | measured | goal | |\n|---|---|---|---|")
    for name, ratio, goal in goals:
        print(f"| {name} | {ratio:.2f} | <= {goal} | {'PASS' if ratio <= goal else 'MISS'} |")
    borrowed = t["msgpack_decode", "codec-borrowed"]
    print("\nBelow the allocation floor (a prototype that borrows the strings, no goal):")
    print(f"borrowed / codec {borrowed / t['msgpack_decode', 'codec']:.2f}, "
          f"borrowed / clone floor {borrowed / t['msgpack_decode', 'clone_floor']:.2f}, "
          f"borrowed / zerompk (map form) {borrowed / t['msgpack_decode', 'zerompk-map']:.2f}")
    derived = t["msgpack_decode", "codec-derived-borrowed"]
    json_derived = t["json_decode", "codec-borrowed"]
    print("Derived borrowing types (`Record<'a>`), no goal:")
    print(f"MessagePack: derived / prototype {derived / borrowed:.2f}, "
          f"derived / codec owned {derived / t['msgpack_decode', 'codec']:.2f}, "
          f"derived / rmp-serde borrowed {derived / t['msgpack_decode', 'rmp-serde-borrowed']:.2f}")
    print(f"JSON: derived / codec owned {json_derived / t['json_decode', 'codec']:.2f}, "
          f"derived / serde_json borrowed {json_derived / t['json_decode', 'serde_json-borrowed']:.2f}")


if __name__ == "__main__":
    main()
