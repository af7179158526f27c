#!/usr/bin/env python3
"""Compile time of deriving 200 generated types: codec against serde + schemars.

Generates two crates under target/derive-compile/ with the same 200 types (100
structs, 100 tagged enums), one deriving `codec::Codec`, one deriving
`Serialize, Deserialize, JsonSchema`, builds each once for its dependencies,
then times rebuilds of the crate alone (median of 5, debug profile).
"""
import os
import statistics
import subprocess
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
OUT = os.path.join(ROOT, "target", "derive-compile")


def types(derive, enum_attr):
    out = []
    for i in range(100):
        out.append(f"""{derive}
pub struct S{i} {{
    pub id: u64,
    pub name: String,
    pub tags: Vec<u32>,
    pub score: Option<f64>,
    pub nested: Vec<E{i}>,
}}
""")
        out.append(f"""{derive}
{enum_attr}
pub enum E{i} {{
    A {{ x: i64, y: i64 }},
    B {{ text: String }},
    C {{ flag: bool, n: u32 }},
}}
""")
    return "\n".join(out)


def crate(name, deps, derive, enum_attr):
    d = os.path.join(OUT, name)
    os.makedirs(os.path.join(d, "src"), exist_ok=True)
    with open(os.path.join(d, "Cargo.toml"), "w") as f:
        f.write(f'[package]\nname = "{name}"\nversion = "0.0.0"\nedition = "2021"\n\n[dependencies]\n{deps}\n[workspace]\n')
    with open(os.path.join(d, "src", "lib.rs"), "w") as f:
        f.write("#![allow(dead_code)]\n" + types(derive, enum_attr))
    return d


def timed_builds(d, n=5):
    env = dict(os.environ, CARGO_TARGET_DIR=os.path.join(d, "target"))
    subprocess.run(["cargo", "build", "-q"], cwd=d, env=env, check=True)
    times = []
    for _ in range(n):
        os.utime(os.path.join(d, "src", "lib.rs"))
        t = time.perf_counter()
        subprocess.run(["cargo", "build", "-q"], cwd=d, env=env, check=True)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main():
    codec = crate("derive_codec", f'codec = {{ path = "{ROOT}" }}\n', "#[derive(codec::Codec)]", "")
    serde = crate(
        "derive_serde",
        'serde = { version = "1", features = ["derive"] }\nschemars = "1"\n',
        "#[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema)]",
        '#[serde(tag = "type")]',
    )
    a, b = timed_builds(codec), timed_builds(serde)
    print(f"codec derive:            {a:.2f} s")
    print(f"serde + schemars derive: {b:.2f} s")
    print(f"ratio: {a / b:.2f} (goal <= 1.3)")


if __name__ == "__main__":
    main()
